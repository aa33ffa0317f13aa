import pg from "pg";

/** How much later than the server's statement_timeout the driver stops waiting for an answer. */
export const QUERY_TIMEOUT_MARGIN_MS = 1_000;

const READ_TIMEOUT = /^Query read timeout$/;

/** pg-pool hands its options to each client it creates; this one carries the session's statement timeout. */
export interface BoundedClientOptions extends pg.ClientConfig {
  sessionStatementTimeoutMs?: number;
}

/**
 * A `pg` client that sets the session's `statement_timeout` once connected, and drops its connection when a query got no answer within `query_timeout`.
 *
 * pg's read timeout fails the query but keeps the connection: one that stopped answering (a network that silently
 * drops packets, a PGlite statement still running) would go back to the pool, and the next caller's statements
 * would queue behind the lost one. Ending the socket instead makes the pool discard the client (a checked-out one
 * is no longer queryable on release) and fail its queued statements, and on PGlite frees the caller's place in the
 * engine's queue. The server side of a real PostgreSQL ends the statement itself (statement_timeout fires first).
 */
export class BoundedClient extends pg.Client {
  private readonly sessionSetup: string | null;

  constructor(options: BoundedClientOptions = {}) {
    super(options);
    const ms = options.sessionStatementTimeoutMs;
    // A SET rather than a startup parameter, which poolers such as PgBouncer refuse by default. Part of connecting,
    // so the pool's connect timeout bounds it and a failure fails the connection, not a caller's statement.
    this.sessionSetup = ms ? `SET statement_timeout = ${Math.max(1, Math.round(ms))}` : null;
  }

  override connect(...args: unknown[]): any {
    const ready = (super.connect() as Promise<unknown>).then(async () => {
      if (this.sessionSetup) await super.query(this.sessionSetup);
    });
    const callback = args[0];
    if (typeof callback !== "function") return ready;
    ready.then(
      () => callback(undefined),
      (error: unknown) => callback(error),
    );
  }

  override query(...args: unknown[]): any {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === "function") {
      args[last] = (error: unknown, result: unknown) => {
        if (isReadTimeout(error)) this.dropConnection();
        (callback as (error: unknown, result: unknown) => void)(error, result);
      };
      return (super.query as (...input: unknown[]) => unknown)(...args);
    }
    const result = (super.query as (...input: unknown[]) => unknown)(...args);
    if (result instanceof Promise) {
      result.catch((error: unknown) => {
        if (isReadTimeout(error)) this.dropConnection();
      });
    }
    return result;
  }

  private dropConnection(): void {
    // `connection` is pg's internal protocol object; its stream is the socket.
    (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }
}

export function isReadTimeout(error: unknown): boolean {
  return error instanceof Error && READ_TIMEOUT.test(error.message);
}
