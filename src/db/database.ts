import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../generated/prisma/client.ts";
import type { DatabaseTarget } from "../config.ts";
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
  /** Called once the migrations have run. */
  onMigrated?: (result: MigrationResult) => void;
}

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
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? (embedded ? 4 : 20),
      // A database that stops answering fails requests (and /readyz) instead of hanging them.
      connectionTimeoutMillis: 10_000,
    });
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
