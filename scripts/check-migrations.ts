// CI drift check: schema.prisma and prisma/migrations must describe the same database.
//
// Prisma's schema engine cannot diff against migrations when it runs through a driver adapter (it needs a
// shadow database it cannot create here), so the check is done on real databases instead: database A gets
// the committed migrations (with the service's own migrator), database B gets the SQL Prisma generates
// from schema.prisma, and their catalogs (enums, columns, indexes, constraints) must be identical.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import pg from "pg";
import { startEmbeddedPostgres } from "../src/db/embedded-postgres.ts";
import { migrate } from "../src/db/migrator.ts";

/**
 * Indexes written by hand in a migration because schema.prisma cannot express them (Prisma 6 has no operator
 * class on btree indexes, no expression indexes and no partial indexes). They are the only allowed difference: each must exist in
 * the migrated database exactly as written here, and schema.prisma names them in a comment on its model.
 */
const HAND_WRITTEN_INDEXES = [
  `CREATE INDEX orders_merchant_id_mode_created_at_id_idx ON public.orders USING btree (merchant_id, mode, created_at DESC, id DESC) WHERE (send_state <> 'sending'::"SendState")`,
  `CREATE INDEX orders_merchant_id_mode_customer_phone_created_at_idx ON public.orders USING btree (merchant_id, mode, customer_phone, created_at DESC) WHERE (send_state <> 'sending'::"SendState")`,
  `CREATE INDEX orders_merchant_id_mode_status_created_at_id_idx ON public.orders USING btree (merchant_id, mode, status, created_at DESC, id DESC) WHERE (send_state <> 'sending'::"SendState")`,
  'CREATE INDEX orders_search_customer_name_idx ON public.orders USING btree (merchant_id, mode, lower((customer_name)::text) text_pattern_ops)',
  `CREATE INDEX orders_search_customer_phone_idx ON public.orders USING btree (merchant_id, mode, customer_phone text_pattern_ops) WHERE (send_state <> 'sending'::"SendState")`,
  `CREATE INDEX orders_search_external_order_id_idx ON public.orders USING btree (merchant_id, mode, external_order_id text_pattern_ops) WHERE (send_state <> 'sending'::"SendState")`,
  `CREATE INDEX orders_pending_customer_phone_idx ON public.orders USING btree (customer_phone) WHERE ((status = 'pending'::"OrderStatus") AND (send_state <> 'sending'::"SendState"))`,
  `CREATE INDEX orders_sending_created_at_idx ON public.orders USING btree (created_at) WHERE (send_state = 'sending'::"SendState")`,
  'CREATE INDEX order_events_undispatched_idx ON public.order_events USING btree (sequence) WHERE (dispatched_at IS NULL)',
  'CREATE INDEX order_stat_buckets_spread_idx ON public.order_stat_buckets USING btree (start) WHERE (slot <> 0)',
  'CREATE INDEX order_stat_failures_spread_idx ON public.order_stat_failures USING btree (start) WHERE (slot <> 0)',
];

const CATALOG_QUERIES = {
  enums: `SELECT t.typname || ': ' || string_agg(e.enumlabel, ', ' ORDER BY e.enumsortorder) AS line
          FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace
          WHERE n.nspname = 'public' GROUP BY t.typname ORDER BY 1`,
  columns: `SELECT table_name || '.' || column_name || ' ' || CASE WHEN data_type = 'USER-DEFINED' THEN udt_name ELSE data_type END
              || coalesce('(' || character_maximum_length || ')', '')
              || coalesce('(' || numeric_precision || ',' || numeric_scale || ')', '')
              || ' ' || is_nullable || ' default ' || coalesce(column_default, '-') AS line
            FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations' ORDER BY 1`,
  indexes: `SELECT indexdef AS line FROM pg_indexes WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY 1`,
  constraints: `SELECT c.conrelid::regclass || ' ' || c.conname || ' ' || pg_get_constraintdef(c.oid) AS line
                FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
                WHERE n.nspname = 'public' AND c.conrelid::regclass::text NOT IN ('_prisma_migrations', '"_prisma_migrations"') ORDER BY 1`,
};

async function catalog(url: string): Promise<Record<string, string[]>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const out: Record<string, string[]> = {};
    for (const [name, sql] of Object.entries(CATALOG_QUERIES)) {
      out[name] = (await client.query<{ line: string }>(sql)).rows.map((row) => row.line);
    }
    return out;
  } finally {
    await client.end();
  }
}

/** Prisma's SQL for schema.prisma; `url` is any reachable database (the engine connects, changes nothing). */
// Asynchronous on purpose: the embedded database it connects to is served by this very process.
async function schemaSql(url: string): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)(
    "npx",
    ["prisma", "migrate", "diff", "--from-empty", "--to-schema-datamodel", "prisma/schema.prisma", "--script"],
    { env: { ...process.env, DATABASE_URL: url }, encoding: "utf8" },
  );
  if (!stdout.includes("CREATE TABLE")) throw new Error(`prisma migrate diff produced no schema:\n${stderr}`);
  return stdout;
}

const fromMigrations = await startEmbeddedPostgres({ dataDir: null });
const fromSchema = await startEmbeddedPostgres({ dataDir: null });
try {
  const { applied } = await migrate(fromMigrations.url);
  const expectedSql = await schemaSql(fromSchema.url);
  await fromSchema.db.exec(expectedSql);
  const [actual, expected] = [await catalog(fromMigrations.url), await catalog(fromSchema.url)];
  const problems: string[] = [];
  for (const line of HAND_WRITTEN_INDEXES) {
    if (!actual.indexes.includes(line)) problems.push(`  indexes: the hand-written index is missing from the migrations: ${line}`);
  }
  actual.indexes = actual.indexes.filter((line) => !HAND_WRITTEN_INDEXES.includes(line));
  for (const name of Object.keys(CATALOG_QUERIES)) {
    const missing = expected[name].filter((line) => !actual[name].includes(line));
    const extra = actual[name].filter((line) => !expected[name].includes(line));
    for (const line of missing) problems.push(`  ${name}: schema.prisma has, migrations lack: ${line}`);
    for (const line of extra) problems.push(`  ${name}: migrations have, schema.prisma lacks: ${line}`);
  }
  if (problems.length) {
    const shown = problems.slice(0, 40).join("\n");
    const more = problems.length > 40 ? `\n  … and ${problems.length - 40} more` : "";
    console.error(`schema.prisma and prisma/migrations disagree:\n${shown}${more}`);
    console.error("\nWrite a new migration (see docs/architecture.md, Database migrations) and commit it.");
    process.exitCode = 1;
  } else {
    const counts = Object.entries(actual).map(([name, lines]) => `${lines.length} ${name}`).join(", ");
    console.log(`migrations and schema.prisma agree (${applied.length} migrations; ${counts})`);
  }
} finally {
  await fromMigrations.stop();
  await fromSchema.stop();
}
