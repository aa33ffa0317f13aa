import pino, { type Logger } from "pino";

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: "order-confirmation" },
    redact: { paths: ["req.headers[\"x-api-key\"]", "req.headers.authorization"], censor: "[redacted]" },
  });
}
