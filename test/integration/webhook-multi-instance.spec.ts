import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type RunningApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { ApiClient } from "../support/api.ts";
import { usingPostgres } from "../support/database.ts";
import { orderInput } from "../support/fixtures.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { createEndpoint } from "../support/webhooks.ts";

/**
 * SPEC §7 for webhooks: several instances on one PostgreSQL share the outbox. Claims lock with SKIP LOCKED and
 * lease in the same statement, so each event reaches each endpoint exactly once when every attempt succeeds,
 * and in order per order. (PGlite is one process's database: this runs on PostgreSQL only.)
 */
const ENV = { WEBHOOK_ALLOW_PRIVATE_URLS: "true", WEBHOOK_RETRY_SCHEDULE: "200ms", WEBHOOK_TIMEOUT_MS: "5000" };
const ORDERS = 30;

let first: TestServer;
let second: RunningApp;
let secondApi: ApiClient;
let shop: TestMerchant;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  if (!usingPostgres) return;
  first = await startTestServer(ENV);
  const config = loadConfig({ HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "silent", ...ENV });
  config.database = { kind: "postgres", url: first.app.services.database.url };
  second = await createApp(config, { logger: pino({ level: "silent" }) });
  secondApi = new ApiClient(await second.http.listen({ port: 0, host: "127.0.0.1" }));
  shop = await first.merchant();
});

afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await second?.close();
  await first?.close();
});

describe.skipIf(!usingPostgres)("two instances on one database", () => {
  it("attempt each (event, endpoint) exactly once, in order per order", async () => {
    for (let i = 0; i < 2; i++) {
      const receiver = await startWebhookReceiver();
      // Small random delays keep several attempts in flight on both instances at once.
      receiver.respond(() => ({ status: 200, delayMs: Math.floor(Math.random() * 30) }));
      receiver.secret = (await createEndpoint(shop.test, { url: receiver.url(`/r${i}`) })).secret;
      receivers.push(receiver);
    }
    const clients = [shop.test, secondApi.withKey(shop.keys.test)];
    const orderIds: string[] = [];
    await Promise.all(
      Array.from({ length: ORDERS }, async (_, i) => {
        const client = clients[i % 2];
        const created = await client.post("/api/v1/orders", orderInput());
        expect(created.status).toBe(201);
        orderIds.push(created.body.id);
        // Half are canceled through the other instance: two events per order, which must arrive in order.
        if (i % 2 === 0) expect((await clients[(i + 1) % 2].delete(`/api/v1/orders/${created.body.id}`)).status).toBe(200);
      }),
    );
    const expected = ORDERS + ORDERS / 2;
    for (const receiver of receivers) await receiver.waitFor(expected, undefined, 30_000);
    // Anything duplicated would arrive within the poll interval and a few attempts' time.
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    for (const receiver of receivers) {
      const requests = receiver.requests;
      expect(requests).toHaveLength(expected);
      expect(requests.every((request) => request.verified === true)).toBe(true);
      expect(new Set(requests.map((request) => request.headers["webhook-id"])).size).toBe(expected);
      const byOrder = new Map<string, ReceivedWebhook[]>();
      for (const request of requests) byOrder.set(request.body.data.id, [...(byOrder.get(request.body.data.id) ?? []), request]);
      expect(new Set(byOrder.keys())).toEqual(new Set(orderIds));
      for (const events of byOrder.values()) {
        expect(events[0].headers["x-webhook-event"]).toBe("order.created");
        if (events.length === 2) expect(events[1].headers["x-webhook-event"]).toBe("order.canceled");
      }
    }

    // Attempts made, counted by both instances together: exactly one per (event, endpoint).
    const attempts = async (app: RunningApp) =>
      (await app.services.metrics.webhookAttempts.get()).values.reduce((sum, value) => sum + value.value, 0);
    const [byFirst, bySecond] = [await attempts(first.app), await attempts(second)];
    expect(byFirst + bySecond).toBe(expected * receivers.length);
    // Both took part (each is woken by the events written through it).
    expect(byFirst).toBeGreaterThan(0);
    expect(bySecond).toBeGreaterThan(0);
  });
});
