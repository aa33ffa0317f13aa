import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Client } from "graphql-ws";
import { orderInput } from "../support/fixtures.ts";
import { asGraphQLOrder } from "../support/graphql.ts";
import { connectGraphQLWs, subscribe } from "../support/graphql-ws.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { createEndpoint } from "../support/webhooks.ts";

/**
 * SPEC §6: the subscription publishes exactly the webhook events. For the same customer taps and cancels, the
 * signed webhook a merchant's server verifies and the event a dashboard receives over graphql-ws carry the same
 * event name, the same timestamp and the same order data.
 */
describe("a webhook delivery and the subscription event for the same change carry identical data", () => {
  let server: TestServer;
  let shop: TestMerchant;
  let receiver: WebhookReceiver;
  let client: Client;

  beforeAll(async () => {
    server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: "true" });
    shop = await server.merchant("Parity Shop");
    receiver = await startWebhookReceiver();
    const endpoint = await createEndpoint(shop.test, { url: receiver.url("/hooks") });
    receiver.secret = endpoint.secret;
    client = connectGraphQLWs(server, shop.keys.test);
  });
  afterAll(async () => {
    await client?.dispose();
    await receiver?.close();
    await server?.close();
  });

  it.each([
    ["a tap on Approve", "approve", "order.confirmed"],
    ["a tap on Cancel", "cancel", "order.canceled"],
  ])("%s", async (_label, action, event) => {
    const created = await shop.test.post("/api/v1/orders", orderInput());
    expect(created.status).toBe(201);
    const orderId = created.body.id;
    const live = subscribe(client, { orderId });
    await vi.waitFor(() => expect(server.app.services.liveEvents.size).toBeGreaterThan(0), { timeout: 5_000 });

    expect((await shop.test.post(`/api/v1/test/orders/${orderId}/customer-action`, { action })).status).toBe(200);

    const [webhook] = await receiver.waitFor(1, (request) => request.body?.event === event && request.body.data.id === orderId);
    expect(webhook.verified).toBe(true);
    await vi.waitFor(() => expect(live.results.length).toBe(1), { timeout: 5_000 });
    const [subscribed] = live.events();
    live.unsubscribe();

    expect(subscribed.event).toBe(webhook.headers["x-webhook-event"]);
    expect(subscribed.event).toBe(webhook.body.event);
    expect(subscribed.timestamp).toBe(webhook.body.timestamp);
    // Same data field for field; only the enums are spelled the GraphQL way.
    expect(subscribed.order).toEqual(asGraphQLOrder(webhook.body.data));
    expect(Object.keys(subscribed.order).sort()).toEqual(Object.keys(webhook.body.data).sort());
    // Both are the outbox row: its id is the webhook-id, its payload the body.
    const [row] = (await server.outbox(orderId)).filter((candidate) => candidate.type === event);
    expect(webhook.headers["webhook-id"]).toBe(row.id);
    expect(webhook.body).toEqual(row.payload);
  });
});
