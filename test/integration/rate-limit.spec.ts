import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import type { ApiClient, ApiResponse } from "../support/api.ts";

/** SPEC §1/§3: RATE_LIMIT_MAX requests per API key per RATE_LIMIT_WINDOW, then 429 RATE_LIMITED with Retry-After. */
const LIMIT = { RATE_LIMIT_MAX: "3", RATE_LIMIT_WINDOW: "1 minute" };
const redisUrl = process.env.TEST_REDIS_URL;

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer(LIMIT);
});
afterAll(() => server?.close());

function expectRateLimited(response: ApiResponse, language: "en" | "ar" = "en") {
  expect(response.status).toBe(429);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  expect(Object.keys(response.body).sort()).toEqual(["error", "message", "success"]);
  expect(response.body).toEqual({ success: false, message: expect.any(String), error: "RATE_LIMITED" });
  const retryAfter = response.headers.get("retry-after");
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  expect(response.headers.get("content-language")).toBe(language);
  expect(response.headers.get("x-request-id")).toBeTruthy();
  if (language === "ar") expect(response.body.message).toMatch(/[\u0600-\u06FF]/);
  else expect(response.body.message).toBe(`Too many requests: retry in ${retryAfter} seconds`);
}

async function spend(client: ApiClient, count: number) {
  for (let i = 0; i < count; i++) {
    const response = await client.get("/api/v1/orders");
    expect(response.status).toBe(200);
  }
}

describe("one instance (in-memory counters)", () => {
  let shop: TestMerchant;
  let other: TestMerchant;
  beforeAll(async () => {
    shop = await server.merchant("Busy Shop");
    other = await server.merchant("Quiet Shop");
  });

  it("allows RATE_LIMIT_MAX requests per key, then answers 429 with Retry-After, in English and Arabic", async () => {
    await spend(shop.test, 3);
    expectRateLimited(await shop.test.get("/api/v1/orders"));
    // Every route behind the key counts, and stays limited.
    expectRateLimited(await shop.test.post("/api/v1/orders", {}));
    expectRateLimited(await shop.test.get("/api/v1/orders/00000000-0000-0000-0000-000000000000"));
    expectRateLimited(await shop.test.get("/api/v1/orders", { headers: { "accept-language": "ar" } }), "ar");
    expectRateLimited(await shop.test.get("/api/v1/orders", { headers: { "accept-language": "ar-EG,ar;q=0.9" } }), "ar");
  });

  it("does not affect other keys, even the same merchant's other key", async () => {
    await spend(other.test, 3);
    expectRateLimited(await other.test.get("/api/v1/orders"));
    // The busy shop's live key is a key of its own.
    const live = await shop.live.get("/api/v1/orders");
    expect(live.status).toBe(200);
    const fresh = await server.merchant("Fresh Shop");
    expect((await fresh.test.get("/api/v1/orders")).status).toBe(200);
  });

  it("never limits /healthz, /readyz or /metrics, whatever key is sent", async () => {
    expectRateLimited(await shop.test.get("/api/v1/orders"));
    for (let i = 0; i < 10; i++) {
      const health = await shop.test.get("/healthz");
      expect(health.status).toBe(200);
      expect(health.body).toEqual({ status: "ok" });
      expect((await server.api.get("/healthz")).status).toBe(200);
    }
    for (let i = 0; i < 5; i++) {
      expect((await shop.test.get("/readyz")).status).toBe(200);
      expect((await shop.test.get("/metrics")).status).toBe(200);
    }
  });

  it("without Redis, each instance counts on its own", async () => {
    const second = await startTestServer(LIMIT, { database: server.app.services.database });
    try {
      const shopB = await server.merchant("Split Shop");
      await spend(shopB.test, 3);
      expectRateLimited(await shopB.test.get("/api/v1/orders"));
      // The same key on the other instance still has its full allowance.
      await spend(second.api.withKey(shopB.keys.test), 3);
      expectRateLimited(await second.api.withKey(shopB.keys.test).get("/api/v1/orders"));
    } finally {
      await second.close();
    }
  });
});

describe.runIf(redisUrl)("several instances sharing Redis (TEST_REDIS_URL)", () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer({ ...LIMIT, REDIS_URL: redisUrl! });
    // Both instances share one database (so a key is valid on both) and one Redis.
    b = await startTestServer({ ...LIMIT, REDIS_URL: redisUrl! }, { database: a.app.services.database });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("shares the limit: 2 requests on A and 2 on B make the 4th a 429, on either instance", async () => {
    // Keys are random, and the limiter namespaces by a hash of the key: no clash with earlier runs.
    const shop = await a.merchant("Shared Shop");
    const onA = a.api.withKey(shop.keys.test);
    const onB = b.api.withKey(shop.keys.test);
    await spend(onA, 2);
    await spend(onB, 1);
    const fourth = await onB.get("/api/v1/orders");
    expectRateLimited(fourth);
    expectRateLimited(await onA.get("/api/v1/orders"));
    expectRateLimited(await onA.get("/api/v1/orders", { headers: { "accept-language": "ar" } }), "ar");
    // Another key is unaffected on both instances.
    const other = await a.merchant("Shared Neighbour");
    expect((await a.api.withKey(other.keys.test).get("/api/v1/orders")).status).toBe(200);
    expect((await b.api.withKey(other.keys.test).get("/api/v1/orders")).status).toBe(200);
    // Health stays reachable.
    expect((await b.api.withKey(shop.keys.test).get("/healthz")).status).toBe(200);
  });

  it("counts requests arriving in parallel on both instances exactly", async () => {
    const shop = await a.merchant("Parallel Shop");
    const clients = [a.api.withKey(shop.keys.test), b.api.withKey(shop.keys.test)];
    const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => clients[i % 2].get("/api/v1/orders")));
    expect(responses.filter((response) => response.status === 200)).toHaveLength(3);
    for (const response of responses.filter((r) => r.status !== 200)) expectRateLimited(response);
  });
});

describe("requests without a valid key", () => {
  it("count against the caller's address, so made-up keys cannot each get a fresh allowance", async () => {
    const own = await startTestServer(LIMIT);
    try {
      const madeUp = () => `ek_test_${Array.from({ length: 40 }, () => "abcdefghijklmnopqrstuvwxyz0123456789"[Math.floor(Math.random() * 36)]).join("")}`;
      for (let i = 0; i < 3; i++) {
        const refused = await own.api.withKey(madeUp()).get("/api/v1/orders");
        expect(refused.status).toBe(401);
      }
      expectRateLimited(await own.api.withKey(madeUp()).get("/api/v1/orders"));
      expectRateLimited(await own.api.get("/api/v1/orders"));
      // A valid key has its own allowance.
      const shop = await own.merchant();
      expect((await shop.test.get("/api/v1/orders")).status).toBe(200);
    } finally {
      await own.close();
    }
  });
});
