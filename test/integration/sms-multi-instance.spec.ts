import { randomBytes } from "node:crypto";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp, type RunningApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { usingPostgres } from "../support/database.ts";
import { FakeWhatsApp } from "../support/fake-whatsapp.ts";
import { FakeTwilio } from "../support/fake-twilio.ts";
import { orderInput } from "../support/fixtures.ts";
import { TEST_APP_SECRET, sendCallback, statusCallback } from "../support/meta-callbacks.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { eventually } from "../support/webhooks.ts";

/**
 * Two instances on one PostgreSQL database share the SMS outbox (SPEC §12): every fallback SMS is sent exactly
 * once, whichever instance claims it. PostgreSQL only: an embedded PGlite database belongs to one process.
 */
vi.setConfig({ testTimeout: 90_000 });
const ORDERS = 40;

let whatsapp: FakeWhatsApp;
let twilio: FakeTwilio;
let first: TestServer;
let second: RunningApp;
let shop: TestMerchant;

beforeAll(async () => {
  if (!usingPostgres) return;
  whatsapp = await FakeWhatsApp.start();
  twilio = await FakeTwilio.start();
  const env = {
    ...twilio.env,
    WHATSAPP_API_URL: whatsapp.apiUrl,
    WHATSAPP_PHONE_NUMBER_ID: "271828182845904",
    WHATSAPP_ACCESS_TOKEN: "EAAG-test-token",
    WHATSAPP_APP_SECRET: TEST_APP_SECRET,
    // Both instances must derive the same page links.
    SECRETS_KEY: randomBytes(32).toString("base64"),
  };
  first = await startTestServer(env);
  const config = loadConfig({ HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "silent", ...env });
  config.database = { kind: "postgres", url: first.app.services.database.url };
  second = await createApp(config, { logger: pino({ level: "silent" }) });
  shop = await first.merchant();
});

afterAll(async () => {
  await second?.close();
  await first?.close();
  await twilio?.close();
  await whatsapp?.close();
});

describe.skipIf(!usingPostgres)("two instances on one database", () => {
  it("send each fallback SMS exactly once", async () => {
    await shop.live.put("/api/v1/confirmation-policy", { smsFallback: { errorCodes: [131026] } });
    twilio.delayMs = 50;
    const phones = Array.from({ length: ORDERS }, (_, index) => `4477009005${String(index).padStart(2, "0")}`);
    const orders: { id: string; wamid: string }[] = [];
    for (const phone of phones) {
      const response = await shop.live.post("/api/v1/orders", orderInput({ customerPhone: phone }));
      expect(response.status).toBe(201);
      orders.push({ id: response.body.id, wamid: whatsapp.requestsTo(phone).at(-1)!.response.messages[0].id });
    }
    // Half the failures reach each instance, in one notification each.
    const secondUrl = await second.http.listen({ port: 0, host: "127.0.0.1" });
    for (const [index, url] of [first.baseUrl, secondUrl].entries()) {
      const half = orders.filter((_, n) => n % 2 === index);
      const batch = statusCallback(half[0].wamid, "failed", { orderId: half[0].id });
      const template = batch.entry[0].changes[0].value.statuses[0];
      batch.entry[0].changes[0].value.statuses = half.map((order) => ({ ...template, id: order.wamid, biz_opaque_callback_data: `order=${order.id}` }));
      expect((await sendCallback(url, batch)).status).toBe(200);
    }
    await eventually(async () => twilio.messages.length, (count) => count >= ORDERS, 60_000);
    // A moment for any duplicate to show up.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (const phone of phones) expect(twilio.messagesTo(phone)).toHaveLength(1);
    expect(twilio.requests).toHaveLength(ORDERS);
    const { rows } = await first.app.services.database.pool.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM order_timeline WHERE kind = 'sms_sent' AND order_id = ANY($1::uuid[])`,
      [orders.map((order) => order.id)],
    );
    expect(rows[0].count).toBe(ORDERS);
  });
});
