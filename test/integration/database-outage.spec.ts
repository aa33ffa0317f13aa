import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import pg from "pg";
import { openDatabase, type Database } from "../../src/db/database.ts";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../../src/db/embedded-postgres.ts";
import { createTestDatabase, usingPostgres } from "../support/database.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { orderInput } from "../support/fixtures.ts";
import { GraphQLClient } from "../support/graphql.ts";
import { wsUrl } from "../support/graphql-ws.ts";
import { TEST_APP_SECRET, sendCallback, statusCallback } from "../support/meta-callbacks.ts";
import { proxyDatabase, type DatabaseProxy } from "../support/tcp-proxy.ts";

/**
 * Issue 13, class 4: the database goes away (a proxy we control drops every connection and refuses new ones,
 * as a stopped PostgreSQL does). Every request that needs it is answered fast with 503 SERVICE_UNAVAILABLE and
 * Retry-After (REST, GraphQL, Meta's callbacks; websockets close 1013), /healthz stays 200, the log gets
 * throttled warnings instead of a stack per request, and once the database is back the service answers again
 * with nothing lost. On PGlite (its socket proxied) and PostgreSQL.
 */
const OUTAGE_MS = 6_500; // longer than the 5 s API-key cache, so authentication meets the outage too
const FAST_MS = 2_500; // a request held until the pool gives up would take 10 s

let proxy: DatabaseProxy;
let proxied: Database;
let targetUrl: string;
let embedded: EmbeddedPostgres | null = null;
let dropDatabase: () => Promise<void> = async () => undefined;
let server: TestServer;
let shop: TestMerchant;
const logLines: any[] = [];

beforeAll(async () => {
  const database = await createTestDatabase();
  if (database.url) {
    targetUrl = database.url;
    dropDatabase = database.drop;
  } else {
    embedded = await startEmbeddedPostgres({ dataDir: null, template: database.target.kind === "embedded" ? database.target.template : undefined });
    targetUrl = embedded.url;
  }
  proxy = await proxyDatabase(targetUrl);
  proxied = await openDatabase({ kind: "postgres", url: proxy.url }, { migrate: false });
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) logLines.push(JSON.parse(line));
      done();
    },
  });
  server = await startTestServer({ WHATSAPP_APP_SECRET: TEST_APP_SECRET }, { database: proxied, logger: pino({ level: "warn" }, sink) });
  shop = await server.merchant("Outage Shop");
}, 90_000);

afterAll(async () => {
  await proxy?.restore();
  await server?.close();
  await proxied?.close();
  await proxy?.close();
  await embedded?.stop();
  await dropDatabase();
});

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

describe("class 4: a database outage", () => {
  it("answers 503 + Retry-After everywhere meanwhile, logs a few warnings, and recovers with nothing lost", async () => {
    const gql = new GraphQLClient(server.baseUrl, shop.keys.test);
    const before: string[] = [];
    for (let index = 0; index < 3; index++) {
      const created = await shop.test.post("/api/v1/orders", orderInput());
      expect(created.status, created.text).toBe(201);
      before.push(created.body.id);
    }
    const row = await server.app.services.database.prisma.order.findUniqueOrThrow({ where: { id: before[0] } });
    const idempotencyKey = `outage-${Date.now()}`;
    const logsBefore = logLines.length;

    await proxy.cut();
    const cutAt = Date.now();
    const statuses = new Map<string, number>();
    const slowest = { ms: 0, what: "" };
    const record = (what: string, status: number, ms: number) => {
      statuses.set(`${what} ${status}`, (statuses.get(`${what} ${status}`) ?? 0) + 1);
      if (ms > slowest.ms) Object.assign(slowest, { ms, what });
    };
    let rounds = 0;
    while (Date.now() - cutAt < OUTAGE_MS) {
      rounds++;
      const create = await timed(() => shop.test.post("/api/v1/orders", orderInput(), { headers: { "idempotency-key": idempotencyKey } }));
      expect(create.value.status, create.value.text).toBe(503);
      expect(create.value.headers.get("retry-after")).toBe("5");
      expect(create.value.body).toEqual({
        success: false,
        error: "SERVICE_UNAVAILABLE",
        message: "The service is temporarily unavailable; retry in 5 seconds",
      });
      record("POST /orders", create.value.status, create.ms);

      const arabic = await timed(() => shop.test.get(`/api/v1/orders/${before[0]}`, { headers: { "accept-language": "ar" } }));
      expect(arabic.value.status).toBe(503);
      expect(arabic.value.body.message).toMatch(/[\u0600-\u06FF]/);
      expect(arabic.value.headers.get("retry-after")).toBe("5");
      record("GET /orders/:id", arabic.value.status, arabic.ms);

      const list = await timed(() => shop.test.get("/api/v1/orders"));
      expect(list.value.status, JSON.stringify(logLines.filter((line) => line.level >= 50).slice(-1))).toBe(503);
      record("GET /orders", list.value.status, list.ms);

      const query = await timed(() => gql.query(`{ orders(first: 5) { edges { node { id } } } }`));
      expect(query.value.status, query.value.text + JSON.stringify(logLines.filter((line) => line.level >= 50).slice(-1))).toBe(503);
      expect(query.value.headers.get("retry-after")).toBe("5");
      expect(query.value.body.errors?.[0].extensions).toMatchObject({ code: "SERVICE_UNAVAILABLE", retryAfter: 5 });
      record("GraphQL query", query.value.status, query.ms);

      const mutation = await timed(() =>
        gql.query(`mutation($input: CreateOrderInput!) { createOrder(input: $input) { order { id } userErrors { code } } }`, {
          input: orderInput(),
        }),
      );
      expect(mutation.value.status, mutation.value.text).toBe(503);
      expect(mutation.value.body.errors?.[0].extensions?.code).toBe("SERVICE_UNAVAILABLE");
      record("GraphQL mutation", mutation.value.status, mutation.ms);

      const callback = await timed(() => sendCallback(server.baseUrl, statusCallback(row.providerMessageId!, "delivered")));
      expect(callback.value.status).toBe(503);
      record("Meta callback", callback.value.status, callback.ms);

      const health = await timed(() => server.api.get("/healthz"));
      expect(health.value.status).toBe(200);
      record("/healthz", health.value.status, health.ms);
      const ready = await timed(() => server.api.get("/readyz"));
      expect(ready.value.status).toBe(503);
      record("/readyz", ready.value.status, ready.ms);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The API-key cache has expired by now: a new websocket meets the outage at authentication.
    const socketClose = await new Promise<number>((resolve) => {
      const socket = new WebSocket(wsUrl(server), "graphql-transport-ws");
      socket.on("open", () => socket.send(JSON.stringify({ type: "connection_init", payload: { apiKey: shop.keys.test } })));
      socket.on("close", (code) => resolve(code));
    });
    expect(socketClose).toBe(1013);
    expect(slowest.ms, `slowest: ${slowest.what}`).toBeLessThan(FAST_MS);

    const outageLogs = logLines.slice(logsBefore);
    expect(outageLogs.filter((line) => line.level >= 50), JSON.stringify(outageLogs.filter((line) => line.level >= 50).slice(0, 2))).toEqual([]);
    // One throttled warning for the transports and one per background worker (webhooks, scheduler, SMS sender,
    // conversation sender, store intake and write-back), whatever the number of requests.
    expect(outageLogs.length, JSON.stringify(outageLogs.map((line) => line.msg))).toBeLessThanOrEqual(8);
    // No line per request: the transports share one throttled warning (workers keep their own, also throttled).
    expect(outageLogs.filter((line) => line.reqId)).toEqual([]);
    expect(outageLogs.filter((line) => /database unavailable/.test(line.msg))).toHaveLength(1);

    await proxy.restore();
    const restoredAt = performance.now();
    let recovered = await shop.test.get("/api/v1/orders");
    while (recovered.status !== 200 && performance.now() - restoredAt < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      recovered = await shop.test.get("/api/v1/orders");
    }
    const recoveryMs = performance.now() - restoredAt;
    expect(recovered.status).toBe(200);
    expect(recoveryMs).toBeLessThan(5_000);

    // The request refused during the outage, repeated with its key: stored once now.
    const retried = await shop.test.post("/api/v1/orders", orderInput(), { headers: { "idempotency-key": idempotencyKey } });
    expect(retried.status, retried.text).toBe(201);
    for (const id of before) {
      const order = await shop.test.get(`/api/v1/orders/${id}`);
      expect(order.status).toBe(200);
      expect((await server.outbox(id)).map((event) => event.type)).toEqual(["order.created"]);
    }
    expect(await server.app.services.database.prisma.order.count({ where: { merchantId: shop.id } })).toBe(before.length + 1);
    const callbackAfter = await sendCallback(server.baseUrl, statusCallback(row.providerMessageId!, "delivered"));
    expect(callbackAfter.status).toBe(200);
    expect((await shop.test.get(`/api/v1/orders/${before[0]}`)).body.deliveryStatus).toBe("delivered");

    console.log(
      `outage ${OUTAGE_MS} ms, ${rounds} rounds: ${[...statuses].map(([key, count]) => `${key} ×${count}`).join(", ")}; ` +
        `slowest ${Math.round(slowest.ms)} ms (${slowest.what}); ${outageLogs.length} log lines (${outageLogs.map((l) => l.msg).join(" | ")}); ` +
        `recovered in ${Math.round(recoveryMs)} ms`,
    );
  }, 60_000);

  it.skipIf(!usingPostgres)(
    "PostgreSQL itself refusing the database (ALLOW_CONNECTIONS false, sessions terminated): 503, then recovery",
    async () => {
      const admin = new pg.Client({ connectionString: Object.assign(new URL(targetUrl), { pathname: "/postgres" }).toString() });
      await admin.connect();
      const name = new URL(targetUrl).pathname.slice(1);
      const gql = new GraphQLClient(server.baseUrl, shop.keys.test);
      try {
        await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
        await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [name]);
        const seen = new Set<number>();
        const until = Date.now() + OUTAGE_MS;
        while (Date.now() < until) {
          const list = await timed(() => shop.test.get("/api/v1/orders"));
          const query = await gql.query(`{ orders(first: 1) { totalCount } }`);
          for (const response of [list.value, query]) {
            seen.add(response.status);
            expect(response.status, response.text).toBe(503);
            expect(response.headers.get("retry-after")).toBe("5");
          }
          expect(list.ms).toBeLessThan(FAST_MS);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect([...seen]).toEqual([503]);
      } finally {
        await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
        await admin.end();
      }
      const restoredAt = performance.now();
      let recovered = await shop.test.get("/api/v1/orders");
      while (recovered.status !== 200 && performance.now() - restoredAt < 10_000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        recovered = await shop.test.get("/api/v1/orders");
      }
      expect(recovered.status, recovered.text).toBe(200);
      console.log(`ALLOW_CONNECTIONS false for ${OUTAGE_MS} ms: only 503 + Retry-After; recovered in ${Math.round(performance.now() - restoredAt)} ms`);
    },
    60_000,
  );
});
