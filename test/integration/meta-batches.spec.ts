import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { orderInput } from "../support/fixtures.ts";
import { TEST_APP_SECRET, sendCallback } from "../support/meta-callbacks.ts";
import { megabytes as mb, settledMemory } from "../support/memory.ts";

/**
 * Issue 13, class 6: Meta's large notifications. A signed batch of 10,000 statuses (about 3 MB, what Meta sends
 * at most) is applied quickly with set-based statements and exactly as item-by-item application would; bodies
 * over 3 MiB are refused; and the JS heap returns to its level after many batches (no leak).
 */
const ORDERS = 200;

let server: TestServer;
let shop: TestMerchant;
let orders: { id: string; wamid: string }[] = [];

beforeAll(async () => {
  server = await startTestServer({ WHATSAPP_APP_SECRET: TEST_APP_SECRET });
  shop = await server.merchant("Batch Shop");
  for (let index = 0; index < ORDERS; index++) {
    const created = await shop.test.post("/api/v1/orders", orderInput());
    expect(created.status).toBe(201);
    orders.push({ id: created.body.id, wamid: "" });
  }
  const rows = await server.app.services.database.prisma.order.findMany({ where: { id: { in: orders.map((o) => o.id) } } });
  const byId = new Map(rows.map((row) => [row.id, row.providerMessageId!]));
  orders = orders.map((order) => ({ ...order, wamid: byId.get(order.id)! }));
}, 120_000);
afterAll(() => server?.close());

type Status = { id: string; status: string; timestamp: string; recipient_id: string; errors?: unknown[]; biz_opaque_callback_data?: string; [field: string]: unknown };

function notification(statuses: Status[]) {
  return {
    object: "whatsapp_business_account",
    entry: [{ id: "102290129340398", changes: [{ field: "messages", value: { messaging_product: "whatsapp", metadata: { display_phone_number: "15550783881", phone_number_id: "106540352242922" }, statuses } }] }],
  };
}

/** A status as Meta sends it (conversation and pricing included), about 270 bytes. */
const status = (id: string, value: string, extra: Partial<Status> = {}): Status => ({
  id,
  status: value,
  timestamp: "1750263773",
  recipient_id: "966501234567",
  ...(value === "sent" ? { conversation: { id: "CONVERSATION_ID", origin: { type: "utility" } } } : {}),
  pricing: { billable: true, pricing_model: "PMP", category: "utility", type: "regular" },
  ...extra,
});

const failure = [{ code: 131026, title: "Message undeliverable", message: "Message undeliverable", error_data: { details: "Message Undeliverable." } }];

function bigBatch(count: number, salt: string): Status[] {
  const statuses: Status[] = [];
  for (let index = 0; index < count; index++) {
    statuses.push(status(`wamid.HBgLMTY0NjcwNDM1OTUVAgARGBI${salt}${index.toString(36).padStart(8, "0")}AA==`, ["sent", "delivered", "read"][index % 3], { biz_opaque_callback_data: `campaign=${salt}` }));
  }
  return statuses;
}

describe("class 6: large Meta notifications", () => {
  it("10,000 statuses (~3 MB) in one notification: applied exactly, quickly", async () => {
    const statuses: Status[] = [];
    // Half the orders: sent → delivered → read (and a late `delivered` after `read`); the other half fail.
    orders.forEach((order, index) => {
      if (index % 2 === 0) {
        for (const value of ["sent", "delivered", "read", "delivered"]) statuses.push(status(order.wamid, value));
      } else {
        statuses.push(status(order.wamid, "sent"), status(order.wamid, "failed", { errors: failure }), status(order.wamid, "read"));
      }
    });
    statuses.push(...bigBatch(10_000 - statuses.length, "A"));
    const raw = JSON.stringify(notification(statuses));
    expect(raw.length).toBeGreaterThan(2_000_000);
    expect(raw.length).toBeLessThan(3 * 1024 * 1024);

    const response = await sendCallback(server.baseUrl, undefined, { rawBody: raw });
    expect(response.status, response.text).toBe(200);
    const again = await sendCallback(server.baseUrl, undefined, { rawBody: raw });
    expect(again.status).toBe(200);

    const prisma = server.app.services.database.prisma;
    const rows = await prisma.order.findMany({ where: { id: { in: orders.map((order) => order.id) } } });
    const byId = new Map(rows.map((row) => [row.id, row]));
    orders.forEach((order, index) => {
      const row = byId.get(order.id)!;
      if (index % 2 === 0) expect([row.status, row.deliveryStatus, row.errorCode]).toEqual(["pending", "read", null]);
      else expect([row.status, row.deliveryStatus, row.errorCode, row.failureReason]).toEqual(["failed", "failed", 131026, "Message undeliverable"]);
    });
    const failedEvents = await prisma.orderEvent.count({ where: { orderId: { in: orders.map((order) => order.id) }, type: "order.failed" } });
    expect(failedEvents).toBe(ORDERS / 2);
    // Every status of our messages is recorded once (the repeat found them all), unknown wamids are not.
    // (Ours by the set of our wamids: a random simulator wamid can contain any marker, e.g. "GBI", by chance.)
    const ours = new Set(orders.map((order) => order.wamid));
    expect(await prisma.providerEvent.count()).toBe(new Set(statuses.filter((s) => ours.has(s.id)).map((s) => `${s.id}:${s.status}`)).size);
    console.log(`batch of ${statuses.length} statuses (${(raw.length / 1e6).toFixed(2)} MB): ${Math.round(response.ms)} ms, repeated: ${Math.round(again.ms)} ms`);
    expect(response.ms).toBeLessThan(5_000);
  }, 60_000);

  it("a body over 3 MiB is refused with 413 before its signature is checked", async () => {
    const raw = JSON.stringify(notification(bigBatch(13_000, "B")));
    expect(raw.length).toBeGreaterThan(3 * 1024 * 1024);
    const response = await sendCallback(server.baseUrl, undefined, { rawBody: raw });
    expect(response.status).toBe(413);
  });

  it("the JS heap returns to its level after 40 notifications of 2,000 statuses (no leak)", async () => {
    const settle = settledMemory;
    const load = async (batches: number, salt: string) => {
      for (let batch = 0; batch < batches; batch++) {
        const statuses = [...bigBatch(1_900, `${salt}${batch}`), ...orders.slice(0, 100).map((order) => status(order.wamid, "read"))];
        const response = await sendCallback(server.baseUrl, notification(statuses));
        expect(response.status).toBe(200);
      }
    };
    await load(5, "W");
    const before = await settle();
    const started = performance.now();
    await load(40, "L");
    const ms = performance.now() - started;
    const after = await settle();
    console.log(
      `memory: 40 × 2,000 statuses in ${Math.round(ms)} ms (${Math.round(ms / 40)} ms each); heapUsed ${mb(before.heapUsed)} → ${mb(after.heapUsed)} MB, ` +
        `rss ${mb(before.rss)} → ${mb(after.rss)} MB, external ${mb(before.external)} → ${mb(after.external)} MB`,
    );
    expect(after.heapUsed - before.heapUsed).toBeLessThan(16 * 1024 * 1024);
  }, 300_000);
});
