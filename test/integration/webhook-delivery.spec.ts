import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { createHmac } from "node:crypto";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { orderInput } from "../support/fixtures.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import {
  createEndpoint,
  deliveriesOf,
  eventually,
  insertEndpoint,
  newWebhookSecret,
  storedPayload,
  type CreatedEndpoint,
} from "../support/webhooks.ts";

/**
 * SPEC §4 delivery, end to end: real orders through the API, the real dispatcher, a real HTTP receiver that
 * verifies every request with the official standardwebhooks library. Retries are fast here (200 ms, 400 ms).
 */
let server: TestServer;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  server = await startTestServer({
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    WEBHOOK_RETRY_SCHEDULE: "200ms,400ms",
    WEBHOOK_TIMEOUT_MS: "1000",
  });
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});
afterAll(() => server?.close());

/** A merchant with one test-mode endpoint (created through the API) pointing at a fresh receiver. */
async function merchantWithEndpoint(events?: string[]): Promise<{ shop: TestMerchant; receiver: WebhookReceiver; endpoint: CreatedEndpoint }> {
  const shop = await server.merchant();
  const receiver = await receive();
  const endpoint = await createEndpoint(shop.test, { url: receiver.url(), ...(events ? { events } : {}) });
  receiver.secret = endpoint.secret;
  return { shop, receiver, endpoint };
}

async function receive(): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver();
  receivers.push(receiver);
  return receiver;
}

async function place(shop: TestMerchant, overrides: Record<string, unknown> = {}) {
  const response = await shop.test.post("/api/v1/orders", orderInput(overrides));
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const ofOrder = (orderId: string) => (request: { body: any }) => request.body?.data?.id === orderId;

describe("webhook delivery", () => {
  it("POSTs the outbox envelope byte for byte, signed per Standard Webhooks, with exactly the documented headers", async () => {
    const { shop, receiver, endpoint } = await merchantWithEndpoint();
    const order = await place(shop);
    const [request] = await receiver.waitFor(1);
    const [event] = await server.outbox(order.id);

    expect(request.method).toBe("POST");
    expect(request.path).toBe("/hooks");
    expect(request.verified).toBe(true);
    expect(request.rawBody).toBe(await storedPayload(server, event.id));
    expect(request.body).toEqual({ event: "order.created", timestamp: order.createdAt, data: order });

    const { headers } = request;
    expect(headers["webhook-id"]).toBe(event.id);
    expect(Math.abs(Number(headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(30);
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(headers["content-type"]).toBe("application/json");
    expect(headers["user-agent"]).toMatch(/^order-confirmation-service\/\d+\.\d+\.\d+ \(\+webhooks\)$/);
    expect(headers["x-webhook-event"]).toBe("order.created");
    expect(endpoint.legacySignature).toBe(false);
    // No x-webhook-signature-256 unless the endpoint asks for it (SPEC §14: it has no timestamp, so it replays).
    expect(Object.keys(headers).sort()).toEqual(
      [
        "connection", "content-length", "content-type", "host", "user-agent", "webhook-id", "webhook-signature",
        "webhook-timestamp", "x-webhook-event",
      ].sort(),
    );

    // The log records the success.
    const [delivery] = await eventually(() => deliveriesOf(server, order.id), (rows) => rows[0]?.status === "succeeded");
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0]).toMatchObject({ statusCode: 204, error: null });
    expect(receiver.requests).toHaveLength(1);
  });

  it("x-webhook-signature-256 (body-only HMAC) only for an endpoint with legacySignature: true, and it can be switched off", async () => {
    const shop = await server.merchant();
    const receiver = await receive();
    const endpoint = await createEndpoint(shop.test, { url: receiver.url(), legacySignature: true });
    receiver.secret = endpoint.secret;
    expect(endpoint.legacySignature).toBe(true);
    const order = await place(shop);
    const [request] = await receiver.waitFor(1);
    expect(request.verified).toBe(true);
    const key = Buffer.from(endpoint.secret.slice("whsec_".length), "base64");
    expect(request.headers["x-webhook-signature-256"]).toBe(`sha256=${createHmac("sha256", key).update(request.rawBody).digest("hex")}`);
    expect(request.headers["webhook-signature"]).toMatch(/^v1,/);

    const off = await shop.test.patch(`/api/v1/webhook-endpoints/${endpoint.id}`, { legacySignature: false });
    expect(off.status, off.text).toBe(200);
    expect(off.body.legacySignature).toBe(false);
    await shop.test.post(`/api/v1/test/orders/${order.id}/customer-action`, { action: "approve" });
    const [, second] = await receiver.waitFor(2);
    expect(second.verified).toBe(true);
    expect(second.headers["x-webhook-signature-256"]).toBeUndefined();
  });

  it("delivers every event of an order, in order, each verified", async () => {
    const { shop, receiver } = await merchantWithEndpoint();
    const order = await place(shop);
    await shop.test.post(`/api/v1/test/orders/${order.id}/customer-action`, { action: "approve" });
    const requests = await receiver.waitFor(2);
    expect(requests.map((request) => request.headers["x-webhook-event"])).toEqual(["order.created", "order.confirmed"]);
    expect(requests.every((request) => request.verified === true)).toBe(true);
    const events = await server.outbox(order.id);
    expect(requests.map((request) => request.headers["webhook-id"])).toEqual(events.map((event) => event.id));
  });

  it("retries a failure with the same webhook-id and a new signature, then gives up: dead after the last attempt", async () => {
    const { shop, receiver } = await merchantWithEndpoint();
    receiver.respond(() => ({ status: 500, body: "database is down" }));
    const order = await place(shop);
    const requests = await receiver.waitFor(3);
    const [delivery] = await eventually(() => deliveriesOf(server, order.id), (rows) => rows[0]?.status === "dead");

    expect(new Set(requests.map((request) => request.headers["webhook-id"]))).toEqual(new Set([delivery.eventId]));
    expect(requests.every((request) => request.verified === true)).toBe(true);
    expect(new Set(requests.map((request) => request.rawBody)).size).toBe(1);
    // Every retry is signed afresh (its own timestamp); timestamps never go back.
    const stamps = requests.map((request) => Number(request.headers["webhook-timestamp"]));
    expect(stamps).toEqual([...stamps].sort());
    // The schedule's delays (200 ms, 400 ms, ±10 %) separate the attempts.
    expect(requests[1].receivedAt - requests[0].receivedAt).toBeGreaterThanOrEqual(150);
    expect(requests[2].receivedAt - requests[1].receivedAt).toBeGreaterThanOrEqual(330);

    expect(delivery.attemptCount).toBe(3);
    expect(delivery.maxAttempts).toBe(3);
    expect(delivery.nextAttemptAt).toBeNull();
    expect(delivery.attempts.map((attempt) => [attempt.statusCode, attempt.error])).toEqual([
      [500, "HTTP 500: database is down"],
      [500, "HTTP 500: database is down"],
      [500, "HTTP 500: database is down"],
    ]);
    // No fourth attempt.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(receiver.requests).toHaveLength(3);
  });

  it("succeeds on a retry after failures", async () => {
    const { shop, receiver } = await merchantWithEndpoint();
    receiver.respond((_request, index) => (index === 0 ? { status: 502 } : { status: 200, body: "ok" }));
    const order = await place(shop);
    await receiver.waitFor(2);
    const [delivery] = await eventually(() => deliveriesOf(server, order.id), (rows) => rows[0]?.status === "succeeded");
    expect(delivery.attempts.map((attempt) => attempt.statusCode)).toEqual([502, 200]);
    expect(delivery.attempts[0].error).toBe("HTTP 502");
  });

  it("honours Retry-After on 503 (seconds) and 429 (HTTP date) instead of the shorter schedule", async () => {
    const { shop, receiver } = await merchantWithEndpoint();
    receiver.respond((request, index) => {
      if (index === 0) return { status: 503, headers: { "retry-after": "2" } };
      if (index === 1) return { status: 429, headers: { "retry-after": new Date(Date.now() + 2_000).toUTCString() } };
      return { status: 200 };
    });
    await place(shop);
    const requests = await receiver.waitFor(3);
    // Seconds: at least 2 s (not the schedule's 200 ms). HTTP dates have 1 s resolution: at least ~1 s.
    expect(requests[1].receivedAt - requests[0].receivedAt).toBeGreaterThanOrEqual(1_900);
    expect(requests[2].receivedAt - requests[1].receivedAt).toBeGreaterThanOrEqual(900);
    expect(new Set(requests.map((request) => request.headers["webhook-id"])).size).toBe(1);
  });

  it("never follows a redirect: a 3xx is a failed attempt", async () => {
    const { shop, receiver } = await merchantWithEndpoint();
    receiver.respond((request) =>
      request.path === "/hooks" ? { status: 302, headers: { location: receiver.url("/elsewhere") } } : { status: 200 },
    );
    const order = await place(shop);
    const [delivery] = await eventually(() => deliveriesOf(server, order.id), (rows) => rows[0]?.status === "dead");
    expect(delivery.attempts.map((attempt) => [attempt.statusCode, attempt.error])).toEqual([
      [302, "redirect (302) not followed"],
      [302, "redirect (302) not followed"],
      [302, "redirect (302) not followed"],
    ]);
    expect(receiver.requests.map((request) => request.path)).toEqual(["/hooks", "/hooks", "/hooks"]);
  });

  it("410 Gone kills the delivery at once and disables the endpoint, which then receives nothing", async () => {
    const { shop, receiver, endpoint } = await merchantWithEndpoint();
    receiver.respond(() => ({ status: 410 }));
    const order = await place(shop);
    const [delivery] = await eventually(() => deliveriesOf(server, order.id), (rows) => rows[0]?.status === "dead");
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0]).toMatchObject({ statusCode: 410, error: "HTTP 410" });

    const shown = await shop.test.get(`/api/v1/webhook-endpoints/${endpoint.id}`);
    expect(shown.body).toMatchObject({ enabled: false });
    expect(shown.body.disabledReason).toMatch(/410/);

    const later = await place(shop);
    await shop.test.delete(`/api/v1/orders/${later.id}`);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.requests).toHaveLength(1);
    expect(await deliveriesOf(server, later.id)).toEqual([]);
  });

  it("keeps one order's events in order: a later event waits while an earlier one is retried, then follows it", async () => {
    const { shop, receiver } = await merchantWithEndpoint();
    let createdAttempts = 0;
    receiver.respond((request) => {
      if (request.headers["x-webhook-event"] !== "order.created") return { status: 200 };
      createdAttempts += 1;
      return createdAttempts <= 2 ? { status: 500 } : { status: 200 };
    });
    const order = await place(shop);
    // Canceled while order.created is still failing.
    await receiver.waitFor(1);
    expect((await shop.test.delete(`/api/v1/orders/${order.id}`)).status).toBe(200);
    const requests = await receiver.waitFor(4);
    expect(requests.map((request) => request.headers["x-webhook-event"])).toEqual([
      "order.created", "order.created", "order.created", "order.canceled",
    ]);
    const rows = await eventually(() => deliveriesOf(server, order.id), (all) => all.every((row) => row.status === "succeeded"));
    expect(rows.map((row) => row.attemptCount)).toEqual([3, 1]);
  });

  it("a later event also waits for an earlier one that dies, then goes", async () => {
    const { shop, receiver } = await merchantWithEndpoint();
    receiver.respond((request) => (request.headers["x-webhook-event"] === "order.created" ? { status: 500 } : { status: 200 }));
    const order = await place(shop);
    await receiver.waitFor(1);
    await shop.test.post(`/api/v1/test/orders/${order.id}/customer-action`, { action: "approve" });
    const requests = await receiver.waitFor(4);
    expect(requests.map((request) => request.headers["x-webhook-event"])).toEqual([
      "order.created", "order.created", "order.created", "order.confirmed",
    ]);
    const rows = await eventually(() => deliveriesOf(server, order.id), (all) => all[1]?.status === "succeeded");
    expect(rows.map((row) => row.status)).toEqual(["dead", "succeeded"]);
  });

  it("an order waiting for a retry does not hold up other orders to the same endpoint", async () => {
    const { shop, receiver } = await merchantWithEndpoint();
    const first = await place(shop, { customerName: "Always Failing" });
    receiver.respond((request) => (request.body?.data?.id === first.id ? { status: 500 } : { status: 200 }));
    await receiver.waitFor(1, ofOrder(first.id));
    const second = await place(shop);
    const [delivered] = await receiver.waitFor(1, ofOrder(second.id));
    // It went out before the failing order's last retry, i.e. it did not queue behind it.
    const failing = receiver.requests.filter(ofOrder(first.id));
    expect(failing.length).toBeLessThan(3);
    expect(delivered.verified).toBe(true);
  });

  it("sends only the events an endpoint subscribed to", async () => {
    const { shop, receiver } = await merchantWithEndpoint(["order.canceled"]);
    const kept = await place(shop);
    const canceled = await place(shop);
    await shop.test.post(`/api/v1/test/orders/${kept.id}/customer-action`, { action: "approve" });
    await shop.test.delete(`/api/v1/orders/${canceled.id}`);
    const [request] = await receiver.waitFor(1);
    expect(request.headers["x-webhook-event"]).toBe("order.canceled");
    expect(request.body.data.id).toBe(canceled.id);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(receiver.requests).toHaveLength(1);
    expect(await deliveriesOf(server, kept.id)).toEqual([]);
  });

  it("keeps test and live apart, and merchants apart", async () => {
    const { shop, receiver: testReceiver } = await merchantWithEndpoint();
    const liveReceiver = await receive();
    // A live endpoint of the same merchant, and an endpoint of another merchant.
    await insertEndpoint(server, shop.id, { mode: "live", url: liveReceiver.url() });
    const other = await server.merchant("Other Shop");
    const otherReceiver = await receive();
    await createEndpoint(other.test, { url: otherReceiver.url() });

    const order = await place(shop);
    await testReceiver.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(liveReceiver.requests).toHaveLength(0);
    expect(otherReceiver.requests).toHaveLength(0);
    expect((await deliveriesOf(server, order.id)).length).toBe(1);
  });

  it("fans one event out to every matching endpoint of the merchant, each with its own signature", async () => {
    const { shop, receiver: a } = await merchantWithEndpoint();
    const b = await receive();
    const second = await createEndpoint(shop.test, { url: b.url("/second") });
    b.secret = second.secret;
    const order = await place(shop);
    const [[fromA], [fromB]] = await Promise.all([a.waitFor(1), b.waitFor(1)]);
    expect(fromA.verified).toBe(true);
    expect(fromB.verified).toBe(true);
    expect(fromA.rawBody).toBe(fromB.rawBody);
    expect(fromA.headers["webhook-id"]).toBe(fromB.headers["webhook-id"]);
    expect(fromA.headers["webhook-signature"]).not.toBe(fromB.headers["webhook-signature"]);
    expect(await deliveriesOf(server, order.id)).toHaveLength(2);
  });

  it("signs with both secrets while a rotated-out secret is still active", async () => {
    const shop = await server.merchant();
    const receiver = await receive();
    const current = newWebhookSecret();
    const previous = newWebhookSecret();
    await insertEndpoint(server, shop.id, { url: receiver.url(), secret: current, previousSecret: previous });
    await place(shop);
    const [request] = await receiver.waitFor(1);
    expect(request.headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(new Webhook(current).verify(request.rawBody, request.headers)).toBeTruthy();
    expect(new Webhook(previous).verify(request.rawBody, request.headers)).toBeTruthy();
  });

  it("records a refused connection as a failed attempt without a status", async () => {
    const shop = await server.merchant();
    const closed = await startWebhookReceiver();
    const url = closed.url();
    await closed.close();
    await createEndpoint(shop.test, { url });
    const order = await place(shop);
    const [delivery] = await eventually(() => deliveriesOf(server, order.id), (rows) => rows[0]?.attempts.length >= 1);
    expect(delivery.attempts[0]).toMatchObject({ statusCode: null, error: "connection refused" });
  });

  it("a disabled endpoint receives nothing", async () => {
    const { shop, receiver, endpoint } = await merchantWithEndpoint();
    const disabled = await shop.test.request("PATCH", `/api/v1/webhook-endpoints/${endpoint.id}`, { enabled: false });
    expect(disabled.status, disabled.text).toBe(200);
    const order = await place(shop);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(receiver.requests).toHaveLength(0);
    expect(await deliveriesOf(server, order.id)).toEqual([]);
  });

  it("counts attempts in /metrics", async () => {
    const text = (await server.api.get("/metrics")).text;
    expect(text).toMatch(/webhook_attempts_total\{outcome="succeeded"\} [1-9]/);
    expect(text).toMatch(/webhook_attempts_total\{outcome="dead"\} [1-9]/);
    expect(text).toMatch(/webhook_deliveries_dead_total\{reason="gone"\} [1-9]/);
    expect(text).toMatch(/webhook_attempt_duration_seconds_count [1-9]/);
    expect(text).toMatch(/webhook_delivery_lag_seconds_count [1-9]/);
  });
});
