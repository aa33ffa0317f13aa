import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import type { ApiResponse } from "../support/api.ts";
import { orderInput } from "../support/fixtures.ts";

/** 401, 404 and 500 bodies (SPEC §2–3), and the request id every response carries. */
let server: TestServer;
let shop: TestMerchant;

beforeAll(async () => {
  server = await startTestServer();
  shop = await server.merchant("Error Shop");
});
afterAll(() => server?.close());

const ARABIC = /[\u0600-\u06FF]/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const randomKey = (mode: "live" | "test") =>
  `ek_${mode}_${Array.from(randomBytes(40), (byte) => BASE62[byte % 62]).join("")}`;

function expectFamily(response: ApiResponse, status: number, code: string, message?: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  expect(Object.keys(response.body).sort()).toEqual(["error", "message", "success"]);
  expect(response.body).toEqual({ success: false, message: message ?? expect.any(String), error: code });
  expect(response.headers.get("x-request-id")).toBeTruthy();
}

const MISSING = "Missing API key: send it in the X-API-Key header";
const INVALID = "Invalid or revoked API key";

describe("401 UNAUTHORIZED", () => {
  const routes: [string, string, unknown?][] = [
    ["GET", "/api/v1/orders"],
    ["GET", "/api/v1/orders/00000000-0000-4000-8000-000000000000"],
    ["DELETE", "/api/v1/orders/00000000-0000-4000-8000-000000000000"],
    ["POST", "/api/v1/orders", orderInput()],
    ["POST", "/api/v1/test/orders/00000000-0000-4000-8000-000000000000/customer-action", { action: "approve" }],
  ];

  it.each(routes)("missing key on %s %s → 401 in English and Arabic", async (method, path, body) => {
    const before = await server.app.services.database.prisma.order.count();
    expectFamily(await server.api.request(method, path, body), 401, "UNAUTHORIZED", MISSING);
    const arabic = await server.api.request(method, path, body, { headers: { "accept-language": "ar" } });
    expectFamily(arabic, 401, "UNAUTHORIZED");
    expect(arabic.body.message).toMatch(ARABIC);
    expect(arabic.headers.get("content-language")).toBe("ar");
    expect(await server.app.services.database.prisma.order.count()).toBe(before);
  });

  it.each([
    ["an empty header", ""],
    ["no ek_ prefix", "not-a-key"],
    ["a bearer token", `Bearer ${randomKey("test")}`],
    ["an unknown mode", `ek_prod_${"a".repeat(40)}`],
    ["a too-short secret", "ek_test_abc123"],
    ["characters outside base62", `ek_test_${"a".repeat(39)}!`],
    ["surrounding spaces", `  ${randomKey("test")}  `],
  ])("malformed key (%s) → 401", async (_name, key) => {
    const response = await server.api.get("/api/v1/orders", { headers: { "x-api-key": key } });
    expect(response.status).toBe(401);
    expect(response.body.error).toBe("UNAUTHORIZED");
    expect(Object.keys(response.body).sort()).toEqual(["error", "message", "success"]);
  });

  it("unknown but well-formed keys (live and test) → 401 'invalid', in English and Arabic", async () => {
    for (const key of [randomKey("test"), randomKey("live")]) {
      expectFamily(await server.api.withKey(key).get("/api/v1/orders"), 401, "UNAUTHORIZED", INVALID);
      const arabic = await server.api.withKey(key).get("/api/v1/orders", { headers: { "accept-language": "ar-EG" } });
      expectFamily(arabic, 401, "UNAUTHORIZED");
      expect(arabic.body.message).toMatch(ARABIC);
    }
  });

  it("a missing key is refused before its body is looked at (no validation details to anonymous callers)", async () => {
    expectFamily(await server.api.post("/api/v1/orders", { nonsense: true }), 401, "UNAUTHORIZED", MISSING);
    const json = { "content-type": "application/json" };
    expectFamily(await server.api.post("/api/v1/orders", undefined, { rawBody: "{not json", headers: json }), 401, "UNAUTHORIZED", MISSING);
    const text = { "content-type": "text/plain" };
    expectFamily(await server.api.post("/api/v1/orders", undefined, { rawBody: "hello", headers: text }), 401, "UNAUTHORIZED", MISSING);
    const unknown = server.api.withKey(randomKey("test"));
    expectFamily(await unknown.post("/api/v1/orders", { nonsense: true }), 401, "UNAUTHORIZED", INVALID);
    expectFamily(await unknown.get("/api/v1/orders?limit=0"), 401, "UNAUTHORIZED", INVALID);
  });

  it("a revoked key → 401 at once, while the merchant's other key keeps working", async () => {
    const victim = await server.merchant("Revoked Shop");
    expect((await victim.test.get("/api/v1/orders")).status).toBe(200);
    const keys = await server.app.services.merchantService.listKeys(victim.id);
    expect(keys.map((key) => key.mode).sort()).toEqual(["live", "test"]);
    const testKey = keys.find((key) => key.mode === "test")!;
    expect(victim.keys.test.startsWith(testKey.prefix)).toBe(true);
    await server.app.services.merchantService.revokeKey(testKey.id);

    expectFamily(await victim.test.get("/api/v1/orders"), 401, "UNAUTHORIZED", INVALID);
    expectFamily(await victim.test.post("/api/v1/orders", orderInput()), 401, "UNAUTHORIZED", INVALID);
    const arabic = await victim.test.get("/api/v1/orders", { headers: { "accept-language": "ar" } });
    expectFamily(arabic, 401, "UNAUTHORIZED");
    expect(arabic.body.message).toMatch(ARABIC);
    expect((await victim.live.get("/api/v1/orders")).status).toBe(200);
  });

  it("public routes need no key", async () => {
    for (const path of ["/healthz", "/readyz", "/metrics", "/api/v1/openapi.json"]) {
      expect((await server.api.get(path)).status).toBe(200);
    }
  });
});

describe("404 NOT_FOUND", () => {
  it("an unknown route → 404 with the family body, in English and Arabic", async () => {
    for (const [method, path] of [
      ["GET", "/api/v1/nothing-here"],
      ["GET", "/api/v2/orders"],
      ["POST", "/api/v1/orders/00000000-0000-4000-8000-000000000000/ship"],
      ["PUT", "/api/v1/orders"],
    ]) {
      expectFamily(await shop.test.request(method, path), 404, "NOT_FOUND", "Route not found");
    }
    const arabic = await shop.test.get("/api/v1/nothing-here", { headers: { "accept-language": "ar" } });
    expectFamily(arabic, 404, "NOT_FOUND");
    expect(arabic.body.message).toMatch(ARABIC);
    expect(arabic.headers.get("content-language")).toBe("ar");
  });

  it("an unknown or malformed order id → 404 'Order not found'", async () => {
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid", "1", "%20"]) {
      expectFamily(await shop.test.get(`/api/v1/orders/${id}`), 404, "NOT_FOUND", "Order not found");
      expectFamily(await shop.test.delete(`/api/v1/orders/${id}`), 404, "NOT_FOUND", "Order not found");
    }
  });
});

describe("x-request-id", () => {
  it("is on every response: success, client errors, 404 and public routes", async () => {
    const responses = [
      await shop.test.get("/api/v1/orders"),
      await shop.test.post("/api/v1/orders", orderInput()),
      await shop.test.post("/api/v1/orders", { items: [] }),
      await shop.test.post("/api/v1/orders", undefined, { rawBody: "x", headers: { "content-type": "text/plain" } }),
      await server.api.get("/api/v1/orders"),
      await shop.test.get("/api/v1/nothing-here"),
      await server.api.get("/healthz"),
      await server.api.get("/readyz"),
      await server.api.get("/metrics"),
    ];
    const ids = responses.map((response) => response.headers.get("x-request-id"));
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("echoes a caller's own sane X-Request-Id, and replaces one that is not", async () => {
    for (const own of ["trace-123", "01HV9Z7X5K:abc.def_ghi", "a".repeat(128)]) {
      const response = await shop.test.get("/api/v1/orders", { headers: { "x-request-id": own } });
      expect(response.headers.get("x-request-id")).toBe(own);
      const failing = await server.api.get("/api/v1/orders", { headers: { "x-request-id": own } });
      expect(failing.status).toBe(401);
      expect(failing.headers.get("x-request-id")).toBe(own);
    }
    for (const insane of ["a".repeat(129), "has space", "<script>", "line\u00e9"]) {
      const response = await shop.test.get("/api/v1/orders", { headers: { "x-request-id": insane } });
      expect(response.status).toBe(200);
      expect(response.headers.get("x-request-id")).toMatch(UUID);
    }
  });
});

/**
 * A bug, not an outage: the service's own database handle is closed under it ("cannot use a pool after calling
 * end"), so every query fails in a way no retry fixes. An unreachable database is a 503 instead
 * (database-outage.spec.ts).
 */
describe("500 INTERNAL_ERROR when the service's database handle is gone", () => {
  let broken: TestServer;
  let merchant: TestMerchant;
  let orderId: string;

  beforeAll(async () => {
    broken = await startTestServer();
    merchant = await broken.merchant("Doomed Shop");
    const created = await merchant.test.post("/api/v1/orders", orderInput());
    expect(created.status).toBe(201);
    orderId = created.body.id;
    // Authenticate once so the key is cached: the request then reaches the order lookup itself.
    expect((await merchant.test.get(`/api/v1/orders/${orderId}`)).status).toBe(200);
    expect((await broken.api.get("/readyz")).status).toBe(200);
    await broken.app.services.database.close();
  });
  afterAll(async () => {
    // The database is already closed; closing it a second time may complain.
    await broken?.close().catch(() => undefined);
  });

  it("answers 500 with exactly success, message, error and requestId (= x-request-id), no stack trace", async () => {
    const response = await merchant.test.get(`/api/v1/orders/${orderId}`);
    expect(response.status).toBe(500);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(Object.keys(response.body).sort()).toEqual(["error", "message", "requestId", "success"]);
    expect(response.body).toEqual({ success: false, message: expect.any(String), error: "INTERNAL_ERROR", requestId: expect.any(String) });
    expect(response.body.requestId).toBe(response.headers.get("x-request-id"));
    expect(response.body.message).toContain(response.body.requestId);
    for (const leak of [/\bat\s+\S+\s+\(/, /\.ts:\d+/, /node_modules/, /prisma/i, /Error:/, /ECONN|socket|pool/i]) {
      expect(response.text).not.toMatch(leak);
    }
  });

  it("uses the caller's request id, and localises the message in Arabic", async () => {
    const response = await merchant.test.get(`/api/v1/orders/${orderId}`, {
      headers: { "x-request-id": "incident-42", "accept-language": "ar" },
    });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ success: false, message: expect.stringMatching(ARABIC), error: "INTERNAL_ERROR", requestId: "incident-42" });
    expect(response.body.message).toContain("incident-42");
    expect(response.headers.get("x-request-id")).toBe("incident-42");
    expect(response.headers.get("content-language")).toBe("ar");
  });

  it("fails creates and lists the same way", async () => {
    for (const response of [await merchant.test.post("/api/v1/orders", orderInput()), await merchant.test.get("/api/v1/orders")]) {
      expect(response.status).toBe(500);
      expect(Object.keys(response.body).sort()).toEqual(["error", "message", "requestId", "success"]);
      expect(response.body.requestId).toBe(response.headers.get("x-request-id"));
    }
  });

  it("/readyz answers 503 while /healthz stays 200", async () => {
    const ready = await broken.api.get("/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: "unavailable", database: "unreachable" });
    const health = await broken.api.get("/healthz");
    expect(health.status).toBe(200);
  });
});
