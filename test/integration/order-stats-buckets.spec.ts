import fc from "fast-check";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp, type RunningApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { RELATIVE_ERROR } from "../../src/domain/stats/answer-histogram.ts";
import { readOrderStatsQuery, type OrderStats, type OrderStatsFigures } from "../../src/domain/stats/order-stats.ts";
import { OrderStatsRepository } from "../../src/domain/stats/order-stats.repository.ts";
import { OrderStatsService } from "../../src/domain/stats/order-stats.service.ts";
import { OrderStatsVerifier } from "../../src/domain/stats/order-stats-verifier.ts";
import { StatBucketCache } from "../../src/domain/stats/stat-bucket-cache.ts";
import { ApiClient } from "../support/api.ts";
import { usingPostgres } from "../support/database.ts";
import { orderInput } from "../support/fixtures.ts";
import { seedOrders, type SeedOrder } from "../support/order-seed.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";

/**
 * The pre-aggregated statistics (migration 20261125250000_order_stat_buckets, docs/statistics.md) against the exact
 * computation from the orders (OrderStatsRepository, the statement orderStats ran before): random histories written
 * through every kind of change (inserts, single and set-based updates, a cancel's step before or after its update,
 * later steps, deliveries, deletions, the service's own create path and transitions), read back over REST for random
 * ranges and zones around DST changes and in half-hour and 45-minute zones. Counts must be equal, percentiles within
 * the histograms' error. `ocs stats verify`'s check must find nothing to repair.
 */
vi.setConfig({ testTimeout: 600_000 });

let server: TestServer;
let exact: OrderStatsService;
let verifier: OrderStatsVerifier;

beforeAll(async () => {
  server = await startTestServer();
  exact = new OrderStatsService(new OrderStatsRepository(server.app.services.database.pool));
  verifier = new OrderStatsVerifier(server.app.services.database.pool);
});
afterAll(() => server?.close());

const DAY = 86_400_000;
// DST changes: New York and St John's (UTC−3:30/−2:30) spring forward on 2026-03-08 and fall back on 2026-11-01;
// Lord Howe (UTC+10:30/+11, a half-hour change) falls back on 2026-04-05.
const WINDOWS = [Date.parse("2026-03-08T06:00:00Z"), Date.parse("2026-11-01T05:00:00Z"), Date.parse("2026-04-04T15:00:00Z")];
const ZONES = ["UTC", "Asia/Kolkata", "Asia/Kathmandu", "America/St_Johns", "America/New_York", "Australia/Lord_Howe", "Asia/Riyadh"];
const STATUSES = ["pending", "confirmed", "canceled", "failed", "expired"] as const;
const CODES = [131026, 132015, null, 470] as const;

const orderArb = fc.record({
  window: fc.nat(WINDOWS.length - 1),
  offset: fc.integer({ min: -3 * DAY, max: 3 * DAY }),
  status: fc.constantFrom(...STATUSES),
  by: fc.constantFrom("customer", "merchant", "legacy"),
  after: fc.oneof(fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 0, max: 3 * DAY })),
  errorCode: fc.constantFrom(...CODES),
  sending: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  live: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
});
const CHANGES = ["confirm", "cancelByCustomer", "cancelByMerchant", "stepFirst", "fail", "expire", "delivery", "delete", "bulkExpire", "laterStep", "accept", "swap"] as const;
const changeArb = fc.record({ kind: fc.constantFrom(...CHANGES), target: fc.nat(), after: fc.integer({ min: 1, max: 2 * DAY }), code: fc.constantFrom(...CODES) });
const queryArb = fc.record({
  zone: fc.constantFrom(...ZONES),
  interval: fc.constantFrom("day", "hour"),
  window: fc.nat(WINDOWS.length - 1),
  from: fc.integer({ min: -4 * DAY, max: 3 * DAY }),
  length: fc.integer({ min: 1, max: 7 * DAY }),
  aligned: fc.boolean(),
});

type OrderSpec = typeof orderArb extends fc.Arbitrary<infer T> ? T : never;
type ChangeSpec = typeof changeArb extends fc.Arbitrary<infer T> ? T : never;

function seedOf(order: OrderSpec): SeedOrder {
  const createdAt = new Date(WINDOWS[order.window] + order.offset).toISOString();
  const answeredAt = new Date(WINDOWS[order.window] + order.offset + order.after).toISOString();
  const seed: SeedOrder = { createdAt, status: order.status, mode: order.live ? "live" : "test", errorCode: order.errorCode };
  if (order.sending) return { ...seed, status: "pending", sendState: "sending" };
  if (order.status === "confirmed" || order.status === "canceled") {
    if (order.by === "legacy") return { ...seed, legacyAnsweredAt: answeredAt };
    return { ...seed, answer: { by: order.status === "confirmed" ? "customer" : order.by, at: answeredAt } };
  }
  return seed;
}

/** One change, written the way some path of the service (or an operator) would write it. */
async function applyChange(merchantId: string, ids: string[], change: ChangeSpec): Promise<void> {
  const pool = server.app.services.database.pool;
  const id = ids[change.target % ids.length];
  const answeredAt = `(SELECT created_at + ${change.after} * interval '1 millisecond' FROM orders WHERE id = $1)`;
  const step = (kind: string, source: string) =>
    pool.query(`INSERT INTO order_timeline (order_id, at, kind, source) SELECT id, now(), $2, $3 FROM orders WHERE id = $1`, [id, kind, source]);
  const end = (status: string, extra = "") =>
    pool.query(`UPDATE orders SET status = '${status}', updated_at = ${answeredAt}${extra} WHERE id = $1 AND status = 'pending' AND send_state <> 'sending'`, [id]);
  switch (change.kind) {
    case "confirm":
      if ((await end("confirmed", ", customer_action = 'approved'")).rowCount) await step("approved", "customer");
      return;
    case "cancelByCustomer":
    case "cancelByMerchant":
      if ((await end("canceled", ", customer_action = 'canceled'")).rowCount) await step("canceled", change.kind === "cancelByCustomer" ? "customer" : "merchant");
      return;
    case "stepFirst": {
      // Another path could write the step before the update, in one transaction.
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const { rows } = await client.query("SELECT status FROM orders WHERE id = $1 AND send_state <> 'sending' FOR UPDATE", [id]);
        if (rows[0]?.status === "pending") {
          await client.query(`INSERT INTO order_timeline (order_id, at, kind, source) VALUES ($1, now(), 'canceled', 'merchant')`, [id]);
          await client.query(`UPDATE orders SET status = 'canceled', customer_action = 'canceled', updated_at = ${answeredAt} WHERE id = $1`, [id]);
        }
        await client.query("COMMIT");
      } finally {
        client.release();
      }
      return;
    }
    case "fail":
      await pool.query(
        `UPDATE orders SET status = 'failed', error_code = $2, failure_reason = 'x', updated_at = ${answeredAt} WHERE id = $1 AND status = 'pending'`,
        [id, change.code],
      );
      return;
    case "expire":
      await end("expired");
      return;
    case "delivery":
      await pool.query(`UPDATE orders SET updated_at = updated_at + interval '1 second', delivery_status = 'delivered' WHERE id = $1`, [id]);
      return;
    case "delete":
      await pool.query("DELETE FROM orders WHERE id = $1", [id]);
      return;
    case "bulkExpire":
      await pool.query(
        `UPDATE orders SET status = 'expired', updated_at = created_at + interval '1 day'
         WHERE merchant_id = $1 AND status = 'pending' AND send_state <> 'sending' AND created_at < (SELECT created_at FROM orders WHERE id = $2)`,
        [merchantId, id],
      );
      return;
    case "laterStep":
      await step("canceled", change.after % 2 ? "customer" : "merchant");
      return;
    case "accept":
      await pool.query("UPDATE orders SET send_state = 'accepted' WHERE id = $1", [id]);
      return;
    case "swap":
      // An operator's one statement that swaps two orders' creation times (each keeps its time to answer): on one UTC
      // day, the day's figures net to zero while its hours and quarters move.
      await pool.query(
        `UPDATE orders o SET created_at = other.created_at, updated_at = o.updated_at + (other.created_at - o.created_at)
         FROM (VALUES ($1::uuid, $2::uuid), ($2::uuid, $1::uuid)) AS pair(id, other_id) JOIN orders other ON other.id = pair.other_id
         WHERE o.id = pair.id`,
        [id, ids[(change.target + 1) % ids.length]],
      );
      return;
  }
}

const COUNTS = ["created", "confirmed", "canceled", "failed", "expired", "pending", "answered", "confirmationRate", "answerRate", "failuresByErrorCode"] as const;

function sameFigures(actual: OrderStatsFigures, expected: OrderStatsFigures, where: string): void {
  for (const field of COUNTS) expect(actual[field], `${where}: ${field}`).toEqual(expected[field]);
  for (const field of ["timeToAnswerP50Seconds", "timeToAnswerP90Seconds"] as const) {
    const [got, want] = [actual[field], expected[field]];
    if (want === null) expect(got, `${where}: ${field}`).toBeNull();
    else expect(Math.abs((got as number) - want), `${where}: ${field} ${got} vs exact ${want}`).toBeLessThanOrEqual(want * RELATIVE_ERROR + 0.0005 + 1e-9);
  }
}

/** The service's answer over REST against the exact computation, every figure of the totals and of every bucket. */
async function expectExact(shop: TestMerchant, mode: "test" | "live", params: { from: string; to: string; timeZone: string; interval: string }) {
  const response = await (mode === "test" ? shop.test : shop.live).get(`/api/v1/stats/orders?${new URLSearchParams(params)}`);
  expect(response.status, response.text).toBe(200);
  const actual = response.body as OrderStats;
  const expected = await exact.stats({ merchantId: shop.id, mode }, readOrderStatsQuery(params), "en");
  const where = JSON.stringify(params);
  expect(actual.buckets.map((bucket) => bucket.start), where).toEqual(expected.buckets.map((bucket) => bucket.start));
  sameFigures(actual.totals, expected.totals, `${where} totals`);
  actual.buckets.forEach((bucket, index) => sameFigures(bucket, expected.buckets[index], `${where} ${bucket.start}`));
}

describe("orderStats from the pre-aggregated buckets", () => {
  it("equals the exact computation for random histories, ranges and zones (DST changes, +5:30, +5:45, −3:30)", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(orderArb, { minLength: 1, maxLength: 30 }),
        fc.array(changeArb, { maxLength: 25 }),
        fc.array(queryArb, { minLength: 3, maxLength: 5 }),
        fc.array(changeArb, { minLength: 1, maxLength: 10 }),
        async (orders, changes, queries, later) => {
          const shop = await server.merchant(`Random ${run++}`);
          const ids = await seedOrders(server, shop.id, orders.map(seedOf));
          // The service's own paths too: its create path (the acceptance keeps its figures itself), a tap, a cancel.
          const created = [];
          for (let i = 0; i < 2; i++) {
            const response = await shop.test.post("/api/v1/orders", orderInput());
            expect(response.status, response.text).toBe(201);
            created.push(response.body.id as string);
          }
          expect((await shop.test.post(`/api/v1/test/orders/${created[0]}/customer-action`, { action: "approve" })).status).toBe(200);
          expect((await shop.test.delete(`/api/v1/orders/${created[1]}`)).status).toBe(200);
          for (const change of changes) await applyChange(shop.id, ids, change);
          // An order and its merchant's cancel written by one statement (as an import or bench/stats-seed.ts would).
          await server.app.services.database.pool.query(
            `WITH o AS (
               INSERT INTO orders (id, merchant_id, mode, external_order_id, customer_name, customer_phone, subtotal, shipping_cost,
                 total_cost, currency, language, status, customer_action, send_state, created_at, updated_at)
               VALUES (gen_random_uuid(), $1, 'test', 'ONE-STATEMENT', 'Layla', '966500000000', 10, 0, 10, 'SAR', 'en',
                 'canceled', 'canceled', 'accepted', $2, $2::timestamptz + interval '1 minute')
               RETURNING id, created_at
             )
             INSERT INTO order_timeline (order_id, at, kind, source) SELECT id, created_at, 'canceled', 'merchant' FROM o`,
            [shop.id, new Date(WINDOWS[0] + 3_600_000).toISOString()],
          );

          const ranges = queries.map((query) => {
            let from = WINDOWS[query.window] + query.from;
            if (query.aligned) from = Math.floor(from / 900_000) * 900_000;
            const length = query.interval === "hour" ? Math.min(query.length, 3 * DAY) : query.length;
            return { from: new Date(from).toISOString(), to: new Date(from + length).toISOString(), timeZone: query.zone, interval: query.interval };
          });
          const readAll = async () => {
            for (const params of ranges) {
              await expectExact(shop, "test", params);
              if (orders.some((order) => order.live)) await expectExact(shop, "live", params);
            }
          };
          await readAll();
          // The same ranges again after more changes: what the first reads left in the cache must not be answered.
          for (const change of later) await applyChange(shop.id, ids, change);
          await readAll();
          // The service's own orders are now: today, in any zone.
          const today = { from: new Date(Date.now() - DAY).toISOString(), to: new Date(Date.now() + DAY).toISOString(), timeZone: "Asia/Kathmandu", interval: "hour" };
          await expectExact(shop, "test", today);
          const check = await verifier.verify(shop.id, { repair: false });
          expect(check.mismatches).toEqual([]);
          expect(check.checkedBuckets).toBeGreaterThan(0);
        },
      ),
      { numRuns: Number(process.env.STATS_PROPERTY_RUNS ?? 12), endOnFailure: true },
    );
  });

  it("repairs stored figures that drifted, and only those", async () => {
    const shop = await server.merchant("Drifted");
    await seedOrders(server, shop.id, [
      { createdAt: "2026-03-08T06:10:00.000Z", status: "confirmed", answer: { by: "customer", at: "2026-03-08T06:11:00.000Z" } },
      { createdAt: "2026-03-08T06:20:00.000Z", status: "failed", errorCode: 131026 },
      { createdAt: "2026-03-09T10:00:00.000Z", status: "canceled", answer: { by: "merchant", at: "2026-03-09T10:01:00.000Z" } },
    ]);
    expect((await verifier.verify(shop.id, { repair: false })).mismatches).toEqual([]);
    const pool = server.app.services.database.pool;
    // Drift: a day row counts one confirmation too many, an hour row lost its failure, a stray row for no order.
    await pool.query(`UPDATE order_stat_buckets SET confirmed = confirmed + 1 WHERE merchant_id = $1 AND span = 1440 AND start = '2026-03-08T00:00:00Z'`, [shop.id]);
    await pool.query(`UPDATE order_stat_failures SET count = count - 1 WHERE merchant_id = $1 AND span = 60`, [shop.id]);
    await pool.query(
      `INSERT INTO order_stat_buckets (merchant_id, mode, span, start, slot, created) VALUES ($1, 'test', 15, '2026-01-01T00:00:00Z', 7, 3)`,
      [shop.id],
    );
    const params = { from: "2026-03-08T00:00:00Z", to: "2026-03-10T00:00:00Z", timeZone: "UTC", interval: "day" };
    expect((await shop.test.get(`/api/v1/stats/orders?${new URLSearchParams(params)}`)).body.totals.confirmed).toBe(2);

    const found = await verifier.verify(shop.id, { repair: false });
    expect(found.mismatches).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "bucket", mode: "test", span: 1440, start: "2026-03-08T00:00:00.000Z", difference: expect.objectContaining({ confirmed: -1, created: 0 }) }),
        expect.objectContaining({ kind: "failures", span: 60, start: "2026-03-08T06:00:00.000Z", difference: { errorCode: 131026, count: 1 } }),
        expect.objectContaining({ kind: "bucket", span: 15, start: "2026-01-01T00:00:00.000Z", difference: expect.objectContaining({ created: -3 }) }),
      ]),
    );
    expect(found.mismatches).toHaveLength(3);
    const repaired = await verifier.verify(shop.id, { repair: true });
    expect(repaired.repaired).toBe(true);
    expect(repaired.mismatches).toHaveLength(3);
    expect((await verifier.verify(shop.id, { repair: false })).mismatches).toEqual([]);
    await expectExact(shop, "test", params);
  });

  it("keeps other merchants exact when a merchant is deleted", async () => {
    const gone = await server.merchant("Gone");
    const stays = await server.merchant("Stays");
    const history: SeedOrder[] = [
      { createdAt: "2026-03-08T06:10:00.000Z", status: "canceled", answer: { by: "merchant", at: "2026-03-08T06:11:00.000Z" } },
      { createdAt: "2026-03-08T07:10:00.000Z", status: "failed", errorCode: null },
    ];
    await seedOrders(server, gone.id, history);
    await seedOrders(server, stays.id, history);
    await server.app.services.database.prisma.merchant.delete({ where: { id: gone.id } });
    const pool = server.app.services.database.pool;
    expect((await pool.query("SELECT count(*)::int AS n FROM order_stat_buckets WHERE merchant_id = $1", [gone.id])).rows[0].n).toBe(0);
    expect((await verifier.verify(stays.id, { repair: false })).mismatches).toEqual([]);
  });

  it("folds the slots of closed buckets into one row each, figures unchanged, while orders keep changing", async () => {
    const shop = await server.merchant("Spread Slots");
    const pool = server.app.services.database.pool;
    const history: SeedOrder[] = [];
    for (let i = 0; i < 12; i++) {
      history.push({ createdAt: `2026-03-08T06:${String(i * 4).padStart(2, "0")}:00.000Z`, status: "confirmed", answer: { by: "customer", at: `2026-03-08T07:${String(i * 4).padStart(2, "0")}:00.000Z` } });
      history.push({ createdAt: `2026-03-08T06:${String(i * 4 + 1).padStart(2, "0")}:00.000Z`, status: "failed", errorCode: i % 2 ? 131026 : null });
    }
    await seedOrders(server, shop.id, history.slice(0, 12));
    // As if written from other database sessions: the rows so far move to other slots, the rest land in the writer's.
    await pool.query(`UPDATE order_stat_buckets SET slot = 200 + span % 7 WHERE merchant_id = $1`, [shop.id]);
    await pool.query(`UPDATE order_stat_failures SET slot = 201 WHERE merchant_id = $1`, [shop.id]);
    await seedOrders(server, shop.id, history.slice(12));
    const rows = async (table: string, where = "") =>
      (await pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE merchant_id = $1 ${where}`, [shop.id])).rows[0].n as number;
    const params = { from: "2026-03-08T00:00:00Z", to: "2026-03-09T00:00:00Z", timeZone: "Asia/Kolkata", interval: "hour" };
    const before = (await shop.test.get(`/api/v1/stats/orders?${new URLSearchParams(params)}`)).body;
    expect(await rows("order_stat_buckets", "AND slot <> 0")).toBeGreaterThan(0);

    // Live orders of the same merchant change while the fold runs (their buckets are open: left spread, still exact).
    const writes = Promise.all(Array.from({ length: 6 }, () => shop.live.post("/api/v1/orders", orderInput())));
    const folded = await server.app.services.orderStatSlots.fold(new Date("2026-03-10T00:00:00Z"));
    await writes;
    expect(folded).toBeGreaterThan(0);
    // One row per closed bucket and error code, all in slot 0.
    expect(await rows("order_stat_buckets", "AND start < '2026-03-10' AND slot <> 0")).toBe(0);
    expect(await rows("order_stat_failures", "AND start < '2026-03-10' AND slot <> 0")).toBe(0);
    const perBucket = await pool.query(
      `SELECT count(*)::int AS n FROM order_stat_buckets WHERE merchant_id = $1 AND start < '2026-03-10'
       GROUP BY mode, span, start HAVING count(*) > 1`,
      [shop.id],
    );
    expect(perBucket.rows).toEqual([]);
    expect((await shop.test.get(`/api/v1/stats/orders?${new URLSearchParams(params)}`)).body).toEqual(before);
    expect((await verifier.verify(shop.id, { repair: false })).mismatches).toEqual([]);
    await expectExact(shop, "test", params);
    // Nothing left to fold: a second round folds nothing.
    expect(await server.app.services.orderStatSlots.fold(new Date("2026-03-10T00:00:00Z"))).toBe(0);
  });
});

describe("the cache of whole buckets", () => {
  const params = { from: "2026-03-07T18:30:00Z", to: "2026-03-10T18:30:00Z", timeZone: "Asia/Kolkata", interval: "day" };
  const read = async (shop: TestMerchant) => {
    const response = await shop.test.get(`/api/v1/stats/orders?${new URLSearchParams(params)}`);
    expect(response.status, response.text).toBe(200);
    return response.body as OrderStats;
  };
  const history: SeedOrder[] = [
    { createdAt: "2026-03-08T06:10:00.000Z", status: "confirmed", answer: { by: "customer", at: "2026-03-08T06:11:00.000Z" } },
    { createdAt: "2026-03-08T20:20:00.000Z", status: "failed", errorCode: 131026 },
    { createdAt: "2026-03-09T10:00:00.000Z", status: "pending" },
    { createdAt: "2026-03-10T10:00:00.000Z", status: "pending" },
  ];

  it("answers unchanged buckets from memory, and reads again every bucket whose day changed", async () => {
    const shop = await server.merchant("Cached");
    const ids = await seedOrders(server, shop.id, history);
    const pool = server.app.services.database.pool;
    const cache = server.app.services.statBucketCache;
    await expectExact(shop, "test", params);
    const first = await read(shop);
    // Hour and quarter rows changed behind the service's back (no daily row written): the cached buckets are still
    // answered…
    await pool.query(
      `UPDATE order_stat_buckets SET created = created + 5
       WHERE merchant_id = $1 AND span IN (15, 60) AND start >= '2026-03-08' AND start < '2026-03-09'`,
      [shop.id],
    );
    expect(await read(shop)).toEqual(first);
    // … and read again without the cache (the drift shows in the local days that meet at 18:30 UTC: the cache was what
    // answered).
    cache.clear();
    expect(await read(shop)).not.toEqual(first);
    // The repair writes the daily row of every day it repairs: the drifted answer that is cached now is not used.
    expect((await verifier.verify(shop.id, { repair: true })).mismatches).toHaveLength(4);
    expect(await read(shop)).toEqual(first);

    // Every kind of change reaches the answer: an answer to an old order, a failure's code alone (no count moves),
    // an order created on a past day.
    await pool.query(
      `UPDATE orders SET status = 'canceled', customer_action = 'canceled', updated_at = created_at + interval '2 hours' WHERE id = $1`,
      [ids[2]],
    );
    await expectExact(shop, "test", params);
    await pool.query(`UPDATE orders SET error_code = 470 WHERE id = $1`, [ids[1]]);
    const recoded = await read(shop);
    expect(recoded.totals.failuresByErrorCode.map(({ errorCode, count }) => [errorCode, count])).toEqual([[470, 1]]);
    await expectExact(shop, "test", params);
    await seedOrders(server, shop.id, [{ createdAt: "2026-03-09T23:00:00.000Z", status: "expired" }]);
    const grown = await read(shop);
    expect(grown.totals.created).toBe(first.totals.created + 1);
    expect(grown.totals.expired).toBe(1);
    await expectExact(shop, "test", params);
  });

  it("sees a statement whose changes cancel out over a UTC day (two orders of one day swapped: a new version of the day's row)", async () => {
    const shop = await server.merchant("Swapped");
    // Both on 2026-03-08 UTC, on either side of 18:30Z, so in different local days of Asia/Kolkata.
    const [early, late] = await seedOrders(server, shop.id, history.slice(0, 2));
    await expectExact(shop, "test", params);
    const before = await read(shop);
    const pool = server.app.services.database.pool;
    // One statement: each takes the other's creation time, keeping its own time to answer.
    await pool.query(
      `UPDATE orders o SET created_at = other.created_at, updated_at = o.updated_at + (other.created_at - o.created_at)
       FROM (VALUES ($1::uuid, $2::uuid), ($2::uuid, $1::uuid)) AS pair(id, other_id) JOIN orders other ON other.id = pair.other_id
       WHERE o.id = pair.id`,
      [early, late],
    );
    const after = await read(shop);
    expect(after.totals.created).toBe(before.totals.created);
    expect(after.buckets.map((bucket) => bucket.confirmed)).not.toEqual(before.buckets.map((bucket) => bucket.confirmed));
    await expectExact(shop, "test", params);
    await expectExact(shop, "test", { ...params, interval: "hour", to: "2026-03-09T18:30:00Z" });
    expect((await verifier.verify(shop.id, { repair: false })).mismatches).toEqual([]);
  });

  it("keeps no bucket that ends off a quarter (read from the orders each time), and stays within its bound", async () => {
    const shop = await server.merchant("Uncached Ends");
    await seedOrders(server, shop.id, history);
    const cache = server.app.services.statBucketCache;
    cache.clear();
    const ragged = { ...params, from: "2026-03-08T06:07:00Z", to: "2026-03-10T10:05:00Z" };
    expect((await shop.test.get(`/api/v1/stats/orders?${new URLSearchParams(ragged)}`)).status).toBe(200);
    // Three local days: the first and the last end off a quarter, the middle one is whole.
    expect(cache.size).toBe(1);
    await expectExact(shop, "test", ragged);
    const small = new StatBucketCache(2);
    for (const key of ["a", "b", "c"]) small.set(key, { ...emptyBucket, fingerprint: key });
    expect([small.get("a", "a"), small.get("b", "b"), small.get("c", "c")].map(Boolean)).toEqual([false, true, true]);
    expect(small.get("b", "other")).toBeUndefined();
    expect(small.size).toBe(1);
  });
});

const emptyBucket = {
  created: 0, confirmed: 0, canceled: 0, failed: 0, expired: 0, answered: 0, failures: new Map(), p50: null, p90: null, low: 0,
  bins: new Uint32Array(0),
};

describe("concurrent changes", () => {
  let second: RunningApp | null = null;
  let secondApi: ApiClient | null = null;

  beforeAll(async () => {
    // Two instances on one PostgreSQL; PGlite is one process's database, so there the one instance's pool races itself.
    if (!usingPostgres) return;
    const config = loadConfig({ HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "silent" });
    config.database = { kind: "postgres", url: server.app.services.database.url };
    second = await createApp(config, { logger: pino({ level: "silent" }) });
    secondApi = new ApiClient(await second.http.listen({ port: 0, host: "127.0.0.1" }));
  });
  afterAll(async () => {
    await second?.close();
  });

  it("stay exact when creates, taps, cancels and failures race on two instances", async () => {
    const shop = await server.merchant("Busy");
    const clients = [shop.test, (secondApi ?? server.api).withKey(shop.keys.test)];
    const ORDERS = 48;
    const ids = await Promise.all(
      Array.from({ length: ORDERS }, async (_, i) => {
        const response = await clients[i % 2].post("/api/v1/orders", orderInput());
        expect(response.status, response.text).toBe(201);
        return response.body.id as string;
      }),
    );
    // Every order gets two competing changes from the two instances at once; exactly one wins each time.
    await Promise.all(
      ids.flatMap((id, i) => [
        clients[i % 2].post(`/api/v1/test/orders/${id}/customer-action`, { action: i % 3 ? "approve" : "cancel" }),
        i % 4 === 0
          ? clients[(i + 1) % 2].delete(`/api/v1/orders/${id}`)
          : clients[(i + 1) % 2].post(`/api/v1/test/orders/${id}/delivery`, { status: i % 5 === 0 ? "failed" : "delivered" }),
      ]),
    );
    const now = Date.now();
    for (const timeZone of ["UTC", "Asia/Kolkata", "Asia/Kathmandu", "America/St_Johns"]) {
      await expectExact(shop, "test", { from: new Date(now - DAY).toISOString(), to: new Date(now + DAY).toISOString(), timeZone, interval: "hour" });
      await expectExact(shop, "test", { from: new Date(now - 3 * DAY).toISOString(), to: new Date(now + 3 * DAY).toISOString(), timeZone, interval: "day" });
    }
    const check = await verifier.verify(shop.id, { repair: false });
    expect(check.mismatches).toEqual([]);
    const stats = (await shop.test.get(`/api/v1/stats/orders?${new URLSearchParams({ from: new Date(now - DAY).toISOString(), to: new Date(now + DAY).toISOString() })}`)).body;
    expect(stats.totals.created).toBe(ORDERS);
    // Each figure as the orders say (a change refused under load, e.g. 429, leaves its order pending: still counted right).
    const orders = (await shop.test.get("/api/v1/orders?limit=100")).body.data as { status: string }[];
    for (const status of ["pending", "confirmed", "canceled", "failed"]) {
      expect(stats.totals[status], status).toBe(orders.filter((order) => order.status === status).length);
    }
  });
});
