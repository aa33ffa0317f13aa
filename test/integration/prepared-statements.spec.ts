import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { usingPostgres } from "../support/database.ts";
import { orderInput } from "../support/fixtures.ts";

/**
 * The create path's statements and the read by id run as named prepared statements on PostgreSQL (each connection
 * parses and plans them once) and unnamed on PGlite, whose connections share one session.
 */
let server: TestServer;
let shop: TestMerchant;

beforeAll(async () => {
  server = await startTestServer();
  shop = await server.merchant("Prepared Shop");
});
afterAll(() => server?.close());

const HOT_STATEMENTS = ["order_stats_bounds_day", "orders_find_visible", "orders_insert_sending", "orders_mark_accepted"];

describe("hot statements", () => {
  it(`are ${usingPostgres ? "prepared on every connection that ran them" : "unnamed on PGlite"}, and answer alike on every connection`, async () => {
    const { database } = server.app.services;
    expect(database.prepareStatements).toBe(usingPostgres);
    // More creates and reads at once than the pool has connections, so several connections run each statement,
    // some of them twice (the second run uses the prepared statement).
    const created = await Promise.all(
      Array.from({ length: 30 }, (_, i) => shop.test.post("/api/v1/orders", orderInput({ externalOrderId: `PREP-${i}` }))),
    );
    expect(created.map((response) => response.status)).toEqual(Array(30).fill(201));
    const read = await Promise.all(created.map((response) => shop.test.get(`/api/v1/orders/${response.body.id}`)));
    expect(read.map((response) => response.body.externalOrderId)).toEqual(created.map((response) => response.body.externalOrderId));
    const duplicate = await shop.test.post("/api/v1/orders", orderInput({ externalOrderId: "PREP-0" }));
    expect(duplicate.status).toBe(409);
    // The statistics' buckets and fingerprints, twice (the second read takes today's whole day from the cache and
    // reads the clipped ends again).
    const range = new URLSearchParams({ from: new Date(Date.now() - 86_400_000).toISOString(), to: new Date(Date.now() + 86_400_000).toISOString() });
    for (let i = 0; i < 2; i++) {
      const stats = await shop.test.get(`/api/v1/stats/orders?${range}`);
      expect(stats.status, stats.text).toBe(200);
      expect(stats.body.totals.created).toBe(30);
    }

    // Every idle connection at once (none is opened for this), and the names prepared on any of them.
    const clients = await Promise.all(Array.from({ length: database.pool.idleCount }, () => database.pool.connect()));
    try {
      const names = new Set<string>();
      for (const client of clients) {
        const { rows } = await client.query<{ name: string }>("SELECT name FROM pg_prepared_statements");
        for (const row of rows) if (HOT_STATEMENTS.includes(row.name)) names.add(row.name);
      }
      expect([...names].sort()).toEqual(usingPostgres ? HOT_STATEMENTS : []);
    } finally {
      for (const client of clients) client.release();
    }
  });
});
