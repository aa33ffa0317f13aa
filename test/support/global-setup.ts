import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { isAlive, startEmbeddedPostgres } from "../../src/db/embedded-postgres.ts";
import { migrate } from "../../src/db/migrator.ts";

/**
 * Prepares one migrated database that every test file clones: a PGlite data-dir dump (the default), or a
 * PostgreSQL template database when TEST_DATABASE_URL is set.
 */
export default async function setup(project: TestProject) {
  const pgUrl = process.env.TEST_DATABASE_URL;
  if (pgUrl) {
    const template = `ocs_test_${process.pid}_template`;
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await dropTestDatabases(admin, (pid) => !isAlive(pid));
    await admin.query(`CREATE DATABASE ${template}`);
    await migrate(withDatabase(pgUrl, template));
    project.provide("pgTemplate", template);
    project.provide("runId", String(process.pid));
    return async () => {
      await dropTestDatabases(admin, (pid) => pid === process.pid);
      await admin.end();
    };
  }
  const dir = mkdtempSync(path.join(tmpdir(), "ocs-template-"));
  const embedded = await startEmbeddedPostgres({ dataDir: null });
  await migrate(embedded.url);
  const dump = await embedded.db.dumpDataDir("none");
  await embedded.stop();
  const file = path.join(dir, "template.tar");
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide("pgliteTemplate", file);
  return () => rmSync(dir, { recursive: true, force: true });
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/**
 * Test databases are named `ocs_test_<pid of the run>_…`: a run drops its own at the end, and the leftovers
 * of runs whose process is gone, never those of another run still going on the same server.
 */
async function dropTestDatabases(admin: pg.Client, shouldDrop: (pid: number) => boolean): Promise<void> {
  const { rows } = await admin.query<{ datname: string }>(
    `SELECT datname FROM pg_database WHERE datname ~ '^ocs_test_[0-9]+_' ORDER BY datname LIKE '%_template'`,
  );
  for (const { datname } of rows) {
    const pid = Number(/^ocs_test_(\d+)_/.exec(datname)?.[1]);
    if (shouldDrop(pid)) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  }
}

declare module "vitest" {
  export interface ProvidedContext {
    pgTemplate?: string;
    runId?: string;
    pgliteTemplate?: string;
  }
}
