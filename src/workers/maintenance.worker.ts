import type { Logger } from "pino";
import type { AppServices } from "../app.ts";

const PURGE_INTERVAL_MS = 60 * 60 * 1000;

/** Housekeeping that must not run on request paths: expired Idempotency-Key records. */
export function startMaintenance(services: Pick<AppServices, "idempotency">, logger: Logger): { stop(): void } {
  const timer = setInterval(() => {
    services.idempotency
      .purgeExpired()
      .then((count) => count && logger.info({ count }, "expired idempotency records purged"))
      .catch((error: unknown) => logger.warn({ err: error }, "idempotency purge failed"));
  }, PURGE_INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
