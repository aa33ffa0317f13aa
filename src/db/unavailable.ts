import type { Logger } from "pino";
import { throttledWarn } from "../logger.ts";

/**
 * Whether an error means "the database cannot be reached right now" (stopped, restarting, unreachable, out of
 * connections), as opposed to a bug or a refused statement. Transports answer such errors 503 with
 * Retry-After instead of 500, and log one throttled warning instead of a stack per request.
 *
 * The error may come from `pg` directly (repositories' plain-SQL reads), from pg-pool, or from Prisma, which
 * wraps the driver's error (DriverAdapterError with a `cause.kind`, or a P1xxx/P2024 known error).
 */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENOTFOUND", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);
const ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections", "TlsConnectionError"]);
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024", "P2037"]);
/**
 * SQLSTATE: class 08 (connection exception), 53300 too many connections, 57P01–57P03 (administrator or crash
 * shutdown, cannot connect now), 57P05 (idle session timeout), 57014 (statement cancelled: DATABASE_STATEMENT_TIMEOUT
 * ran out, e.g. waiting for a lock; nothing else cancels the service's statements).
 */
const SQLSTATE = /^(08...|53300|57P0[1235]|57014)$/;
const MESSAGES = [
  // Prisma keeps a socket error's code and text ("connect ENOENT /…/.s.PGSQL.5432") but not its syscall.
  /\bconnect E[A-Z]+\b/,
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /connection (?:is )?(?:closed|ended)/i,
  /not queryable/i,
  /the database system is (?:starting up|shutting down|in recovery mode)/i,
  // ALTER DATABASE … ALLOW_CONNECTIONS false (SQLSTATE 55000, too broad a class to match on its own).
  /is not currently accepting connections/i,
  /server closed the connection unexpectedly/i,
  /terminating connection due to administrator command/i,
  /Can't reach database server/i,
  // The driver's own bound on an answer (query_timeout: a silent network, a PGlite statement past the bound).
  /\bQuery read timeout\b/,
];

export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current: unknown = error; current && typeof current === "object" && !seen.has(current); ) {
    seen.add(current);
    const candidate = current as { code?: unknown; syscall?: unknown; kind?: unknown; originalCode?: unknown; message?: unknown; cause?: unknown };
    // The embedded database's unix socket is gone (ENOENT on connect, never a file read).
    if (candidate.code === "ENOENT" && candidate.syscall === "connect") return true;
    if (typeof candidate.code === "string" && (SOCKET_CODES.has(candidate.code) || PRISMA_CODES.has(candidate.code) || SQLSTATE.test(candidate.code))) {
      return true;
    }
    if (typeof candidate.kind === "string" && ADAPTER_KINDS.has(candidate.kind)) return true;
    if (typeof candidate.originalCode === "string" && SQLSTATE.test(candidate.originalCode)) return true;
    if (typeof candidate.message === "string" && MESSAGES.some((pattern) => pattern.test(candidate.message as string))) return true;
    current = candidate.cause;
  }
  return false;
}

const warnings = new WeakMap<Logger, (details: object, message: string) => void>();

/** One warning per 30 s per logger while the database stays unreachable (every transport shares it). */
export function warnDatabaseUnavailable(logger: Logger, error: unknown): void {
  let warn = warnings.get(logger);
  if (!warn) {
    warn = throttledWarn(logger);
    warnings.set(logger, warn);
  }
  const message = error instanceof Error ? error.message : String(error);
  warn({ reason: message.slice(0, 200) }, "database unavailable; answering 503 with Retry-After meanwhile");
}
