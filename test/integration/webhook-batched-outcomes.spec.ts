import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orderInput } from "../support/fixtures.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { createEndpoint, deliveriesOf, eventually } from "../support/webhooks.ts";

/**
 * Outcomes written in batches and deliveries claimed ahead (src/workers/webhook-attempt-recorder.ts,
 * webhook-dispatcher.ts) under a burst: many orders whose events are in flight together, each event failing its
 * first attempt. Per order, the later event still waits for the earlier one's outcome, and a retry carries the
 * same webhook-id.
 */
const ORDERS = 24;

let server: TestServer;
let shop: TestMerchant;
let receiver: WebhookReceiver;

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: "true", WEBHOOK_RETRY_SCHEDULE: "100ms", WEBHOOK_TIMEOUT_MS: "5000" });
  shop = await server.merchant();
  receiver = await startWebhookReceiver();
  receiver.secret = (await createEndpoint(shop.test, { url: receiver.url(), events: ["order.created", "order.canceled"] })).secret;
});
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

describe("a burst of deliveries with batched outcomes", () => {
  it("keeps each order's events in order and retries with the same webhook-id", async () => {
    // The first attempt of every event fails; the retry succeeds.
    const seen = new Set<string>();
    receiver.respond((request) => {
      const id = request.headers["webhook-id"];
      if (seen.has(id)) return { status: 200 };
      seen.add(id);
      return { status: 500 };
    });
    const orders = await Promise.all(Array.from({ length: ORDERS }, () => shop.test.post("/api/v1/orders", orderInput())));
    expect(orders.map((response) => response.status)).toEqual(Array(ORDERS).fill(201));
    const canceled = await Promise.all(orders.map((order) => shop.test.delete(`/api/v1/orders/${order.body.id}`)));
    expect(canceled.map((response) => response.status)).toEqual(Array(ORDERS).fill(200));

    const requests = await receiver.waitFor(ORDERS * 4, undefined, 30_000);
    for (const order of orders) {
      const mine = requests.filter((request) => request.body?.data?.id === order.body.id);
      expect(mine.map((request) => [request.headers["x-webhook-event"], request.verified])).toEqual([
        ["order.created", true],
        ["order.created", true],
        ["order.canceled", true],
        ["order.canceled", true],
      ]);
      expect(mine[1].headers["webhook-id"]).toBe(mine[0].headers["webhook-id"]);
      expect(mine[3].headers["webhook-id"]).toBe(mine[2].headers["webhook-id"]);
      expect(mine[2].headers["webhook-id"]).not.toBe(mine[0].headers["webhook-id"]);
      expect(mine[1].rawBody).toBe(mine[0].rawBody);
      // The canceled event went out only after the created one's success was recorded.
      const rows = await eventually(
        () => deliveriesOf(server, order.body.id),
        (all) => all.length === 2 && all.every((row) => row.status === "succeeded"),
      );
      for (const row of rows) {
        expect(row.attempts.map((attempt) => attempt.statusCode)).toEqual([500, 200]);
        expect(row.leaseUntil).toBeNull();
      }
      expect(mine[2].receivedAt).toBeGreaterThanOrEqual(rows[0].attempts[1].attemptedAt.getTime());
    }
    // Nothing more than one retry each.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests).toHaveLength(ORDERS * 4);
  });
});
