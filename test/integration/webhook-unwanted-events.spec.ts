import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebhookDeliveryRepository } from "../../src/domain/webhooks/webhook-delivery.repository.ts";
import { orderInput } from "../support/fixtures.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { createEndpoint, insertEndpoint } from "../support/webhooks.ts";

/**
 * An order.created that no endpoint wants is stored already dispatched: the fan-out has nothing to do for it (no
 * lock, no rewrite of the event). One that an endpoint wants waits for the fan-out, as before. The service's own
 * dispatcher is stopped: what the create path stored is what is read, and the test runs the fan-out itself.
 * Nothing is sent (the endpoints' address is never called).
 */
const URL = "http://127.0.0.1:9/hook";

let server: TestServer;
let deliveries: WebhookDeliveryRepository;

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: "true" });
  await server.app.services.webhookDispatcher.stop();
  const { database } = server.app.services;
  deliveries = new WebhookDeliveryRepository(database.prisma, database.pool, database.prepareStatements);
});
afterAll(async () => {
  await server?.close();
});

/** Creates an order and reads its order.created: whether the fan-out still has to take it. */
async function createdEvent(shop: TestMerchant) {
  const response = await shop.test.post("/api/v1/orders", orderInput());
  expect(response.status, response.text).toBe(201);
  const { rows } = await server.app.services.database.pool.query<{ created_at: Date; dispatched_at: Date | null }>(
    "SELECT created_at, dispatched_at FROM order_events WHERE order_id = $1 AND type = 'order.created'",
    [response.body.id],
  );
  expect(rows).toHaveLength(1);
  return { orderId: response.body.id as string, ...rows[0] };
}

async function deliveredEvents(orderId: string): Promise<string[]> {
  const { rows } = await server.app.services.database.pool.query<{ event_type: string }>(
    "SELECT event_type FROM webhook_deliveries WHERE order_id = $1 ORDER BY event_sequence",
    [orderId],
  );
  return rows.map((row) => row.event_type);
}

/** Fans out everything queued (several passes: an order's later event waits for its earlier one). */
async function fanOutAll(): Promise<number> {
  let total = 0;
  for (;;) {
    const { events, heldBack } = await deliveries.fanOut(100, 5);
    total += events;
    if (events === 0 && !heldBack) return total;
  }
}

describe("an order.created", () => {
  it("no endpoint wants is stored dispatched: no endpoint, a live one only, a disabled one, one for other events", async () => {
    await fanOutAll();
    const none = await server.merchant("No Endpoint Shop");
    const liveOnly = await server.merchant("Live Endpoint Shop");
    await createEndpoint(liveOnly.live, { url: URL, events: ["order.created"] });
    const disabled = await server.merchant("Disabled Endpoint Shop");
    await insertEndpoint(server, disabled.id, { url: URL, mode: "test", events: ["order.created"], enabled: false });
    const otherEvents = await server.merchant("Other Events Shop");
    await createEndpoint(otherEvents.test, { url: URL, events: ["order.confirmed", "order.canceled"] });

    for (const shop of [none, liveOnly, disabled, otherEvents]) {
      const event = await createdEvent(shop);
      // Dispatched by the statement that wrote it, not by a fan-out afterwards.
      expect(event.dispatched_at?.getTime()).toBe(event.created_at.getTime());
      expect(await deliveredEvents(event.orderId)).toEqual([]);
    }
    // Nothing was left for the fan-out.
    expect(await fanOutAll()).toBe(0);
  });

  it("a test endpoint wants waits for the fan-out, which makes its delivery", async () => {
    const shop = await server.merchant("Wanted Shop");
    await createEndpoint(shop.test, { url: URL, events: ["order.created"] });
    const event = await createdEvent(shop);
    expect(event.dispatched_at).toBeNull();
    expect(await fanOutAll()).toBe(1);
    expect(await deliveredEvents(event.orderId)).toEqual(["order.created"]);
  });

  it("written before an endpoint was saved is not the endpoint's; the order's later events are", async () => {
    const shop = await server.merchant("Late Endpoint Shop");
    const event = await createdEvent(shop);
    expect(event.dispatched_at).not.toBeNull();
    await createEndpoint(shop.test, { url: URL, events: ["order.created", "order.canceled"] });
    expect((await shop.test.delete(`/api/v1/orders/${event.orderId}`)).status).toBe(200);
    expect(await fanOutAll()).toBe(1);
    expect(await deliveredEvents(event.orderId)).toEqual(["order.canceled"]);
  });
});
