import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { orderInput } from "../support/fixtures.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { createEndpoint, deliveriesOf, eventually, insertEndpoint } from "../support/webhooks.ts";

/**
 * What protects everyone else from one merchant's endpoint: a slow endpoint only holds its own slots, and an
 * endpoint whose host is (or resolves to) a private address is refused at delivery time.
 */
const servers: TestServer[] = [];
const receivers: WebhookReceiver[] = [];

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function boot(env: Record<string, string>): Promise<TestServer> {
  const server = await startTestServer(env);
  servers.push(server);
  return server;
}

async function receive(): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver();
  receivers.push(receiver);
  return receiver;
}

async function place(shop: TestMerchant) {
  const response = await shop.test.post("/api/v1/orders", orderInput());
  expect(response.status, response.text).toBe(201);
  return response.body;
}

describe("a slow endpoint", () => {
  it("holds at most its own slots while it hangs: other endpoints and other merchants are delivered meanwhile", async () => {
    // Long enough that nothing here could be explained by the slow endpoint timing out first.
    const server = await boot({ WEBHOOK_ALLOW_PRIVATE_URLS: "true", WEBHOOK_TIMEOUT_MS: "20000", WEBHOOK_RETRY_SCHEDULE: "1s" });
    const shop = await server.merchant();
    const slow = await receive();
    const fast = await receive();
    slow.respond(() => ({ hang: true }));
    slow.secret = (await createEndpoint(shop.test, { url: slow.url() })).secret;
    fast.secret = (await createEndpoint(shop.test, { url: fast.url() })).secret;
    const other = await server.merchant("Other Shop");
    const otherReceiver = await receive();
    otherReceiver.secret = (await createEndpoint(other.test, { url: otherReceiver.url() })).secret;

    const orders = [];
    for (let i = 0; i < 6; i++) orders.push(await place(shop));
    const otherOrder = await place(other);

    const delivered = await fast.waitFor(6);
    const [otherDelivered] = await otherReceiver.waitFor(1);
    expect(new Set(delivered.map((request) => request.body.data.id))).toEqual(new Set(orders.map((order) => order.id)));
    expect(otherDelivered.body.data.id).toBe(otherOrder.id);
    // Meanwhile the slow endpoint holds its 4 slots (per-endpoint cap) and nothing was given up on.
    expect(slow.hanging).toBe(4);
    expect(slow.requests).toHaveLength(4);

    // Once it answers, the rest follows.
    slow.respond(() => ({ status: 200 }));
    slow.release(200);
    const all = await slow.waitFor(6);
    expect(all.every((request) => request.verified === true)).toBe(true);
    for (const order of orders) {
      await eventually(() => deliveriesOf(server, order.id), (rows) => rows.length === 2 && rows.every((row) => row.status === "succeeded"));
    }
  });

  it("is cut off at WEBHOOK_TIMEOUT_MS, which is recorded and retried", async () => {
    const server = await boot({ WEBHOOK_ALLOW_PRIVATE_URLS: "true", WEBHOOK_TIMEOUT_MS: "500", WEBHOOK_RETRY_SCHEDULE: "100ms" });
    const shop = await server.merchant();
    const receiver = await receive();
    receiver.respond((_request, index) => (index === 0 ? { hang: true } : { status: 200 }));
    receiver.secret = (await createEndpoint(shop.test, { url: receiver.url() })).secret;
    const order = await place(shop);
    const [delivery] = await eventually(() => deliveriesOf(server, order.id), (rows) => rows[0]?.status === "succeeded");
    expect(delivery.attempts.map((attempt) => [attempt.statusCode, attempt.error])).toEqual([
      [null, "timeout after 500 ms"],
      [200, null],
    ]);
    expect(delivery.attempts[0].durationMs).toBeGreaterThanOrEqual(450);
    const requests = await receiver.waitFor(2);
    expect(requests[0].headers["webhook-id"]).toBe(requests[1].headers["webhook-id"]);
  });
});

describe("delivery-time SSRF guard (WEBHOOK_ALLOW_PRIVATE_URLS=false)", () => {
  it("refuses an endpoint whose host is or resolves to loopback: the attempt is logged, the receiver never called", async () => {
    const server = await boot({ WEBHOOK_ALLOW_PRIVATE_URLS: "false", WEBHOOK_TIMEOUT_MS: "1000", WEBHOOK_RETRY_SCHEDULE: "100ms" });
    const shop = await server.merchant();
    const receiver = await receive();
    // Written directly: the API refuses such URLs when they are saved. A name can also start resolving to a
    // private address after it was saved (DNS rebinding), which is what the delivery-time check is for.
    const urls = [
      `http://localhost:${receiver.port}/hooks`,
      `http://127.0.0.1:${receiver.port}/hooks`,
      `http://[::ffff:127.0.0.1]:${receiver.port}/hooks`,
    ];
    for (const url of urls) await insertEndpoint(server, shop.id, { url });
    const order = await place(shop);

    const rows = await eventually(
      () => deliveriesOf(server, order.id),
      (all) => all.length === urls.length && all.every((row) => row.status === "dead"),
    );
    for (const row of rows) {
      expect(row.attempts).toHaveLength(2);
      for (const attempt of row.attempts) {
        expect(attempt.statusCode).toBeNull();
        expect(attempt.error).toMatch(/^blocked address /);
      }
    }
    expect(rows.flatMap((row) => row.attempts.map((attempt) => attempt.error))).toEqual(
      expect.arrayContaining([expect.stringContaining("127.0.0.1")]),
    );
    expect(receiver.requests).toHaveLength(0);
  });
});
