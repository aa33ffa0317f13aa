import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { ISO_MS, orderInput } from "../support/fixtures.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { createEndpoint, eventually, type CreatedEndpoint } from "../support/webhooks.ts";

/** SPEC §4 delivery log: GET /api/v1/webhook-deliveries[/{id}] and POST …/{id}/retry. */
let server: TestServer;
let shop: TestMerchant;
let ok: WebhookReceiver;
let failing: WebhookReceiver;
let okEndpoint: CreatedEndpoint;
let failingEndpoint: CreatedEndpoint;
const orders: any[] = [];

const DELIVERY_FIELDS = ["id", "eventId", "event", "orderId", "endpointId", "status", "attempts", "createdAt"];
const ATTEMPT_FIELDS = ["at", "statusCode", "durationMs", "error"];
const ARABIC = /[\u0600-\u06FF]/;

beforeAll(async () => {
  server = await startTestServer({
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    WEBHOOK_RETRY_SCHEDULE: "100ms",
    WEBHOOK_TIMEOUT_MS: "1000",
  });
  shop = await server.merchant();
  ok = await startWebhookReceiver();
  failing = await startWebhookReceiver();
  failing.respond(() => ({ status: 500 }));
  okEndpoint = await createEndpoint(shop.test, { url: ok.url() });
  failingEndpoint = await createEndpoint(shop.test, { url: failing.url() });
  ok.secret = okEndpoint.secret;
  failing.secret = failingEndpoint.secret;
  for (let i = 0; i < 3; i++) {
    const response = await shop.test.post("/api/v1/orders", orderInput());
    expect(response.status).toBe(201);
    orders.push(response.body);
  }
  await shop.test.delete(`/api/v1/orders/${orders[0].id}`);
  // 4 events × 2 endpoints; the failing endpoint's deliveries die after 2 attempts.
  await eventually(
    () => shop.test.get("/api/v1/webhook-deliveries?status=pending"),
    (response) => response.status === 200 && response.body.data.length === 0 && ok.requests.length === 4,
  );
});
afterAll(async () => {
  await ok?.close();
  await failing?.close();
  await server?.close();
});

const list = (query = "", client = shop.test) => client.get(`/api/v1/webhook-deliveries${query ? `?${query}` : ""}`);

describe("GET /api/v1/webhook-deliveries", () => {
  it("lists every delivery newest first, with its attempts, in the documented shape", async () => {
    const response = await list();
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(["data", "pagination"]);
    expect(response.body.pagination).toEqual({ limit: 20, hasMore: false, nextCursor: null });
    const data = response.body.data;
    expect(data).toHaveLength(8);
    for (const delivery of data) {
      expect(Object.keys(delivery)).toEqual(DELIVERY_FIELDS);
      expect(delivery.createdAt).toMatch(ISO_MS);
      for (const attempt of delivery.attempts) {
        expect(Object.keys(attempt)).toEqual(ATTEMPT_FIELDS);
        expect(attempt.at).toMatch(ISO_MS);
        expect(Number.isInteger(attempt.durationMs)).toBe(true);
      }
    }
    const keys = data.map((delivery: any) => `${delivery.createdAt}|${delivery.id}`);
    expect(keys).toEqual([...keys].sort().reverse());

    const dead = data.find((delivery: any) => delivery.endpointId === failingEndpoint.id);
    expect(dead.status).toBe("dead");
    expect(dead.attempts).toEqual([
      { at: expect.stringMatching(ISO_MS), statusCode: 500, durationMs: expect.any(Number), error: "HTTP 500" },
      { at: expect.stringMatching(ISO_MS), statusCode: 500, durationMs: expect.any(Number), error: "HTTP 500" },
    ]);
    const delivered = data.find((delivery: any) => delivery.endpointId === okEndpoint.id);
    expect(delivered).toMatchObject({ status: "succeeded", attempts: [{ statusCode: 204, error: null }] });
    // eventId is the webhook-id the receiver saw.
    expect(ok.requests.map((request) => request.headers["webhook-id"])).toContain(delivered.eventId);
  });

  it("filters by endpoint, order and status (repeated or comma-separated)", async () => {
    const byEndpoint = await list(`endpointId=${okEndpoint.id}`);
    expect(byEndpoint.body.data).toHaveLength(4);
    expect(byEndpoint.body.data.every((delivery: any) => delivery.endpointId === okEndpoint.id)).toBe(true);

    const byOrder = await list(`orderId=${orders[0].id}`);
    expect(byOrder.body.data.map((delivery: any) => delivery.event).sort()).toEqual([
      "order.canceled", "order.canceled", "order.created", "order.created",
    ]);

    expect((await list("status=dead")).body.data).toHaveLength(4);
    expect((await list("status=succeeded,dead")).body.data).toHaveLength(8);
    expect((await list("status=succeeded&status=dead")).body.data).toHaveLength(8);
    expect((await list(`status=succeeded&endpointId=${failingEndpoint.id}`)).body.data).toHaveLength(0);
    expect((await list(`orderId=${orders[1].id}&endpointId=${okEndpoint.id}`)).body.data).toHaveLength(1);
  });

  it("pages with a keyset cursor: no delivery twice, none missed", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await list(`limit=3${cursor ? `&cursor=${cursor}` : ""}`);
      expect(response.status).toBe(200);
      expect(response.body.pagination.limit).toBe(3);
      seen.push(...response.body.data.map((delivery: any) => delivery.id));
      cursor = response.body.pagination.nextCursor;
      expect(response.body.pagination.hasMore).toBe(cursor !== null);
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual((await list()).body.data.map((delivery: any) => delivery.id));
  });

  it("answers bad parameters with 400 VALIDATION_ERROR, localised", async () => {
    const en = await list("status=sent&limit=0&endpointId=nope&cursor=abc");
    expect(en.status).toBe(400);
    expect(en.body).toMatchObject({ success: false, error: "VALIDATION_ERROR", errorCode: null });
    expect(en.body.details.map((detail: any) => detail.field).sort()).toEqual(["cursor", "endpointId", "limit", "status"]);
    expect(en.body.details.find((detail: any) => detail.field === "endpointId").message).toBe("is not an id returned by this API");

    const ar = await shop.test.get("/api/v1/webhook-deliveries?orderId=x", { headers: { "accept-language": "ar" } });
    expect(ar.status).toBe(400);
    expect(ar.body.message).toMatch(ARABIC);
    expect(ar.body.details[0].message).toMatch(ARABIC);
  });

  it("shows a merchant only its own deliveries of the key's mode", async () => {
    const other = await server.merchant("Other Shop");
    expect((await list("", other.test)).body.data).toEqual([]);
    expect((await list(`endpointId=${okEndpoint.id}`, other.test)).body.data).toEqual([]);
    expect((await list("", shop.live)).body.data).toEqual([]);
  });

  it("needs an API key", async () => {
    expect((await server.api.get("/api/v1/webhook-deliveries")).status).toBe(401);
  });
});

describe("GET /api/v1/webhook-deliveries/{id}", () => {
  it("returns one delivery; another merchant's, a malformed or unknown id is 404", async () => {
    const [first] = (await list()).body.data;
    const one = await shop.test.get(`/api/v1/webhook-deliveries/${first.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(first);

    const other = await server.merchant("Other Shop");
    const foreign = await other.test.get(`/api/v1/webhook-deliveries/${first.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ success: false, message: "Webhook delivery not found", error: "NOT_FOUND" });
    expect((await shop.live.get(`/api/v1/webhook-deliveries/${first.id}`)).status).toBe(404);
    expect((await shop.test.get("/api/v1/webhook-deliveries/not-an-id")).status).toBe(404);
    expect((await shop.test.get("/api/v1/webhook-deliveries/01a2027a-74a8-7762-97c0-4d6141b094c7")).status).toBe(404);
  });
});

describe("POST /api/v1/webhook-deliveries/{id}/retry", () => {
  it("redelivers a succeeded delivery now, with the same webhook-id: 202, one more attempt", async () => {
    const [delivered] = (await list(`endpointId=${okEndpoint.id}&orderId=${orders[1].id}`)).body.data;
    const before = ok.requests.length;
    const response = await shop.test.post(`/api/v1/webhook-deliveries/${delivered.id}/retry`);
    expect(response.status).toBe(202);
    expect(Object.keys(response.body)).toEqual(DELIVERY_FIELDS);
    expect(response.body).toMatchObject({ id: delivered.id, status: "pending" });

    const requests = await ok.waitFor(before + 1);
    const repeat = requests.at(-1)!;
    expect(repeat.headers["webhook-id"]).toBe(delivered.eventId);
    expect(repeat.verified).toBe(true);
    const after = await eventually(
      () => shop.test.get(`/api/v1/webhook-deliveries/${delivered.id}`),
      (got) => got.body.status === "succeeded" && got.body.attempts.length === 2,
    );
    expect(after.body.attempts.map((attempt: any) => attempt.statusCode)).toEqual([204, 204]);
  });

  it("gives a dead delivery exactly one more attempt", async () => {
    const [dead] = (await list(`endpointId=${failingEndpoint.id}&orderId=${orders[2].id}`)).body.data;
    expect(dead.attempts).toHaveLength(2);
    const response = await shop.test.post(`/api/v1/webhook-deliveries/${dead.id}/retry`);
    expect(response.status).toBe(202);
    const after = await eventually(
      () => shop.test.get(`/api/v1/webhook-deliveries/${dead.id}`),
      (got) => got.body.status === "dead" && got.body.attempts.length === 3,
    );
    expect(after.body.attempts.at(-1)).toMatchObject({ statusCode: 500, error: "HTTP 500" });
    // No schedule restarted: nothing more comes.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await shop.test.get(`/api/v1/webhook-deliveries/${dead.id}`)).body.attempts).toHaveLength(3);
  });

  it("a retried dead delivery that now succeeds is succeeded", async () => {
    const [dead] = (await list(`endpointId=${failingEndpoint.id}&orderId=${orders[1].id}`)).body.data;
    failing.respond(() => ({ status: 200 }));
    try {
      await shop.test.post(`/api/v1/webhook-deliveries/${dead.id}/retry`);
      const after = await eventually(
        () => shop.test.get(`/api/v1/webhook-deliveries/${dead.id}`),
        (got) => got.body.status === "succeeded",
      );
      expect(after.body.attempts.map((attempt: any) => attempt.statusCode)).toEqual([500, 500, 200]);
    } finally {
      failing.respond(() => ({ status: 500 }));
    }
  });

  it("is 404 for another merchant's delivery, and changes nothing", async () => {
    const [delivery] = (await list(`endpointId=${failingEndpoint.id}&orderId=${orders[0].id}`)).body.data;
    const other = await server.merchant("Other Shop");
    const response = await other.test.post(`/api/v1/webhook-deliveries/${delivery.id}/retry`);
    expect(response.status).toBe(404);
    expect(response.body.error).toBe("NOT_FOUND");
    expect((await shop.test.get(`/api/v1/webhook-deliveries/${delivery.id}`)).body).toEqual(delivery);
  });
});

describe("OpenAPI", () => {
  it("documents the delivery log routes with their schemas", async () => {
    const document = (await server.api.get("/api/v1/openapi.json")).body;
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(["/api/v1/webhook-deliveries", "/api/v1/webhook-deliveries/{id}", "/api/v1/webhook-deliveries/{id}/retry"]),
    );
    const listOperation = document.paths["/api/v1/webhook-deliveries"].get;
    expect(listOperation.parameters.map((parameter: any) => parameter.name)).toEqual(
      expect.arrayContaining(["endpointId", "orderId", "status", "limit", "cursor"]),
    );
    expect(document.paths["/api/v1/webhook-deliveries/{id}/retry"].post.responses).toHaveProperty("202");
    expect(JSON.stringify(document.components.schemas)).toContain("WebhookDelivery");
  });
});
