import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";
import { startEmbeddedPostgres } from "../../src/db/embedded-postgres.ts";
import { migrate, MIGRATIONS_DIR } from "../../src/db/migrator.ts";
import { OrderStatBucketsRepository } from "../../src/domain/stats/order-stat-buckets.repository.ts";
import { OrderStatsRepository } from "../../src/domain/stats/order-stats.repository.ts";
import { OrderStatsVerifier } from "../../src/domain/stats/order-stats-verifier.ts";
import { testDatabaseName, usingPostgres } from "../support/database.ts";

/**
 * The migration that adds the pre-aggregated statistics backfills them from the orders already there: a database
 * migrated up to the one before, with a history of every kind of order, then migrated to the statistics, answers
 * exactly as the orders say.
 */
vi.setConfig({ testTimeout: 180_000 });

const STATS_MIGRATION = "20261125250000_order_stat_buckets";
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function emptyDatabase(): Promise<string> {
  const pgUrl = process.env.TEST_DATABASE_URL;
  if (usingPostgres && pgUrl) {
    const name = `${testDatabaseName()}_backfill`;
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    cleanups.push(async () => {
      const client = new pg.Client({ connectionString: pgUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    });
    const url = new URL(pgUrl);
    url.pathname = `/${name}`;
    return url.toString();
  }
  const embedded = await startEmbeddedPostgres({ dataDir: null });
  cleanups.push(() => embedded.stop());
  return embedded.url;
}

/** A migrations folder with the migrations up to (and with `including`) the statistics one. */
function migrationsUpTo(including: boolean): string {
  const dir = mkdtempSync(path.join(tmpdir(), "ocs-migrations-"));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  for (const entry of readdirSync(MIGRATIONS_DIR)) {
    const isFolder = !entry.includes(".");
    if (isFolder && (entry < STATS_MIGRATION || (including && entry === STATS_MIGRATION))) cpSync(path.join(MIGRATIONS_DIR, entry), path.join(dir, entry), { recursive: true });
    if (!isFolder) cpSync(path.join(MIGRATIONS_DIR, entry), path.join(dir, entry));
  }
  return dir;
}

describe("the statistics migration", () => {
  it("backfills the figures of the orders already stored", async () => {
    const url = await emptyDatabase();
    await migrate(url, migrationsUpTo(false));
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    cleanups.push(() => pool.end());
    const merchantId = "01900000-0000-7000-8000-000000000001";
    await pool.query("INSERT INTO merchants (id, name, created_at, updated_at) VALUES ($1, 'Before', now(), now())", [merchantId]);
    // Every kind of order, over two days and a half-hour zone's day edge.
    const orders: [string, string, string | null, number | null, string | null, string][] = [
      // created_at, status, answered after (s), error code, cancel step's source, send state
      ["2026-03-01T18:20:00Z", "confirmed", "60", null, null, "accepted"],
      ["2026-03-01T18:40:00Z", "canceled", "120", null, "customer", "accepted"],
      ["2026-03-01T19:00:00Z", "canceled", "600", null, "merchant", "accepted"],
      ["2026-03-02T03:00:00Z", "canceled", "30", null, null, "accepted"],
      ["2026-03-02T04:00:00Z", "failed", null, 131026, null, "rejected"],
      ["2026-03-02T05:00:00Z", "failed", null, null, null, "rejected"],
      ["2026-03-02T06:00:00Z", "expired", null, null, null, "accepted"],
      ["2026-03-02T07:00:00Z", "pending", null, null, null, "accepted"],
      ["2026-03-02T08:00:00Z", "pending", null, null, null, "sending"],
    ];
    for (const [index, [createdAt, status, after, code, source, sendState]] of orders.entries()) {
      const { rows: [{ id }] } = await pool.query(
        `INSERT INTO orders (id, merchant_id, mode, external_order_id, customer_name, customer_phone, subtotal, shipping_cost,
           total_cost, currency, language, status, error_code, send_state, created_at, updated_at)
         VALUES (gen_random_uuid(), $1, 'test', $2, 'Layla', '966500000000', 10, 0, 10, 'SAR', 'en', $3::"OrderStatus", $4,
           $5::"SendState", $6, $6::timestamptz + coalesce($7::int, 0) * interval '1 second')
         RETURNING id`,
        [merchantId, `B-${index}`, status, code, sendState, createdAt, after],
      );
      if (source) await pool.query("INSERT INTO order_timeline (order_id, at, kind, source) VALUES ($1, now(), 'canceled', $2)", [id, source]);
    }

    const { applied } = await migrate(url, migrationsUpTo(true));
    expect(applied).toContain(STATS_MIGRATION);
    const check = await new OrderStatsVerifier(pool).verify(merchantId, { repair: false });
    expect(check.mismatches).toEqual([]);
    expect(check.checkedBuckets).toBe(8 + 7 + 2); // quarters, hours and days with visible orders
    const scope = { merchantId, mode: "test" as const };
    for (const timeZone of ["UTC", "Asia/Kolkata"]) {
      const range = { from: new Date("2026-03-01T00:00:00Z"), to: new Date("2026-03-03T00:00:00Z"), timeZone, interval: "day" as const };
      const [fromBuckets, exact] = [await new OrderStatBucketsRepository(pool).figures(scope, range), await new OrderStatsRepository(pool).figures(scope, range)];
      expect(fromBuckets.map(({ p50, p90, ...counts }) => counts)).toEqual(exact.map(({ p50, p90, ...counts }) => counts));
      expect(fromBuckets[0]).toMatchObject({ created: 8, confirmed: 1, canceled: 3, failed: 2, expired: 1, pending: 1, answered: 3 });
    }
  });
});
