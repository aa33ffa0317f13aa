// Prisma CLI configuration (generate, migrate diff). The CLI's JS schema engine talks to the database
// through a driver adapter, so no engine binary is ever downloaded. Without a postgres DATABASE_URL the
// adapter points at a throwaway in-memory PGlite, which is all `migrate diff` needs.
import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg-cli";
import pg from "pg";
import { startEmbeddedPostgres } from "./src/db/embedded-postgres.ts";

const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

/**
 * The CLI adapter cannot read columns of PostgreSQL's internal `"char"` type (pg_catalog's relkind, contype…),
 * which the schema engine's introspection selects; reported as text they read correctly.
 */
function readCharColumnsAsText(pool: pg.Pool): pg.Pool {
  const wrap = (target: { query: (...args: unknown[]) => unknown }) => {
    const original = target.query.bind(target);
    target.query = async (...args: unknown[]) => {
      const result = (await original(...args)) as pg.QueryResult | undefined;
      for (const field of result?.fields ?? []) if (field.dataTypeID === PG_CHAR_OID) field.dataTypeID = PG_TEXT_OID;
      return result;
    };
  };
  wrap(pool as never);
  pool.on("connect", (client) => wrap(client as never));
  return pool;
}

let adapter: Promise<PrismaPg> | undefined;

async function createAdapter(): Promise<PrismaPg> {
  const configured = process.env.DATABASE_URL ?? "";
  let url: string;
  if (/^postgres(ql)?:\/\//.test(configured) && !configured.includes("@localhost/generate")) {
    url = configured;
  } else {
    const embedded = await startEmbeddedPostgres({ dataDir: null, unref: true });
    url = embedded.url;
  }
  // allowExitOnIdle: the CLI process ends as soon as its work is done, not after the pool's idle timeout.
  const pool = new pg.Pool({ connectionString: url, max: 2, allowExitOnIdle: true, idleTimeoutMillis: 200 });
  return new PrismaPg(readCharColumnsAsText(pool));
}

export default defineConfig({
  schema: "prisma/schema.prisma",
  experimental: { adapter: true },
  engine: "js",
  // The CLI calls the factory more than once per command: one database per command is enough.
  adapter: () => (adapter ??= createAdapter()),
});
