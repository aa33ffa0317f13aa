import { readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import type { DatabaseTarget } from "../../src/config.ts";
import { withDatabase } from "./global-setup.ts";

export const usingPostgres = Boolean(process.env.TEST_DATABASE_URL);

/** Named after the run, so global-setup drops it with the run or after an interrupted one. */
export function testDatabaseName(): string {
  return `ocs_test_${inject("runId")}_${randomBytes(6).toString("hex")}`;
}

/** A fresh database for one test file: a clone of the migrated template, on PGlite or PostgreSQL. */
export async function createTestDatabase(): Promise<{ target: DatabaseTarget; url: string | null; drop(): Promise<void> }> {
  const pgUrl = process.env.TEST_DATABASE_URL;
  if (pgUrl) {
    const name = testDatabaseName();
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject("pgTemplate")}`);
    await admin.end();
    const url = withDatabase(pgUrl, name);
    return {
      target: { kind: "postgres", url },
      url,
      async drop() {
        const client = new pg.Client({ connectionString: pgUrl });
        await client.connect();
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await client.end();
      },
    };
  }
  const file = inject("pgliteTemplate");
  const template = file ? new Blob([readFileSync(file)]) : undefined;
  return { target: { kind: "embedded", dataDir: null, template }, url: null, drop: async () => undefined };
}
