import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orderInput } from "../support/fixtures.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { eventually } from "../support/webhooks.ts";

/**
 * A backlog of paced reminders (SPEC §9, WHATSAPP_MAX_SENDS_PER_SECOND) holds nothing else up: an order's expiry
 * falling due while reminders are still being sent happens on time, and the backlog keeps its pace.
 */
let server: TestServer;
let reminding: TestMerchant;
let expiring: TestMerchant;

beforeAll(async () => {
  server = await startTestServer({ CONFIRMATION_MIN_DELAY: "1s", WHATSAPP_MAX_SENDS_PER_SECOND: "2" });
  reminding = await server.merchant("Reminding Shop");
  expiring = await server.merchant("Expiring Shop");
});
afterAll(() => server?.close());

const remindersSent = async (orders: string[]) => {
  const rows = await server.app.services.database.prisma.orderTask.findMany({ where: { orderId: { in: orders }, state: "sent" } });
  return rows.length;
};

describe("a paced backlog of reminders", () => {
  it("does not delay an expiry falling due meanwhile, and keeps to its rate", async () => {
    expect((await reminding.test.put("/api/v1/confirmation-policy", { reminders: ["1s"] })).status).toBe(200);
    expect((await expiring.test.put("/api/v1/confirmation-policy", { expireAfter: "2s" })).status).toBe(200);
    const backlog: string[] = [];
    for (let i = 0; i < 8; i++) backlog.push((await reminding.test.post("/api/v1/orders", orderInput())).body.id);
    const order = (await expiring.test.post("/api/v1/orders", orderInput())).body;
    const createdAt = Date.parse(order.createdAt);

    const expired = await eventually(() => expiring.test.get(`/api/v1/orders/${order.id}`), (response) => response.body.status === "expired", 10_000);
    expect(Date.parse(expired.body.updatedAt) - createdAt).toBeLessThan(5_000);
    // At 2 per second (a token of burst, then one per second), 8 reminders due at once take about 7 s: the
    // backlog is still being worked.
    expect(await remindersSent(backlog)).toBeLessThan(8);
    await eventually(() => remindersSent(backlog), (count) => count === 8, 15_000);
    const sentAt = (await server.app.services.database.prisma.orderTask.findMany({ where: { orderId: { in: backlog } } }))
      .map((task) => task.finishedAt!.getTime())
      .sort((a, b) => a - b);
    expect(sentAt.at(-1)! - sentAt[0]).toBeGreaterThanOrEqual(5_000);
  });

  it("sends only the latest of an order's reminders that are due together (after a backlog)", async () => {
    const merchant = await server.merchant("Catching-up Shop");
    expect((await merchant.test.put("/api/v1/confirmation-policy", { reminders: ["1s", "2s"] })).status).toBe(200);
    const orders: string[] = [];
    for (let i = 0; i < 6; i++) orders.push((await merchant.test.post("/api/v1/orders", orderInput())).body.id);
    const tasks = () => server.app.services.database.prisma.orderTask.findMany({ where: { orderId: { in: orders } } });
    // At 2 per second, 12 reminders falling due within a second of each other cannot all go out in time.
    const settled = await eventually(tasks, (rows) => rows.every((row) => row.state === "sent" || row.state === "skipped"), 20_000);
    const skipped = settled.filter((row) => row.state === "skipped");
    expect(skipped.length).toBeGreaterThan(0);
    for (const first of skipped) {
      expect(first.position).toBe(1);
      expect(settled.find((row) => row.orderId === first.orderId && row.position === 2)?.state).toBe("sent");
    }
    // Every order got at least one reminder, and no order more than one per reminder.
    for (const orderId of orders) expect(settled.some((row) => row.orderId === orderId && row.state === "sent")).toBe(true);
  });
});
