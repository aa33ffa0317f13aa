import type { Logger } from "pino";
import type { AppServices } from "../app-services.ts";

const IDEMPOTENCY_PURGE_INTERVAL_MS = 60 * 60 * 1000;
const ABANDONED_SEND_INTERVAL_MS = 60 * 1000;
/** Statistics buckets are 15 minutes at the finest: their slots are folded a quarter after they close. */
const STAT_SLOTS_INTERVAL_MS = 15 * 60 * 1000;
/** Far beyond the longest send (timeout × 3 attempts + backoff): only a crashed send can be this old. */
export const abandonedSendAgeMs = (whatsappTimeoutMs: number) => Math.max(5 * 60 * 1000, whatsappTimeoutMs * 3 + 60_000);

/** Housekeeping that must not run on request paths. */
export function startMaintenance(
  services: Pick<AppServices, "idempotency" | "orderService" | "config" | "sessions" | "auditLog" | "orderStatSlots">,
  logger: Logger,
): { stop(): Promise<void> } {
  const running = new Set<Promise<unknown>>();
  const every = (ms: number, task: () => Promise<unknown>, name: string) => {
    const run = () => {
      const done = task()
        .catch((error: unknown) => logger.warn({ err: error, task: name }, "maintenance task failed"))
        .finally(() => running.delete(done));
      running.add(done);
    };
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
  const providerEvents = every(
    IDEMPOTENCY_PURGE_INTERVAL_MS,
    async () => {
      const count = await services.orderService.purgeProviderEvents();
      if (count) logger.info({ count }, "provider event records past Meta's retry window purged");
    },
    "provider-events-purge",
  );
  const sessions = every(
    IDEMPOTENCY_PURGE_INTERVAL_MS,
    async () => {
      const count = await services.sessions.purgeExpired();
      if (count) logger.info({ count }, "expired console sessions purged");
    },
    "session-purge",
  );
  const audit = every(
    IDEMPOTENCY_PURGE_INTERVAL_MS,
    async () => {
      const count = await services.auditLog.purgeOlderThan(services.config.auditLogRetentionMs);
      if (count) logger.info({ count }, "audit entries past AUDIT_LOG_RETENTION deleted");
    },
    "audit-purge",
  );
  const abandoned = every(
    ABANDONED_SEND_INTERVAL_MS,
    async () => {
      const count = await services.orderService.failAbandonedSends(abandonedSendAgeMs(services.config.whatsapp.timeoutMs));
      if (count) logger.warn({ count }, "orders whose message send was interrupted were marked failed");
    },
    "abandoned-sends",
  );
  const statSlots = every(
    STAT_SLOTS_INTERVAL_MS,
    async () => {
      const count = await services.orderStatSlots.fold(new Date(Date.now() - STAT_SLOTS_INTERVAL_MS));
      if (count) logger.info({ count }, "statistics rows of closed buckets folded into one slot");
    },
    "stat-slots-fold",
  );
  abandoned.run();
  return {
    /** Stops the timers and waits for a task under way, so the database is not closed beneath it. */
    async stop() {
      clearInterval(purge.timer);
      clearInterval(providerEvents.timer);
      clearInterval(sessions.timer);
      clearInterval(audit.timer);
      clearInterval(abandoned.timer);
      clearInterval(statSlots.timer);
      await Promise.allSettled([...running]);
    },
  };
}
