import type { Logger } from "pino";
import type { AppServices } from "../app.ts";

const IDEMPOTENCY_PURGE_INTERVAL_MS = 60 * 60 * 1000;
const ABANDONED_SEND_INTERVAL_MS = 60 * 1000;
/** Far beyond the longest send (timeout × bounded retries): only a crashed send can be this old. */
const ABANDONED_SEND_AGE_MS = 5 * 60 * 1000;

/** Housekeeping that must not run on request paths. */
export function startMaintenance(services: Pick<AppServices, "idempotency" | "orderService">, logger: Logger): { stop(): void } {
  const every = (ms: number, task: () => Promise<unknown>, name: string) => {
    const run = () => void task().catch((error: unknown) => logger.warn({ err: error, task: name }, "maintenance task failed"));
    const timer = setInterval(run, ms);
    timer.unref();
    return { run, timer };
  };
  const purge = every(
    IDEMPOTENCY_PURGE_INTERVAL_MS,
    async () => {
      const count = await services.idempotency.purgeExpired();
      if (count) logger.info({ count }, "expired idempotency records purged");
    },
    "idempotency-purge",
  );
  const abandoned = every(
    ABANDONED_SEND_INTERVAL_MS,
    async () => {
      const count = await services.orderService.failAbandonedSends(ABANDONED_SEND_AGE_MS);
      if (count) logger.warn({ count }, "orders whose message send was interrupted were marked failed");
    },
    "abandoned-sends",
  );
  abandoned.run();
  return {
    stop() {
      clearInterval(purge.timer);
      clearInterval(abandoned.timer);
    },
  };
}
