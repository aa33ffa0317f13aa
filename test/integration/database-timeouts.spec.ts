import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { openDatabase, type Database } from "../../src/db/database.ts";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../../src/db/embedded-postgres.ts";
import { createTestDatabase } from "../support/database.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { orderInput } from "../support/fixtures.ts";
import { GraphQLClient } from "../support/graphql.ts";
import type { ApiResponse } from "../support/api.ts";
import { proxyDatabase, type DatabaseProxy } from "../support/tcp-proxy.ts";

/**
 * Issue 19, reliability: every wait on the database is bounded. A statement blocked by a lock is cancelled by
 * DATABASE_STATEMENT_TIMEOUT (PostgreSQL) or given up by the driver's query timeout (PGlite, whose engine ignores
 * statement_timeout), and a database that silently drops every packet is given up by the query and connect
 * timeouts: each request answers 503 SERVICE_UNAVAILABLE with Retry-After, never 500, never hangs; the service
 * answers again once the lock or the network is back. On PGlite and PostgreSQL.
 */

/** The bound for a database that drops packets, with the default settings. */
const SILENT_DATABASE_BOUND_MS = 10_000;

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

function expectUnavailable(response: ApiResponse, what: string) {
  expect(response.status, `${what}: ${response.text}`).toBe(503);
  expect(response.headers.get("retry-after"), what).toBe("5");
}

async function untilAnswered(shop: TestMerchant, orderId: string): Promise<ApiResponse> {
  let response = await shop.test.get(`/api/v1/orders/${orderId}`);
  for (let tries = 0; response.status !== 200 && tries < 200; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    response = await shop.test.get(`/api/v1/orders/${orderId}`);
  }
  return response;
}

/** A REST read, a REST write and a GraphQL query at once, each timed. */
async function requestsMeanwhile(server: TestServer, shop: TestMerchant, orderId: string) {
  const gql = new GraphQLClient(server.baseUrl, shop.keys.test);
  const [read, list, create, query] = await Promise.all([
    timed(() => shop.test.get(`/api/v1/orders/${orderId}`, { headers: { "accept-language": "ar" } })),
    timed(() => shop.test.get("/api/v1/orders")),
    timed(() => shop.test.post("/api/v1/orders", orderInput())),
    timed(() => gql.query(`{ orders(first: 5) { edges { node { id status } } } }`)),
  ]);
  expectUnavailable(read.value, "GET /orders/:id");
  expect(read.value.body).toMatchObject({ success: false, error: "SERVICE_UNAVAILABLE" });
  expect(read.value.body.message).toMatch(/[\u0600-\u06FF]/);
  expectUnavailable(list.value, "GET /orders");
  expectUnavailable(create.value, "POST /orders");
  expect(create.value.body.error).toBe("SERVICE_UNAVAILABLE");
  expect(query.value.status, query.value.text).toBe(503);
  expect(query.value.headers.get("retry-after")).toBe("5");
  expect(query.value.body.errors?.[0].extensions).toMatchObject({ code: "SERVICE_UNAVAILABLE", retryAfter: 5 });
  return Math.max(read.ms, list.ms, create.ms, query.ms);
}

describe("a statement blocked by a lock", () => {
  let server: TestServer;
  let shop: TestMerchant;

  beforeAll(async () => {
    server = await startTestServer({ DATABASE_STATEMENT_TIMEOUT: "1s" });
    shop = await server.merchant("Lock Shop");
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it("answers 503 with Retry-After once DATABASE_STATEMENT_TIMEOUT runs out, then recovers when the lock goes", async () => {
    const created = await shop.test.post("/api/v1/orders", orderInput());
    expect(created.status, created.text).toBe(201);

    const { rows } = await server.app.services.database.pool.query<{ statement_timeout: string }>("SHOW statement_timeout");
    // PostgreSQL applies the setting; PGlite accepts it too (and the driver's query timeout enforces it there).
    expect(rows[0].statement_timeout).toBe("1s");

    // Another session (a migration, an operator's psql) holds the orders table. On PGlite, whose one session all
    // connections share, an open transaction also makes every other connection wait for the engine.
    const holder = new pg.Client({ connectionString: server.app.services.database.url });
    await holder.connect();
    let slowest: number;
    try {
      await holder.query("BEGIN");
      await holder.query("LOCK TABLE orders IN ACCESS EXCLUSIVE MODE");
      slowest = await requestsMeanwhile(server, shop, created.body.id);
    } finally {
      await holder.query("ROLLBACK").catch(() => undefined);
      await holder.end().catch(() => undefined);
    }
    // Bounded by the 1 s setting (plus the driver's 1 s margin), not by the lock; loose for a loaded machine.
    expect(slowest).toBeLessThan(SILENT_DATABASE_BOUND_MS);

    const after = await untilAnswered(shop, created.body.id);
    expect(after.status, after.text).toBe(200);
    // The create refused during the wait stored nothing.
    expect(await server.app.services.database.prisma.order.count({ where: { merchantId: shop.id } })).toBe(1);
    console.log(`lock held: every request answered 503 + Retry-After, slowest ${Math.round(slowest)} ms (DATABASE_STATEMENT_TIMEOUT=1s)`);
  }, 60_000);
});

describe("a database that silently drops every packet", () => {
  let proxy: DatabaseProxy;
  let proxied: Database;
  let embedded: EmbeddedPostgres | null = null;
  let dropDatabase: () => Promise<void> = async () => undefined;
  let server: TestServer;
  let shop: TestMerchant;

  beforeAll(async () => {
    const database = await createTestDatabase();
    let targetUrl: string;
    if (database.url) {
      targetUrl = database.url;
      dropDatabase = database.drop;
    } else {
      const template = database.target.kind === "embedded" ? database.target.template : undefined;
      embedded = await startEmbeddedPostgres({ dataDir: null, template });
      targetUrl = embedded.url;
    }
    proxy = await proxyDatabase(targetUrl);
    // The default timeouts: the bound a deployment gets without setting anything.
    proxied = await openDatabase({ kind: "postgres", url: proxy.url }, { migrate: false });
    server = await startTestServer({}, { database: proxied });
    shop = await server.merchant("Silent Network Shop");
  }, 60_000);

  afterAll(async () => {
    await proxy?.restore();
    await server?.close();
    await proxied?.close();
    await proxy?.close();
    await embedded?.stop();
    await dropDatabase();
  });

  it("answers 503 with Retry-After well under 10 s with the default settings, then recovers", async () => {
    const created = await shop.test.post("/api/v1/orders", orderInput());
    expect(created.status, created.text).toBe(201);

    proxy.blackHole();
    const slowest = await requestsMeanwhile(server, shop, created.body.id);
    expect(slowest).toBeLessThan(SILENT_DATABASE_BOUND_MS);
    // A second round meets new connections (the silent ones were dropped): the connect timeout bounds those.
    const slowestNew = await requestsMeanwhile(server, shop, created.body.id);
    expect(slowestNew).toBeLessThan(SILENT_DATABASE_BOUND_MS);
    const ready = await server.api.get("/readyz");
    expect(ready.status).toBe(503);
    expect((await server.api.get("/healthz")).status).toBe(200);

    await proxy.restore();
    const after = await untilAnswered(shop, created.body.id);
    expect(after.status, after.text).toBe(200);
    expect(after.body.id).toBe(created.body.id);
    expect(await server.app.services.database.prisma.order.count({ where: { merchantId: shop.id } })).toBe(1);
    console.log(
      `silent database (default timeouts): 503 + Retry-After, slowest ${Math.round(slowest)} ms on pooled connections, ` +
        `${Math.round(slowestNew)} ms on new ones`,
    );
  }, 90_000);
});
