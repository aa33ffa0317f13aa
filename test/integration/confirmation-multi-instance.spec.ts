import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type RunningApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { usingPostgres } from "../support/database.ts";
import { FakeWhatsApp, reply } from "../support/fake-whatsapp.ts";
import { orderInput } from "../support/fixtures.ts";
import { TEST_APP_SECRET } from "../support/meta-callbacks.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { eventually } from "../support/webhooks.ts";

/**
 * SPEC §9 on several instances (SPEC §7): two instances on one PostgreSQL share the schedule. Claims are
 * SKIP LOCKED with a lease and the send decision is taken under the order's lock, so each reminder goes out
 * exactly once, and the shared token bucket keeps both together under WHATSAPP_MAX_SENDS_PER_SECOND.
 * (PGlite is one process's database: this runs on PostgreSQL only.)
 */
const ORDERS = 40;
const RATE = 40;

let fake: FakeWhatsApp;
let first: TestServer;
let second: RunningApp;
let shop: TestMerchant;

beforeAll(async () => {
  if (!usingPostgres) return;
  fake = await FakeWhatsApp.start();
  const env = {
    CONFIRMATION_MIN_DELAY: "1s",
    WHATSAPP_MAX_SENDS_PER_SECOND: String(RATE),
    WHATSAPP_API_URL: fake.apiUrl,
    WHATSAPP_PHONE_NUMBER_ID: "271828182845904",
    WHATSAPP_ACCESS_TOKEN: "EAAG-test-token",
    WHATSAPP_APP_SECRET: TEST_APP_SECRET,
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
  await fake?.close();
});

const sentBy = async (app: RunningApp) =>
  (await app.services.metrics.remindersSent.get()).values.find((value) => value.labels.outcome === "sent")?.value ?? 0;

describe.skipIf(!usingPostgres)("two instances on one database", () => {
  it("send each reminder exactly once, together within the configured rate", async () => {
    // Far enough apart that every first reminder is out before the second falls due (a due later reminder
    // supersedes an earlier one still waiting).
    expect((await shop.live.put("/api/v1/confirmation-policy", { reminders: ["1s", "5s"] })).status).toBe(200);
    const phones = Array.from({ length: ORDERS }, (_, index) => `4477009004${String(index).padStart(2, "0")}`);
    // A little latency at the provider keeps sends of both instances in flight at once.
    for (const phone of phones) fake.forRecipient(`+${phone}`, reply.success(), reply.delay(20));
    await Promise.all(phones.map((phone) => shop.live.post("/api/v1/orders", orderInput({ customerPhone: phone }))));
    const reminders = () => fake.requests.filter((request) => request.body?.template?.name === "order_confirmation_reminder");
    await eventually(async () => reminders().length, (count) => count >= ORDERS * 2, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 500));

    const perOrder = new Map<string, number>();
    for (const request of reminders()) {
      const key = request.body.biz_opaque_callback_data as string;
      perOrder.set(key, (perOrder.get(key) ?? 0) + 1);
    }
    expect(perOrder.size).toBe(ORDERS * 2);
    expect([...perOrder.values()].every((count) => count === 1)).toBe(true);

    const [a, b] = [await sentBy(first.app), await sentBy(second)];
    expect(a + b).toBe(ORDERS * 2);
    expect(a).toBeGreaterThan(0);
    expect(b).toBeGreaterThan(0);

    // Both instances together stayed within the rate (a token bucket of 100 ms of sends, refilled at RATE/s).
    const times = reminders().map((request) => request.at).sort((x, y) => x - y);
    for (let i = 0; i + RATE < times.length; i++) {
      const windowMs = times[i + RATE] - times[i];
      expect(windowMs).toBeGreaterThanOrEqual(950);
    }
  });
});
