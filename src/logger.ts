import pino, { type Logger } from "pino";

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: "order-confirmation" },
    redact: { paths: ["req.headers[\"x-api-key\"]", "req.headers.authorization", "req.headers.cookie"], censor: "[redacted]" },
  });
}

/** How often a repeated warning (an outage seen on every poll, event or reconnect) may reach the log. */
export const OUTAGE_LOG_INTERVAL_MS = 30_000;

/**
 * A warn() that writes at most once per `intervalMs`: while a dependency stays down, every attempt fails, and
 * one line per attempt would flood the log without saying more.
 */
export function throttledWarn(logger: Logger, intervalMs = OUTAGE_LOG_INTERVAL_MS): (details: object, message: string) => void {
  let last = Number.NEGATIVE_INFINITY;
  return (details, message) => {
    const now = Date.now();
    if (now - last < intervalMs) return;
    last = now;
    logger.warn(details, message);
  };
}
