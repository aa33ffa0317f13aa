import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { APPROVE_PHRASES, CANCEL_PHRASES } from "../../src/domain/conversation/customer-answer.ts";
import { orderInput } from "../support/fixtures.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { createEndpoint } from "../support/webhooks.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";

/**
 * SPEC §11 through the simulated customer (test mode): every phrase of both lists acts like the tap, the opt-in
 * webhook event order.customer_message, and a merchant reply racing the customer's tap.
 */
let server: TestServer;
let shop: TestMerchant;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: "true", WEBHOOK_RETRY_SCHEDULE: "200ms,400ms", WEBHOOK_TIMEOUT_MS: "1000" });
  shop = await server.merchant("Phrase Shop");
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});
afterAll(() => server?.close());

async function place(merchant = shop) {
  const response = await merchant.test.post("/api/v1/orders", orderInput());
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const say = (merchant: TestMerchant, id: string, text: string) => merchant.test.post(`/api/v1/test/orders/${id}/customer-message`, { text });

describe("every phrase of both lists acts like the tap", () => {
  it.each([...APPROVE_PHRASES.map((phrase) => [phrase, "confirmed"]), ...CANCEL_PHRASES.map((phrase) => [phrase, "canceled"])])(
    "%s → %s",
    async (phrase, status) => {
      const order = await place();
      const answered = await say(shop, order.id, phrase);
      expect(answered.status, answered.text).toBe(200);
      expect(answered.body).toMatchObject({ status, customerAction: status === "confirmed" ? "approved" : "canceled" });
      const events = (await server.outbox(order.id)).map((event) => event.type);
      expect(events).toEqual(["order.created", status === "confirmed" ? "order.confirmed" : "order.canceled"]);
    },
  );
});

describe("order.customer_message is opt-in", () => {
  it("reaches only the endpoints that list it, signed, with the order and the message", async () => {
    const merchant = await server.merchant("Hooks Shop");
    const optedIn = await startWebhookReceiver();
    const defaults = await startWebhookReceiver();
    receivers.push(optedIn, defaults);
    const created = await createEndpoint(merchant.test, { url: optedIn.url(), events: ["order.customer_message", "order.confirmed"] });
    optedIn.secret = created.secret;
    const plain = await createEndpoint(merchant.test, { url: defaults.url() });
    defaults.secret = plain.secret;
    expect(plain.events).not.toContain("order.customer_message");

    const order = await place(merchant);
    expect((await say(merchant, order.id, "Is the coffee ground or beans?")).status).toBe(200);
    const [delivered] = await optedIn.waitFor(1, (request) => request.body?.event === "order.customer_message");
    expect(delivered.verified).toBe(true);
    expect(Object.keys(delivered.body)).toEqual(["event", "timestamp", "data", "message"]);
    expect(delivered.body.data).toMatchObject({ id: order.id, status: "pending" });
    expect(delivered.body.message).toMatchObject({ text: "Is the coffee ground or beans?" });
    expect(delivered.body.message.receivedAt).toBe(delivered.body.timestamp);
    const stored = (await merchant.test.get(`/api/v1/orders/${order.id}/messages`)).body.data;
    expect(stored.find((message: any) => message.kind === "text").id).toBe(delivered.body.message.id);

    expect((await say(merchant, order.id, "نعم")).body.status).toBe("confirmed");
    await optedIn.waitFor(1, (request) => request.body?.event === "order.confirmed");
    await defaults.waitFor(2, (request) => request.body?.data?.id === order.id);
    expect(defaults.requests.map((request) => request.body.event)).toEqual(["order.created", "order.confirmed"]);
    // order.created is not among the opted-in endpoint's events.
    expect(optedIn.requests.map((request) => request.body.event)).toEqual(["order.customer_message", "order.confirmed"]);
  });
});

describe("a merchant reply racing the customer's tap", () => {
  it("both are applied once, in some order, and the conversation has both", async () => {
    for (let round = 0; round < 5; round++) {
      const order = await place();
      expect((await say(shop, order.id, "when will it arrive?")).status).toBe(200);
      const [reply, tap] = await Promise.all([
        shop.test.post(`/api/v1/orders/${order.id}/messages`, { text: `Tomorrow (${round})` }),
        shop.test.post(`/api/v1/test/orders/${order.id}/customer-action`, { action: "approve" }),
      ]);
      expect(reply.status, reply.text).toBe(201);
      expect(tap.status, tap.text).toBe(200);
      const events = (await server.outbox(order.id)).map((event) => event.type);
      expect(events).toEqual(["order.created", "order.customer_message", "order.confirmed"]);
      const kinds = (await shop.test.get(`/api/v1/orders/${order.id}/messages`)).body.data.map((message: any) => `${message.sender}:${message.kind}`);
      expect(kinds.filter((kind: string) => kind === "merchant:text")).toHaveLength(1);
      expect(kinds.filter((kind: string) => kind === "customer:tap")).toHaveLength(1);
      const needs = (await shop.test.get(`/api/v1/orders?needsReply=true`)).body.data.map((o: any) => o.id);
      expect(needs).not.toContain(order.id);
    }
  });
});

describe("bounds and recovery", () => {
  it("at most 20 merchant replies per order and hour: the 21st is 429 with Retry-After, and nothing is sent", async () => {
    const order = await place();
    expect((await say(shop, order.id, "are you there?")).status).toBe(200);
    for (let index = 0; index < 20; index++) {
      const sent = await shop.test.post(`/api/v1/orders/${order.id}/messages`, { text: `reply ${index}` });
      expect(sent.status, sent.text).toBe(201);
    }
    const refused = await shop.test.post(`/api/v1/orders/${order.id}/messages`, { text: "one more" });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe("RATE_LIMITED");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const merchantMessages = (await shop.test.get(`/api/v1/orders/${order.id}/messages`)).body.data.filter((message: any) => message.sender === "merchant");
    expect(merchantMessages).toHaveLength(20);
  });

  it("a send interrupted by a crash (lease passed) is failed by the sender, never sent again", async () => {
    const order = await place();
    expect((await say(shop, order.id, "hello?")).status).toBe(200);
    const pool = server.app.services.database.pool;
    const sentOnce = () => server.app.services.phones.all().some((message) => message.orderId === order.id && message.kind === "buttons");
    for (let i = 0; i < 400 && !sentOnce(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(sentOnce()).toBe(true);
    // As if an instance died while sending the automatic reply: still `sending`, its lease over.
    await pool.query(
      `UPDATE order_messages SET status = 'sending', lease_until = now() - interval '1 minute' WHERE order_id = $1 AND kind = 'buttons'`,
      [order.id],
    );
    const shown = server.app.services.phones.all().filter((message) => message.orderId === order.id && message.kind === "buttons").length;
    // The sender looks on its own every few seconds; wait for the row it must fail.
    for (let i = 0; i < 800; i++) {
      const { rows } = await pool.query(`SELECT status, failure_reason FROM order_messages WHERE order_id = $1 AND kind = 'buttons'`, [order.id]);
      if (rows[0].status === "failed") {
        expect(rows[0].failure_reason).toBe("send interrupted");
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const { rows } = await pool.query(`SELECT status FROM order_messages WHERE order_id = $1 AND kind = 'buttons'`, [order.id]);
    expect(rows[0].status).toBe("failed");
    expect(server.app.services.phones.all().filter((message) => message.orderId === order.id && message.kind === "buttons")).toHaveLength(shown);
    const conversation = (await shop.test.get(`/api/v1/orders/${order.id}/messages`)).body.data;
    expect(conversation.find((message: any) => message.kind === "buttons").status).toBe("failed");
  });
});
