import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import type { Config } from "../config.ts";
import { openDatabase, type Database } from "../db/database.ts";
import { DataDirLockedError, findRunningServer, isAlive, startEmbeddedPostgres } from "../db/embedded-postgres.ts";
import { listMigrations, migrate, type MigrationResult } from "../db/migrator.ts";
import { CliError, connectionProblem } from "./errors.ts";

/**
 * How the CLI reaches the service's database (SPEC §8). An embedded PGlite data directory is never opened by
 * two processes: while a server holds it, the CLI talks to that server's PostgreSQL socket; while another `ocs`
 * command holds it, the CLI waits for it to finish; when nobody holds it, the CLI opens it itself (taking the same
 * lock a server takes) for the duration of one command.
 */
export type Route =
  | { via: "postgres"; url: string }
  | { via: "server"; url: string; pid: number; dataDir: string }
  | { via: "embedded"; url: string; dataDir: string };

export interface Attached {
  route: Route;
  /** Closes what the CLI opened itself (the embedded database); a no-op otherwise. */
  detach(): Promise<void>;
}

/** How long to wait for a starting server to publish its socket (a first start runs initdb: 3–4 s). */
const SERVER_PUBLISH_TIMEOUT_MS = 20_000;
/** How long to wait for another `ocs` command to finish with the data directory. */
const CLI_HOLD_TIMEOUT_MS = 60_000;
const POLL_MS = 100;

export async function attach(config: Config): Promise<Attached> {
  const target = config.database;
  if (target.kind === "postgres") {
    return { route: { via: "postgres", url: target.url }, detach: async () => undefined };
  }
  if (!target.dataDir) {
    throw new CliError(
      "DATABASE_URL=pglite:memory lives inside a single process, so the CLI cannot reach it; use DATA_DIR or a PostgreSQL DATABASE_URL.",
    );
  }
  const dataDir = path.resolve(target.dataDir);
  // A holder can appear between our look and our open (a server starting right now): look again then.
  for (let attempt = 0; attempt < 20; attempt++) {
    const holder = await waitForServer(dataDir);
    if (holder) return { route: { via: "server", url: holder.url, pid: holder.pid, dataDir }, detach: async () => undefined };
    const marker = markCliHolder(dataDir);
    try {
      const embedded = await startEmbeddedPostgres({ dataDir });
      removeStaleMarkers(dataDir);
      return {
        route: { via: "embedded", url: embedded.url, dataDir },
        async detach() {
          try {
            await embedded.stop();
          } finally {
            marker.remove();
          }
        },
      };
    } catch (error) {
      marker.remove();
      if (!(error instanceof DataDirLockedError)) throw error;
    }
  }
  throw new CliError(`The embedded database in ${dataDir} is busy (other processes keep taking it); try again.`);
}

/**
 * The server holding `dataDir` and its socket URL, or null once nobody holds it. Another `ocs` command holds
 * the directory only for a moment and stops serving it when done, so we wait for it rather than connect to it.
 */
async function waitForServer(dataDir: string): Promise<{ pid: number; url: string } | null> {
  const started = Date.now();
  for (;;) {
    const holder = findRunningServer(dataDir);
    if (!holder) return null;
    const waited = Date.now() - started;
    if (isCliHolder(dataDir, holder.pid)) {
      if (waited > CLI_HOLD_TIMEOUT_MS) {
        throw new CliError(`The embedded database in ${dataDir} is held by another ocs command (pid ${holder.pid}); try again once it has finished.`);
      }
    } else if (holder.url) {
      return { pid: holder.pid, url: holder.url };
    } else if (waited > SERVER_PUBLISH_TIMEOUT_MS) {
      // The lock is taken before the database is up; its URL follows once the socket listens.
      throw new CliError(
        `The embedded database in ${dataDir} is held by process ${holder.pid}, which does not serve it (yet); try again once it has started, or stop it.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * `ocs-cli.<pid>` beside the lock file says "this holder is a short-lived ocs command". It is written before the
 * lock is taken, so whoever sees the lock held by that pid also sees the marker.
 */
const CLI_MARKER_PREFIX = "ocs-cli.";

function markCliHolder(dataDir: string): { remove(): void } {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, `${CLI_MARKER_PREFIX}${process.pid}`);
  writeFileSync(file, "");
  return { remove: () => rmSync(file, { force: true }) };
}

function isCliHolder(dataDir: string, pid: number): boolean {
  return existsSync(path.join(dataDir, `${CLI_MARKER_PREFIX}${pid}`));
}

/** Markers left by ocs commands that were killed (their pid is gone). */
function removeStaleMarkers(dataDir: string): void {
  for (const name of readdirSync(dataDir)) {
    if (!name.startsWith(CLI_MARKER_PREFIX)) continue;
    const pid = Number(name.slice(CLI_MARKER_PREFIX.length));
    if (pid === process.pid || !Number.isInteger(pid)) continue;
    if (!isAlive(pid)) rmSync(path.join(dataDir, name), { force: true });
  }
}

/** Migrations in prisma/migrations that the database has not recorded as finished. */
export async function pendingMigrations(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ present: boolean }>(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS present`);
    const done = new Set<string>();
    if (rows[0]?.present) {
      const applied = await client.query<{ migration_name: string }>(
        `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
      );
      for (const row of applied.rows) done.add(row.migration_name);
    }
    return listMigrations().map((migration) => migration.name).filter((name) => !done.has(name));
  } finally {
    await client.end();
  }
}

export interface CliDatabase {
  route: Route;
  database: Database;
  /** Migrations applied while opening (only when the CLI opened the embedded database itself). */
  applied: string[];
}

/**
 * Opens the database for a data command. A data directory the CLI opened itself is migrated first, as the server
 * does at start-up (it is private to this command); a shared PostgreSQL or a running server's database is only
 * checked, since migrating it is the operator's explicit `ocs migrate`.
 */
export async function withDatabase<T>(config: Config, work: (db: CliDatabase) => Promise<T>): Promise<T> {
  const attached = await attach(config);
  try {
    let applied: string[] = [];
    if (attached.route.via === "embedded") {
      applied = (await reaching(attached.route, () => migrate(attached.route.url))).applied;
    } else {
      const pending = await reaching(attached.route, () => pendingMigrations(attached.route.url));
      if (pending.length > 0) {
        throw new CliError(
          `The database is missing ${pending.length} migration(s) (${pending.join(", ")}); run \`ocs migrate\` first.`,
        );
      }
    }
    const database = await openDatabase({ kind: "postgres", url: attached.route.url }, { migrate: false, poolSize: 2, timeouts: config.databaseTimeouts });
    try {
      return await work({ route: attached.route, database, applied });
    } finally {
      await database.close();
    }
  } finally {
    await attached.detach();
  }
}

/** `ocs migrate`: applies pending migrations wherever the database is. */
export async function migrateDatabase(config: Config): Promise<MigrationResult & { route: Route }> {
  const attached = await attach(config);
  try {
    return { ...(await reaching(attached.route, () => migrate(attached.route.url))), route: attached.route };
  } finally {
    await attached.detach();
  }
}

/** The first contact with the database: a connection failure names the database it tried. */
async function reaching<T>(route: Route, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const problem = connectionProblem(error);
    if (!problem) throw error;
    const where = route.via === "server" ? `the running server's database (pid ${route.pid})` : displayUrl(route.url);
    throw new CliError(`Cannot reach the database at ${where}: ${problem}.`);
  }
}

/** A URL safe to print: the password is masked. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "****";
    return parsed.toString();
  } catch {
    return url;
  }
}
