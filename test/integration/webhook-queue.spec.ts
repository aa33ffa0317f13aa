import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orderInput } from "../support/fixtures.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { createEndpoint, eventually } from "../support/webhooks.ts";

/** The delivery queue as operators and merchants see it: a retry during an attempt, and the lag gauges. */
let server: TestServer;
let shop: TestMerchant;
let receiver: WebhookReceiver;

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: "true", WEBHOOK_RETRY_SCHEDULE: "1h", WEBHOOK_TIMEOUT_MS: "5000" });
  shop = await server.merchant();
  receiver = await startWebhookReceiver();
  const endpoint = await createEndpoint(shop.test, { url: receiver.url() });
  receiver.secret = endpoint.secret;
});
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

const metric = async (name: string) => {
  const text = (await server.api.get("/metrics")).text;
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(" ")[1]);
};

describe("the delivery queue", () => {
  it("a retry asked while the attempt is under way leaves it alone: that attempt is the redelivery", async () => {
    receiver.respond(() => ({ hang: true }));
    const order = (await shop.test.post("/api/v1/orders", orderInput())).body;
    await eventually(async () => receiver.hanging, (hanging) => hanging === 1);
    const [delivery] = (await shop.test.get(`/api/v1/webhook-deliveries?orderId=${order.id}`)).body.data;
    expect(await metric("webhook_deliveries_due")).toBe(1);

    const retried = await shop.test.post(`/api/v1/webhook-deliveries/${delivery.id}/retry`);
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ id: delivery.id, status: "pending", attempts: [] });

    receiver.respond(() => ({ status: 503 }));
    receiver.release(503);
    // The failed attempt is followed by the schedule's retry in an hour, not by a second attempt now.
    const after = await eventually(
      () => shop.test.get(`/api/v1/webhook-deliveries/${delivery.id}`),
      (got) => got.body.attempts.length === 1,
    );
    expect(after.body).toMatchObject({ status: "pending", attempts: [{ statusCode: 503 }] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests).toHaveLength(1);
    // Gauges are cached up to 10 s (GAUGE_CACHE_MS): the queue shows empty once the cached answer expired.
    await expect.poll(() => metric("webhook_deliveries_due"), { timeout: 15_000, interval: 500 }).toBe(0);

    // Now nothing is under way: a retry makes the attempt at once.
    receiver.respond(() => ({ status: 200 }));
    expect((await shop.test.post(`/api/v1/webhook-deliveries/${delivery.id}/retry`)).status).toBe(202);
    const done = await eventually(
      () => shop.test.get(`/api/v1/webhook-deliveries/${delivery.id}`),
      (got) => got.body.status === "succeeded",
    );
    expect(done.body.attempts.map((attempt: any) => attempt.statusCode)).toEqual([503, 200]);
  });

  it("reports the age of outbox events nobody fanned out (a stalled dispatcher) in /metrics", async () => {
    expect(await metric("webhook_outbox_oldest_undispatched_seconds")).toBe(0);
    await server.app.services.webhookDispatcher.stop();
    await shop.test.post("/api/v1/orders", orderInput());
    // The gauges are read at most every 10 s (GAUGE_CACHE_MS, SPEC §14: scrapes stay cheap): the age shows once the
    // cached answer has expired.
    await expect.poll(() => metric("webhook_outbox_oldest_undispatched_seconds"), { timeout: 15_000, interval: 500 }).toBeGreaterThanOrEqual(1);
    expect(await metric("webhook_queue_oldest_due_seconds")).toBe(0);
  });
});
