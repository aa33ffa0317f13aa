import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import path from "node:path";
import pg from "pg";

/**
 * Applies prisma/migrations in order, exactly as `prisma migrate deploy` would record them (same
 * `_prisma_migrations` table and sha256 checksums), without the Prisma CLI's schema engine, so start-up is
 * fast and works offline. Each migration runs in one transaction under an advisory lock, so several
 * instances starting at once apply it exactly once.
 */
export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, "../../prisma/migrations");
const ADVISORY_LOCK_ID = 72_410_331;

export interface MigrationResult {
  applied: string[];
  alreadyApplied: number;
  /** Applied migrations whose file changed since (Prisma's checksum differs): worth an operator's look. */
  modified: string[];
}

export class FailedMigrationError extends Error {}

const CREATE_HISTORY = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export function listMigrations(dir = MIGRATIONS_DIR): { name: string; sql: string; checksum: string }[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

export async function migrate(connectionString: string, dir = MIGRATIONS_DIR): Promise<MigrationResult> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [ADVISORY_LOCK_ID]);
    await client.query(CREATE_HISTORY);
    const { rows } = await client.query<{
      migration_name: string;
      checksum: string;
      finished_at: Date | null;
      rolled_back_at: Date | null;
    }>(`SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"`);
    const failed = rows.find((row) => row.finished_at === null && row.rolled_back_at === null);
    if (failed) {
      throw new FailedMigrationError(
        `Migration ${failed.migration_name} is recorded as failed; resolve it (prisma migrate resolve) before starting.`,
      );
    }
    const done = new Set(rows.filter((row) => row.finished_at).map((row) => row.migration_name));
    const applied: string[] = [];
    const migrations = listMigrations(dir);
    const modified = migrations
      .filter((migration) => rows.some((row) => row.finished_at && row.migration_name === migration.name && row.checksum !== migration.checksum))
      .map((migration) => migration.name);
    for (const migration of migrations) {
      if (done.has(migration.name)) continue;
      await client.query("BEGIN");
      try {
        // Sent as one simple-protocol query: statements run in order, plpgsql bodies stay intact.
        await client.query(migration.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), migration.checksum, migration.name],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`Migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
      }
      applied.push(migration.name);
    }
    return { applied, alreadyApplied: done.size, modified };
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [ADVISORY_LOCK_ID]).catch(() => undefined);
    await client.end();
  }
}
