import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { GraphQLClient } from "../support/graphql.ts";
import { orderInput } from "../support/fixtures.ts";
import { TOTAL_COUNT_CAP } from "../../src/domain/orders/order-count.ts";
import { OrderRepository } from "../../src/domain/orders/order.repository.ts";

/**
 * GraphQL's totalCount at any size: the counts the database maintains per (merchant, mode, status) stay equal to
 * count(*) under concurrent creates and transitions, rollbacks and deletions; other filters count exactly up to the
 * cap and report a lower bound beyond it.
 */
let server: TestServer;
let shop: TestMerchant;

beforeAll(async () => {
  server = await startTestServer();
  shop = await server.merchant("Count Shop");
});
afterAll(() => server?.close());

const pool = () => server.app.services.database.pool;
const COUNT = `query Count($filter: OrderFilter) { orders(first: 1, filter: $filter) { totalCount totalCountPrecision } }`;

async function totalCount(key: string, filter: Record<string, unknown> | null = null) {
  const response = await new GraphQLClient(server.baseUrl, key).query(COUNT, { filter });
  expect(response.body.errors).toBeUndefined();
  return response.body.data!.orders as { totalCount: number; totalCountPrecision: "EXACT" | "AT_LEAST" };
}

/** Every (merchant, mode, status) whose maintained count differs from count(*) of its visible orders. */
async function mismatches() {
  const { rows } = await pool().query(`
    SELECT coalesce(a.merchant_id, c.merchant_id) AS merchant_id, coalesce(a.mode, c.mode) AS mode,
      coalesce(a.status, c.status) AS status, a.count AS actual, c.count AS maintained
    FROM (SELECT merchant_id, mode, status, count(*)::int AS count FROM orders WHERE send_state <> 'sending'
          GROUP BY merchant_id, mode, status) a
    FULL JOIN (SELECT merchant_id, mode, status, sum(count)::int AS count FROM order_counts
               GROUP BY merchant_id, mode, status) c
      ON a.merchant_id = c.merchant_id AND a.mode = c.mode AND a.status = c.status
    WHERE coalesce(a.count, 0) <> coalesce(c.count, 0)`);
  return rows;
}

async function statusCounts(merchantId: string, mode: "test" | "live") {
  const { rows } = await pool().query<{ status: string; count: number }>(
    `SELECT status::text, count(*)::int AS count FROM orders WHERE merchant_id = $1 AND mode = $2 AND send_state <> 'sending' GROUP BY status`,
    [merchantId, mode],
  );
  return Object.fromEntries(rows.map((row) => [row.status, row.count]));
}

describe("maintained counts", () => {
  it("equal count(*) after concurrent creates, cancels, taps racing cancels, and failed sends", async () => {
    const created = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const response = await shop.test.post("/api/v1/orders", orderInput({ externalOrderId: `COUNT-${i}` }));
        expect(response.status, response.text).toBe(201);
        return response.body.id as string;
      }),
    );
    // The simulator rejects this phone at the send: stored failed (another statement), created concurrently too.
    const rejected = await Promise.all(
      Array.from({ length: 4 }, (_, i) => shop.test.post("/api/v1/orders", orderInput({ externalOrderId: `REJ-${i}`, customerPhone: "999131030" }))),
    );
    expect(rejected.map((response) => response.status)).toEqual([400, 400, 400, 400]);
    expect(await totalCount(shop.keys.test)).toEqual({ totalCount: 34, totalCountPrecision: "EXACT" });

    // Eight cancels, eight confirms, six delivery failures, and eight orders where a cancel races a customer tap and
    // a delivery failure: every change at once, through the different write paths.
    const transitions = created.flatMap((id, i) => {
      const cancel = () => shop.test.delete(`/api/v1/orders/${id}`);
      const confirm = () => shop.test.post(`/api/v1/test/orders/${id}/customer-action`, { action: "approve" });
      const fail = async () => {
        await shop.test.post(`/api/v1/test/orders/${id}/delivery`, { status: "sent" });
        return shop.test.post(`/api/v1/test/orders/${id}/delivery`, { status: "failed", errorCode: 131026 });
      };
      if (i < 8) return [cancel()];
      if (i < 16) return [confirm()];
      if (i < 22) return [fail()];
      return [cancel(), confirm(), fail()];
    });
    const answers = await Promise.all(transitions);
    // Each answer is the change or, for the racing ones that lost, 409 ORDER_NOT_PENDING.
    expect(answers.filter((response) => response.status !== 200 && response.status !== 409)).toEqual([]);

    expect(await mismatches()).toEqual([]);
    const actual = await statusCounts(shop.id, "test");
    expect(actual.pending).toBeUndefined();
    expect(actual.canceled + actual.confirmed + actual.failed).toBe(34);
    expect(actual.canceled).toBeGreaterThanOrEqual(8);
    expect(actual.confirmed).toBeGreaterThanOrEqual(8);
    expect(actual.failed).toBeGreaterThanOrEqual(10);
    const exact = (totalCount: number) => ({ totalCount, totalCountPrecision: "EXACT" });
    expect(await totalCount(shop.keys.test, { status: ["CANCELED"] })).toEqual(exact(actual.canceled));
    expect(await totalCount(shop.keys.test, { status: ["FAILED"] })).toEqual(exact(actual.failed));
    expect(await totalCount(shop.keys.test, { status: ["CONFIRMED", "CANCELED"] })).toEqual(exact(actual.confirmed + actual.canceled));
    expect(await totalCount(shop.keys.test, { status: ["PENDING"] })).toEqual(exact(0));
    expect(await totalCount(shop.keys.live)).toEqual(exact(0));
  });

  it("counts nothing of a rolled-back change nor of an order still being sent, and follows deletions", async () => {
    const other = await server.merchant("Rollback Shop");
    const client = await pool().connect();
    try {
      await client.query("BEGIN");
      await client.query(
        `INSERT INTO orders (id, merchant_id, mode, external_order_id, customer_name, customer_phone, subtotal, shipping_cost,
           total_cost, currency, status, send_state, created_at, updated_at)
         SELECT gen_random_uuid(), $1, 'test', 'RB-' || n, 'Layla', '966500000000', 10, 0, 10, 'SAR', 'pending', 'accepted', now(), now()
         FROM generate_series(1, 5) n`,
        [other.id],
      );
      await client.query("ROLLBACK");
    } finally {
      client.release();
    }
    expect(await totalCount(other.keys.test)).toEqual({ totalCount: 0, totalCountPrecision: "EXACT" });

    await pool().query(
      `INSERT INTO orders (id, merchant_id, mode, external_order_id, customer_name, customer_phone, subtotal, shipping_cost,
         total_cost, currency, status, send_state, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'test', 'SEND-' || n, 'Layla', '966500000000', 10, 0, 10, 'SAR', 'pending',
         CASE WHEN n <= 3 THEN 'sending' ELSE 'accepted' END::"SendState", now(), now()
       FROM generate_series(1, 8) n`,
      [other.id],
    );
    expect(await totalCount(other.keys.test)).toEqual({ totalCount: 5, totalCountPrecision: "EXACT" });
    await pool().query("DELETE FROM orders WHERE merchant_id = $1 AND external_order_id IN ('SEND-4', 'SEND-1')", [other.id]);
    expect(await totalCount(other.keys.test)).toEqual({ totalCount: 4, totalCountPrecision: "EXACT" });
    expect(await mismatches()).toEqual([]);

    // A merchant's deletion takes its orders and its counts (no error, nothing left behind).
    await pool().query("DELETE FROM merchants WHERE id = $1", [other.id]);
    const { rows } = await pool().query("SELECT count(*)::int AS count FROM order_counts WHERE merchant_id = $1", [other.id]);
    expect(rows[0].count).toBe(0);
  });
});

describe("the create path's own counts", () => {
  it("make the counts trigger skip exactly one statement of the transaction, never a later one nor another transaction", async () => {
    const other = await server.merchant("Skip Shop");
    const insert = (prefix: string, n: number) =>
      `INSERT INTO orders (id, merchant_id, mode, external_order_id, customer_name, customer_phone, subtotal, shipping_cost,
         total_cost, currency, status, send_state, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'test', '${prefix}-' || n, 'Layla', '966500000000', 10, 0, 10, 'SAR', 'pending', 'accepted',
         now(), now()
       FROM generate_series(1, ${n}) n`;
    const client = await pool().connect();
    try {
      await client.query("BEGIN");
      // What the create path's statements do: announce that they keep the counts of their own change.
      await client.query("SELECT set_config('ocs.order_counts', 'kept', true)");
      await client.query(insert("SKIPPED", 2), [other.id]);
      // The next statement of the same transaction is counted again, by the trigger.
      await client.query(insert("COUNTED", 3), [other.id]);
      await client.query("COMMIT");
    } finally {
      client.release();
    }
    const { rows } = await pool().query(
      "SELECT coalesce(sum(count), 0)::int AS count FROM order_counts WHERE merchant_id = $1 AND mode = 'test' AND status = 'pending'",
      [other.id],
    );
    expect(rows[0].count).toBe(3);
    // The flag was the transaction's: the next one is counted in full.
    await pool().query(insert("LATER", 4), [other.id]);
    expect(await totalCount(other.keys.test)).toEqual({ totalCount: 7, totalCountPrecision: "EXACT" });
    // Leave the database consistent for the other tests' mismatches() (the 2 skipped orders were never counted).
    await pool().query("DELETE FROM merchants WHERE id = $1", [other.id]);
    expect(await mismatches()).toEqual([]);
  });

  it("count each accepted order once, and none of a send the abandoned-send sweep failed first", async () => {
    const other = await server.merchant("Create Count Shop");
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) => other.test.post("/api/v1/orders", orderInput({ externalOrderId: `CC-${i}` }))),
    );
    expect(created.map((response) => response.status)).toEqual(Array(12).fill(201));
    expect(await statusCounts(other.id, "test")).toEqual({ pending: 12 });
    expect(await totalCount(other.keys.test)).toEqual({ totalCount: 12, totalCountPrecision: "EXACT" });
    expect(await mismatches()).toEqual([]);

    // A send that outlived the abandoned-send deadline: the sweep fails it (counted by the trigger), and the late
    // acceptance changes nothing, counts included.
    const repository = new OrderRepository(server.app.services.database.prisma, pool(), server.app.services.database.prepareStatements);
    const input = orderInput({ externalOrderId: "CC-LATE" });
    const parsed = { ...input, items: input.items.map((item) => ({ ...item })) };
    const claimed = await repository.insertSending({ merchantId: other.id, mode: "test" }, parsed as never, "en", new Date(Date.now() - 10 * 60_000));
    if (!("inserted" in claimed)) throw new Error("not inserted");
    expect(await server.app.services.orderService.failAbandonedSends(5 * 60_000)).toBe(1);
    expect(await repository.markAccepted(claimed.inserted, "wamid.late", new Date(), [], "rest")).toBeNull();
    expect(await statusCounts(other.id, "test")).toEqual({ pending: 12, failed: 1 });
    expect(await totalCount(other.keys.test)).toEqual({ totalCount: 13, totalCountPrecision: "EXACT" });
    expect(await mismatches()).toEqual([]);
  });
});

describe("other filters", () => {
  it(`count exactly up to ${TOTAL_COUNT_CAP}, then report AT_LEAST ${TOTAL_COUNT_CAP}`, async () => {
    const big = await server.merchant("Many Orders");
    // CAP + 5 orders over the last CAP + 5 minutes, phones 9665 + n, every tenth confirmed.
    await pool().query(
      `INSERT INTO orders (id, merchant_id, mode, external_order_id, customer_name, customer_phone, subtotal, shipping_cost,
         total_cost, currency, status, send_state, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'test', 'MANY-' || n, 'Omar ' || n, '9665' || lpad(n::text, 8, '0'), 10, 0, 10, 'SAR',
         CASE WHEN n % 10 = 0 THEN 'confirmed' ELSE 'pending' END::"OrderStatus", 'accepted',
         now() - n * interval '1 minute', now() - n * interval '1 minute'
       FROM generate_series(1, $2::int) n`,
      [big.id, TOTAL_COUNT_CAP + 5],
    );
    const key = big.keys.test;
    const exact = (totalCount: number) => ({ totalCount, totalCountPrecision: "EXACT" });
    const atLeast = { totalCount: TOTAL_COUNT_CAP, totalCountPrecision: "AT_LEAST" };
    expect(await totalCount(key)).toEqual(exact(TOTAL_COUNT_CAP + 5));
    expect(await totalCount(key, { status: ["CONFIRMED"] })).toEqual(exact(Math.floor((TOTAL_COUNT_CAP + 5) / 10)));

    const hourAgo = new Date(Date.now() - 3_600_000 - 30_000).toISOString();
    expect(await totalCount(key, { createdFrom: hourAgo })).toEqual(exact(60));
    expect(await totalCount(key, { createdFrom: hourAgo, status: ["CONFIRMED"] })).toEqual(exact(6));
    expect(await totalCount(key, { createdTo: new Date().toISOString() })).toEqual(atLeast);
    // Exactly the cap is still exact; one more is not.
    const capAgo = new Date(Date.now() - TOTAL_COUNT_CAP * 60_000 - 30_000).toISOString();
    expect(await totalCount(key, { createdFrom: capAgo })).toEqual(exact(TOTAL_COUNT_CAP));
    const capPlusOneAgo = new Date(Date.now() - (TOTAL_COUNT_CAP + 1) * 60_000 - 30_000).toISOString();
    expect(await totalCount(key, { createdFrom: capPlusOneAgo })).toEqual(atLeast);

    expect(await totalCount(key, { search: "+9665" })).toEqual(atLeast);
    expect(await totalCount(key, { search: "omar 1" })).toEqual(exact(117)); // 1, 10–19, 100–199, 1000–1005
    expect(await totalCount(key, { customerPhone: "966500000042" })).toEqual(exact(1));
    expect(await totalCount(key, { externalOrderId: "MANY-7" })).toEqual(exact(1));
  });
});
