import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const ALL_EVENTS = ["order.created", "order.confirmed", "order.canceled", "order.failed", "order.expired"];

describe("webhook endpoint management (SPEC §4)", () => {
  let server: TestServer;
  let shop: TestMerchant;

  beforeAll(async () => {
    server = await startTestServer();
    shop = await server.merchant();
  });
  afterAll(() => server?.close());

  it("creates an endpoint and shows its secret only in the creation response", async () => {
    const created = await shop.test.post("/api/v1/webhook-endpoints", {
      url: "https://hooks.example.com/orders",
      description: "Shop backend",
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: "https://hooks.example.com/orders",
      description: "Shop backend",
      events: ALL_EVENTS,
      enabled: true,
      disabledReason: null,
      previousSecretExpiresAt: null,
      legacySignature: false,
    });
    expect(created.body.secret).toMatch(SECRET);
    expect(Buffer.from(created.body.secret.slice(6), "base64")).toHaveLength(32);
    expect(new Date(created.body.createdAt).toISOString()).toBe(created.body.createdAt);

    const fetched = await shop.test.get(`/api/v1/webhook-endpoints/${created.body.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).not.toHaveProperty("secret");
    expect(fetched.body).toEqual({ ...created.body, secret: undefined });
    const listed = await shop.test.get("/api/v1/webhook-endpoints");
    expect(listed.body.data.map((endpoint: any) => endpoint.id)).toContain(created.body.id);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);
  });

  it("keeps the event filter, deduplicated, and refuses unknown event names", async () => {
    const created = await shop.test.post("/api/v1/webhook-endpoints", {
      url: "https://hooks.example.com/failures",
      events: ["order.failed", "order.failed", "order.canceled"],
    });
    expect(created.status).toBe(201);
    expect(created.body.events).toEqual(["order.failed", "order.canceled"]);

    const bad = await shop.test.post("/api/v1/webhook-endpoints", { url: "https://hooks.example.com/x", events: ["order.shipped"] });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, error: "VALIDATION_ERROR" });
    expect(bad.body.details[0].field).toBe("events[0]");
    const empty = await shop.test.post("/api/v1/webhook-endpoints", { url: "https://hooks.example.com/x", events: [] });
    expect(empty.status).toBe(400);
  });

  it("validates the URL with localised messages", async () => {
    for (const url of ["not a url", "ftp://hooks.example.com/x", "https://user:pw@hooks.example.com/x", "x".repeat(2100)]) {
      const response = await shop.test.post("/api/v1/webhook-endpoints", { url });
      expect(response.status, url).toBe(400);
      expect(response.body.details[0].field).toBe("url");
    }
    const missing = await shop.test.post("/api/v1/webhook-endpoints", {});
    expect(missing.body.details).toEqual([{ field: "url", message: "is required" }]);
    const arabic = await shop.test.post("/api/v1/webhook-endpoints", { url: "ftp://x" }, { headers: { "accept-language": "ar" } });
    expect(arabic.headers.get("content-language")).toBe("ar");
    expect(arabic.body.details[0].message).toMatch(/[\u0600-\u06FF]/);
  });

  it("refuses loopback, private, link-local, metadata and internal addresses (SSRF guard)", async () => {
    const blocked = [
      "http://127.0.0.1:8080/hook",
      "http://localhost/hook",
      "http://[::1]/hook",
      "http://10.0.0.5/hook",
      "http://192.168.1.20/hook",
      "http://172.16.3.4/hook",
      "http://169.254.169.254/latest/meta-data/",
      "http://100.100.100.200/",
      "http://[fd00:ec2::254]/",
      "http://[::ffff:127.0.0.1]/",
      "http://0.0.0.0/",
      "http://2130706433/",
      "http://metadata.google.internal/computeMetadata/v1/",
      "http://printer.local/",
    ];
    for (const url of blocked) {
      const response = await shop.test.post("/api/v1/webhook-endpoints", { url });
      expect(response.status, url).toBe(400);
      expect(response.body.details, url).toEqual([
        { field: "url", message: "must not point to a loopback, private, link-local or internal address" },
      ]);
    }
    const created = await shop.test.post("/api/v1/webhook-endpoints", { url: "https://hooks.example.com/a" });
    const patched = await shop.test.patch(`/api/v1/webhook-endpoints/${created.body.id}`, { url: "http://127.0.0.1/" });
    expect(patched.status).toBe(400);
    expect((await shop.test.get(`/api/v1/webhook-endpoints/${created.body.id}`)).body.url).toBe("https://hooks.example.com/a");
  });

  it("updates, disables and re-enables an endpoint", async () => {
    const created = await shop.test.post("/api/v1/webhook-endpoints", { url: "https://hooks.example.com/p", description: "old" });
    const id = created.body.id;
    const patched = await shop.test.patch(`/api/v1/webhook-endpoints/${id}`, {
      url: "https://hooks.example.com/q",
      events: ["order.confirmed"],
      description: null,
      enabled: false,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ url: "https://hooks.example.com/q", events: ["order.confirmed"], description: null, enabled: false });
    expect(Date.parse(patched.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.updatedAt));
    expect(patched.body).not.toHaveProperty("secret");

    // The service disables an endpoint on 410 Gone with a reason; re-enabling clears it.
    await server.app.services.database.prisma.webhookEndpoint.update({ where: { id }, data: { disabledReason: "410 Gone" } });
    const enabled = await shop.test.patch(`/api/v1/webhook-endpoints/${id}`, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null, events: ["order.confirmed"] });

    const invalid = await shop.test.patch(`/api/v1/webhook-endpoints/${id}`, { enabled: "yes" });
    expect(invalid.status).toBe(400);
    expect(invalid.body.details[0].field).toBe("enabled");
  });

  it("rotates the secret: the new one is shown once, the old one stays active for 24 h", async () => {
    const created = await shop.test.post("/api/v1/webhook-endpoints", { url: "https://hooks.example.com/r" });
    const before = Date.now();
    const rotated = await shop.test.post(`/api/v1/webhook-endpoints/${created.body.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(SECRET);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    const overlapMs = Date.parse(rotated.body.previousSecretExpiresAt) - before;
    expect(overlapMs).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(overlapMs).toBeLessThanOrEqual(24 * 3600_000 + 60_000);

    // Stored sealed (SPEC §14): opened with the service's key, they are the secrets shown.
    const opened = async () => {
      const row = await server.app.services.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: created.body.id } });
      const open = (value: string | null) => (value ? server.app.services.secrets.open(value, `webhook-endpoint:${created.body.id}`) : null);
      return { secret: open(row.secret), previousSecret: open(row.previousSecret) };
    };
    expect(await opened()).toEqual({ secret: rotated.body.secret, previousSecret: created.body.secret });

    // A second rotation keeps the secret that was current, not the first one.
    const again = await shop.test.post(`/api/v1/webhook-endpoints/${created.body.id}/rotate-secret`);
    expect(await opened()).toEqual({ secret: again.body.secret, previousSecret: rotated.body.secret });
  });

  it("deletes an endpoint", async () => {
    const created = await shop.test.post("/api/v1/webhook-endpoints", { url: "https://hooks.example.com/d" });
    const deleted = await shop.test.delete(`/api/v1/webhook-endpoints/${created.body.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expect((await shop.test.get(`/api/v1/webhook-endpoints/${created.body.id}`)).status).toBe(404);
    expect((await shop.test.delete(`/api/v1/webhook-endpoints/${created.body.id}`)).status).toBe(404);
  });

  it("scopes endpoints to the merchant and the key's mode: others get 404, never 403", async () => {
    const other = await server.merchant("Other Shop");
    const mine = await shop.test.post("/api/v1/webhook-endpoints", { url: "https://hooks.example.com/mine" });
    const path = `/api/v1/webhook-endpoints/${mine.body.id}`;
    for (const client of [other.test, other.live, shop.live]) {
      expect((await client.get(path)).status).toBe(404);
      expect((await client.patch(path, { enabled: false })).status).toBe(404);
      expect((await client.post(`${path}/rotate-secret`)).status).toBe(404);
      expect((await client.delete(path)).status).toBe(404);
      const listed = await client.get("/api/v1/webhook-endpoints");
      expect(listed.body.data.map((endpoint: any) => endpoint.id)).not.toContain(mine.body.id);
    }
    const notFound = await other.test.get(path, { headers: { "accept-language": "ar" } });
    expect(notFound.body).toEqual({ success: false, message: "نقطة استقبال الويب هوك غير موجودة", error: "NOT_FOUND" });
    expect((await shop.test.get("/api/v1/webhook-endpoints/not-a-uuid")).status).toBe(404);
    expect((await shop.test.get(path)).body.enabled).toBe(true);
  });

  it("needs an API key", async () => {
    const response = await server.api.get("/api/v1/webhook-endpoints");
    expect(response.status).toBe(401);
    expect(response.body.error).toBe("UNAUTHORIZED");
  });

  it("bounds the number of endpoints per merchant and mode", async () => {
    const busy = await server.merchant("Busy Shop");
    for (let i = 0; i < 20; i++) {
      expect((await busy.live.post("/api/v1/webhook-endpoints", { url: `https://hooks.example.com/${i}` })).status).toBe(201);
    }
    const over = await busy.live.post("/api/v1/webhook-endpoints", { url: "https://hooks.example.com/21" });
    expect(over.status).toBe(409);
    expect(over.body.error).toBe("WEBHOOK_ENDPOINT_LIMIT_REACHED");
    // The other mode has its own allowance.
    expect((await busy.test.post("/api/v1/webhook-endpoints", { url: "https://hooks.example.com/t" })).status).toBe(201);
  });

  it("documents the routes in the OpenAPI document", async () => {
    const document = (await server.api.get("/api/v1/openapi.json")).body;
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(["/api/v1/webhook-endpoints", "/api/v1/webhook-endpoints/{id}", "/api/v1/webhook-endpoints/{id}/rotate-secret"]),
    );
    expect(document.components.schemas.WebhookEndpointWithSecret.properties.secret).toBeDefined();
  });
});

describe("webhook endpoint URLs with WEBHOOK_ALLOW_PRIVATE_URLS=true (development)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: "true" });
  });
  afterAll(() => server?.close());

  it("accepts loopback and private addresses but still refuses non-http schemes", async () => {
    const shop = await server.merchant();
    expect((await shop.test.post("/api/v1/webhook-endpoints", { url: "http://127.0.0.1:9999/hook" })).status).toBe(201);
    expect((await shop.test.post("/api/v1/webhook-endpoints", { url: "http://localhost:9999/hook" })).status).toBe(201);
    expect((await shop.test.post("/api/v1/webhook-endpoints", { url: "file:///etc/passwd" })).status).toBe(400);
  });
});
