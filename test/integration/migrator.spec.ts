import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../../src/db/embedded-postgres.ts";
import { FailedMigrationError, listMigrations, migrate } from "../../src/db/migrator.ts";

let embedded: EmbeddedPostgres;
const query = async (sql: string) => {
  const client = new pg.Client({ connectionString: embedded.url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
};

beforeAll(async () => {
  embedded = await startEmbeddedPostgres({ dataDir: null });
});
afterAll(() => embedded?.stop());

describe("migrator", () => {
  it("applies every migration once, recorded as prisma migrate deploy would", async () => {
    const names = listMigrations().map((migration) => migration.name);
    expect(await migrate(embedded.url)).toEqual({ applied: names, alreadyApplied: 0, modified: [] });
    expect(await migrate(embedded.url)).toEqual({ applied: [], alreadyApplied: names.length, modified: [] });
    const rows = await query(`SELECT migration_name, checksum, applied_steps_count FROM "_prisma_migrations" ORDER BY 1`);
    expect(rows).toEqual(listMigrations().map((m) => ({ migration_name: m.name, checksum: m.checksum, applied_steps_count: 1 })));
    expect(listMigrations()[0].checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it("reports an applied migration whose file was edited afterwards", async () => {
    const [first] = listMigrations();
    await query(`UPDATE "_prisma_migrations" SET checksum = repeat('0', 64) WHERE migration_name = '${first.name}'`);
    expect((await migrate(embedded.url)).modified).toEqual([first.name]);
  });

  it("refuses to run while a failed migration is recorded", async () => {
    await query(`INSERT INTO "_prisma_migrations" (id, checksum, migration_name) VALUES ('x', repeat('1', 64), '29990101000000_broken')`);
    await expect(migrate(embedded.url)).rejects.toBeInstanceOf(FailedMigrationError);
  });
});
