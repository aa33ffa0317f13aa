import { ConfigError } from "../config.ts";
import { DataDirLockedError } from "../db/embedded-postgres.ts";
import { NotFoundError } from "../domain/errors.ts";

/** An error whose message is meant for the operator as is (one line, no stack). */
export class CliError extends Error {}

/** One line for stderr: what went wrong, never a stack trace (multi-line only for a list of config problems). */
export function describeError(error: unknown): string {
  if (error instanceof ConfigError) return error.message;
  if (error instanceof CliError) return oneLine(error.message);
  if (error instanceof NotFoundError) {
    const names = { merchant: "Merchant", apiKey: "API key", order: "Order", webhookEndpoint: "Webhook endpoint", webhookDelivery: "Webhook delivery", user: "User" };
    return `${names[error.resource]} not found.`;
  }
  if (error instanceof DataDirLockedError) {
    return oneLine(`${error.message} Stop that process first, or use another DATA_DIR.`);
  }
  const errno = error as NodeJS.ErrnoException & { address?: string; port?: number };
  if (errno?.code === "EADDRINUSE" && errno.syscall === "listen") {
    return `${errno.address ?? "The address"}:${errno.port ?? "?"} is already in use; set PORT (or HOST) to a free one.`;
  }
  const connection = connectionProblem(error);
  if (connection) return `Cannot reach the database: ${connection}.`;
  const message = error instanceof Error ? error.message || error.name : String(error);
  return `Unexpected error: ${oneLine(message)}`;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}

const CONNECTION_CODES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOENT: "no socket at the configured address",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ETIMEDOUT: "connection timed out",
  ECONNRESET: "connection reset",
  EHOSTUNREACH: "host unreachable",
  "28P01": "password authentication failed",
  "28000": "access denied",
  "3D000": "the database does not exist",
};

/** pg connection failures (Node 20 reports a refused `localhost` as an AggregateError with no message). */
export function connectionProblem(error: unknown): string | null {
  const candidates = error instanceof AggregateError ? [error, ...error.errors] : [error];
  for (const candidate of candidates) {
    const code = (candidate as { code?: unknown } | null)?.code;
    if (typeof code === "string" && CONNECTION_CODES[code]) {
      const detail = (candidate as Error).message;
      return code.length === 5 && detail ? oneLine(detail) : CONNECTION_CODES[code];
    }
  }
  if (error instanceof Error && /Connection terminated/i.test(error.message)) return "the connection was closed";
  return null;
}
