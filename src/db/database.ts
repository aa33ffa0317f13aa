import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../generated/prisma/client.ts";
import type { DatabaseTarget, DatabaseTimeouts } from "../config.ts";
import { BoundedClient, QUERY_TIMEOUT_MARGIN_MS, type BoundedClientOptions } from "./bounded-client.ts";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "./embedded-postgres.ts";
import { migrate, type MigrationResult } from "./migrator.ts";

export type Prisma = PrismaClient;

export interface Database {
  readonly prisma: PrismaClient;
  /** The pool under Prisma, for the few hot reads that repositories run as plain SQL. */
  readonly pool: pg.Pool;
  /** The PostgreSQL URL in use (for embedded databases, the socket URL). */
  readonly url: string;
  readonly embedded: boolean;
  /**
   * Whether hot statements may be prepared by name on each pooled connection (see prepared-statement.ts). Not on
   * PGlite, embedded or reached over its socket: all its connections share one session, where a name prepared
   * by one connection already exists for the next.
   */
  readonly prepareStatements: boolean;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  migrate?: boolean;
  poolSize?: number;
  /** Default: DEFAULT_DATABASE_TIMEOUTS (the settings' defaults). */
  timeouts?: DatabaseTimeouts;
  /** Called once the migrations have run. */
  onMigrated?: (result: MigrationResult) => void;
}

/** The defaults of DATABASE_STATEMENT_TIMEOUT and DATABASE_CONNECT_TIMEOUT. */
export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { statementTimeoutMs: 5_000, connectTimeoutMs: 5_000 };
/** TCP keepalive probes start after a connection has been silent this long (the kernel then gives up on a dead peer). */
const KEEPALIVE_IDLE_MS = 10_000;

/**
 * Opens PostgreSQL or the embedded PGlite: both are reached over the PostgreSQL protocol through `pg`,
 * so the rest of the service never knows which one it has.
 */
export async function openDatabase(target: DatabaseTarget, options: OpenDatabaseOptions = {}): Promise<Database> {
  let embedded: EmbeddedPostgres | null = null;
  let url: string;
  if (target.kind === "embedded") {
    embedded = await startEmbeddedPostgres({ dataDir: target.dataDir, template: target.template });
    url = embedded.url;
  } else {
    url = target.url;
  }
  try {
    if (options.migrate !== false) {
      const result = await migrate(url);
      options.onMigrated?.(result);
    }
    // The embedded engine runs one statement at a time (SessionAwareQueue keeps each connection's protocol
    // batches and transactions whole); a few connections keep it busy while results travel back.
    const timeouts = options.timeouts ?? DEFAULT_DATABASE_TIMEOUTS;
    const poolOptions: pg.PoolConfig & BoundedClientOptions = {
      Client: BoundedClient,
      connectionString: url,
      max: options.poolSize ?? (embedded ? 4 : 20),
      // Every wait on the database is bounded, so a request fails (503) instead of hanging: connecting (or waiting
      // for a pooled connection), a statement on the server (also a lock wait), and the answer on the wire (a
      // network that silently drops packets; PGlite ignores statement_timeout).
      connectionTimeoutMillis: timeouts.connectTimeoutMs,
      sessionStatementTimeoutMs: timeouts.statementTimeoutMs,
      query_timeout: timeouts.statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    };
    const pool = new pg.Pool(poolOptions);
    // An idle client dropped by the server (restart, DROP DATABASE … FORCE) must not crash the process.
    pool.on("error", () => undefined);
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
    await prisma.$connect();
    const { rows } = await pool.query<{ version: string }>("SELECT version() AS version");
    const sharedSession = embedded !== null || /\bPGlite\b/.test(rows[0]?.version ?? "");
    return {
      prisma,
      pool,
      url,
      embedded: embedded !== null,
      prepareStatements: !sharedSession,
      async close() {
        await prisma.$disconnect();
        await pool.end();
        await embedded?.stop();
      },
    };
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
}
