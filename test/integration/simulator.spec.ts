import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { ORDER_FIELDS, orderInput } from "../support/fixtures.ts";

let server: TestServer;
let shop: TestMerchant;

beforeAll(async () => {
  server = await startTestServer();
  shop = await server.merchant();
});
afterAll(() => server?.close());

const ARABIC = /[\u0600-\u06FF]/;
const NOT_FOUND = { success: false, message: "Order not found", error: "NOT_FOUND" };

const outbox = (orderId: string) => server.outbox(orderId);
const eventTypes = async (orderId: string) => (await outbox(orderId)).map((event) => event.type);

async function place(overrides: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const response = await shop.test.post("/api/v1/orders", orderInput(overrides), { headers });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const delivery = (id: string, body: unknown, client = shop.test) => client.post(`/api/v1/test/orders/${id}/delivery`, body);
const tap = (id: string, action: unknown, client = shop.test) => client.post(`/api/v1/test/orders/${id}/customer-action`, { action });
const get = async (id: string) => (await shop.test.get(`/api/v1/orders/${id}`)).body;

/** A phone number no other test uses, so its conversation holds only this test's messages. */
let phoneCounter = 0;
const uniquePhone = () => `9665${String(Date.now() % 1e6).padStart(6, "0")}${String(phoneCounter++).padStart(2, "0")}`;

function expectValidationError(response: { status: number; body: any }, field: string) {
  expect(response.status).toBe(400);
  expect(response.body).toMatchObject({ success: false, error: "VALIDATION_ERROR", errorCode: null });
  expect(response.body.details.map((detail: { field: string }) => detail.field)).toEqual([field]);
}

function expectNotPending(response: { status: number; body: any }, status: string) {
  expect(response.status).toBe(409);
  expect(Object.keys(response.body)).toEqual(["success", "message", "error", "status"]);
  expect(response.body).toMatchObject({ success: false, error: "ORDER_NOT_PENDING", status });
}

describe("POST /api/v1/test/orders/{id}/delivery", () => {
  it("moves deliveryStatus forward: sent → delivered → read, with no events", async () => {
    const created = await place();
    const sent = await delivery(created.id, { status: "sent" });
    expect(sent.status).toBe(200);
    expect(Object.keys(sent.body)).toEqual(ORDER_FIELDS);
    expect(sent.body).toMatchObject({ status: "pending", deliveryStatus: "sent", customerAction: null });
    const delivered = await delivery(created.id, { status: "delivered" });
    expect(delivered.body).toMatchObject({ status: "pending", deliveryStatus: "delivered" });
    const read = await delivery(created.id, { status: "read" });
    expect(read.body).toMatchObject({ status: "pending", deliveryStatus: "read" });
    expect(await get(created.id)).toEqual(read.body);
    expect(await eventTypes(created.id)).toEqual(["order.created"]);
  });

  it("never regresses: a late delivered or sent after read changes nothing", async () => {
    const created = await place();
    const read = (await delivery(created.id, { status: "read" })).body;
    expect(read.deliveryStatus).toBe("read");
    for (const status of ["delivered", "sent", "read"]) {
      const late = await delivery(created.id, { status });
      expect(late.status).toBe(200);
      expect(late.body).toEqual(read);
    }
    const delivered = await place();
    await delivery(delivered.id, { status: "delivered" });
    expect((await delivery(delivered.id, { status: "sent" })).body.deliveryStatus).toBe("delivered");
    expect(await get(created.id)).toEqual(read);
  });

  it("failed while pending fails the order with errorCode, failureReason and order.failed", async () => {
    const created = await place();
    await delivery(created.id, { status: "sent" });
    const failed = await delivery(created.id, { status: "failed", errorCode: 131026 });
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({
      status: "failed",
      customerAction: null,
      deliveryStatus: "failed",
      errorCode: 131026,
      failureReason: "Message undeliverable",
    });
    expect(await get(created.id)).toEqual(failed.body);

    const events = await outbox(created.id);
    expect(events.map((event) => event.type)).toEqual(["order.created", "order.failed"]);
    const payload = events[1].payload as any;
    expect(payload.event).toBe("order.failed");
    expect(payload.data).toEqual(failed.body);
    expect(payload.data).toMatchObject({ status: "failed", deliveryStatus: "failed", failureReason: "Message undeliverable", errorCode: 131026 });
    expect(Object.keys(payload.data)).toEqual(ORDER_FIELDS);
  });

  it("passes other provider codes through unchanged", async () => {
    const created = await place();
    const failed = await delivery(created.id, { status: "failed", errorCode: 131047 });
    expect(failed.body).toMatchObject({ status: "failed", deliveryStatus: "failed", errorCode: 131047 });
    expect(typeof failed.body.failureReason).toBe("string");
    expect(failed.body.failureReason.length).toBeGreaterThan(0);
  });

  it("after failing, later reports change nothing and fire nothing", async () => {
    const created = await place();
    const failed = (await delivery(created.id, { status: "failed", errorCode: 131026 })).body;
    for (const body of [{ status: "read" }, { status: "delivered" }, { status: "failed", errorCode: 131049 }]) {
      const later = await delivery(created.id, body);
      expect(later.status).toBe(200);
      expect(later.body).toEqual(failed);
    }
    expect(await eventTypes(created.id)).toEqual(["order.created", "order.failed"]);
  });

  it("failed after the customer confirmed changes nothing", async () => {
    const created = await place();
    const confirmed = (await tap(created.id, "approve")).body;
    expect(confirmed).toMatchObject({ status: "confirmed", deliveryStatus: "read" });
    const late = await delivery(created.id, { status: "failed", errorCode: 131026 });
    expect(late.status).toBe(200);
    expect(late.body).toEqual(confirmed);
    expect(await get(created.id)).toEqual(confirmed);
    expect(await eventTypes(created.id)).toEqual(["order.created", "order.confirmed"]);
  });

  it("failed after a cancel through the API changes nothing", async () => {
    const created = await place();
    const canceled = (await shop.test.delete(`/api/v1/orders/${created.id}`)).body;
    const late = await delivery(created.id, { status: "failed", errorCode: 131026 });
    expect(late.status).toBe(200);
    expect(late.body).toEqual(canceled);
    expect(await eventTypes(created.id)).toEqual(["order.created", "order.canceled"]);
  });

  it.each([
    [{ status: "bounced" }, "status"],
    [{ status: "SENT" }, "status"],
    [{}, "status"],
    [{ status: "failed", errorCode: "131026" }, "errorCode"],
    [{ status: "failed", errorCode: -1 }, "errorCode"],
    [{ status: "failed", errorCode: 1.5 }, "errorCode"],
  ])("refuses %j with VALIDATION_ERROR", async (body, field) => {
    const created = await place();
    expectValidationError(await delivery(created.id, body), field);
    expect(await get(created.id)).toEqual(created);
  });
});

describe("POST /api/v1/test/orders/{id}/customer-action", () => {
  it("approve confirms with read and order.confirmed; cancel cancels with order.canceled", async () => {
    const a = await place();
    const approved = await tap(a.id, "approve");
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: "confirmed", customerAction: "approved", deliveryStatus: "read" });
    expect(await eventTypes(a.id)).toEqual(["order.created", "order.confirmed"]);

    const b = await place();
    const canceled = await tap(b.id, "cancel");
    expect(canceled.body).toMatchObject({ status: "canceled", customerAction: "canceled", deliveryStatus: "read" });
    const events = await outbox(b.id);
    expect(events.map((event) => event.type)).toEqual(["order.created", "order.canceled"]);
    expect((events[1].payload as any).data).toEqual(canceled.body);
  });

  it("refuses taps on confirmed and failed orders with 409 ORDER_NOT_PENDING, changing nothing", async () => {
    const confirmed = await place();
    const before = (await tap(confirmed.id, "approve")).body;
    expectNotPending(await tap(confirmed.id, "approve"), "confirmed");
    expectNotPending(await tap(confirmed.id, "cancel"), "confirmed");
    expect(await get(confirmed.id)).toEqual(before);
    expect(await eventTypes(confirmed.id)).toEqual(["order.created", "order.confirmed"]);

    const failed = await place();
    const failedBody = (await delivery(failed.id, { status: "failed", errorCode: 131026 })).body;
    expectNotPending(await tap(failed.id, "approve"), "failed");
    const ar = await shop.test.post(`/api/v1/test/orders/${failed.id}/customer-action`, { action: "cancel" }, { headers: { "accept-language": "ar" } });
    expectNotPending(ar, "failed");
    expect(ar.body.message).toMatch(ARABIC);
    expect(await get(failed.id)).toEqual(failedBody);
    expect(await eventTypes(failed.id)).toEqual(["order.created", "order.failed"]);
  });

  it("refuses taps on canceled orders with 409, firing nothing", async () => {
    const byCustomer = await place();
    await tap(byCustomer.id, "cancel");
    expectNotPending(await tap(byCustomer.id, "cancel"), "canceled");
    expectNotPending(await tap(byCustomer.id, "approve"), "canceled");
    expect(await eventTypes(byCustomer.id)).toEqual(["order.created", "order.canceled"]);

    const byMerchant = await place();
    await shop.test.delete(`/api/v1/orders/${byMerchant.id}`);
    expectNotPending(await tap(byMerchant.id, "approve"), "canceled");
    expect(await get(byMerchant.id)).toMatchObject({ status: "canceled", customerAction: "canceled" });
    expect(await eventTypes(byMerchant.id)).toEqual(["order.created", "order.canceled"]);
  });

  it("refuses a tap on an order rejected at creation", async () => {
    const phone = "999131030";
    expect((await shop.test.post("/api/v1/orders", orderInput({ customerPhone: phone }))).status).toBe(400);
    const [order] = (await shop.test.get(`/api/v1/orders?customerPhone=${phone}`)).body.data;
    expectNotPending(await tap(order.id, "approve"), "failed");
    expect(await outbox(order.id)).toEqual([]);
  });

  it.each([["confirm"], ["APPROVE"], [""], [null], [1]])("refuses action %j with VALIDATION_ERROR", async (action) => {
    const created = await place();
    expectValidationError(await tap(created.id, action), "action");
    expect(await get(created.id)).toEqual(created);
  });

  it("refuses an empty body", async () => {
    const created = await place();
    expectValidationError(await shop.test.post(`/api/v1/test/orders/${created.id}/customer-action`, {}), "action");
  });
});

describe("test endpoints: access", () => {
  it("answer 403 FORBIDDEN for a live-mode key, in en and ar, changing nothing", async () => {
    const created = await place();
    for (const [path, body] of [
      [`/api/v1/test/orders/${created.id}/customer-action`, { action: "approve" }],
      [`/api/v1/test/orders/${created.id}/delivery`, { status: "failed", errorCode: 131026 }],
      [`/api/v1/test/orders/${randomUUID()}/delivery`, { status: "read" }],
    ] as const) {
      const en = await shop.live.post(path, body);
      expect(en.status).toBe(403);
      expect(Object.keys(en.body)).toEqual(["success", "message", "error"]);
      expect(en.body).toMatchObject({ success: false, error: "FORBIDDEN" });
      const ar = await shop.live.post(path, body, { headers: { "accept-language": "ar" } });
      expect(ar.status).toBe(403);
      expect(ar.body.message).toMatch(ARABIC);
    }
    expect(await get(created.id)).toEqual(created);
    expect(await eventTypes(created.id)).toEqual(["order.created"]);
  });

  it("cannot drive a live-mode order even with the same merchant's test key", async () => {
    const input = orderInput();
    expect((await shop.live.post("/api/v1/orders", input)).status).toBe(502);
    const [order] = (await shop.live.get(`/api/v1/orders?externalOrderId=${input.externalOrderId}`)).body.data;
    expect(order.status).toBe("failed");
    expect((await tap(order.id, "approve")).body).toEqual(NOT_FOUND);
    expect((await delivery(order.id, { status: "read" })).body).toEqual(NOT_FOUND);
  });

  it("answer 404 for unknown, malformed and other merchants' orders", async () => {
    const created = await place();
    const other = await server.merchant("Other Shop");
    for (const response of [
      await tap(randomUUID(), "approve"),
      await tap("not-an-id", "approve"),
      await delivery("12345", { status: "read" }),
      await tap(created.id, "approve", other.test),
      await delivery(created.id, { status: "failed" }, other.test),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body).toEqual(NOT_FOUND);
    }
    expect(await get(created.id)).toEqual(created);
  });

  it("need an API key", async () => {
    const created = await place();
    const response = await server.api.post(`/api/v1/test/orders/${created.id}/customer-action`, { action: "approve" });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ success: false, error: "UNAUTHORIZED" });
  });
});

describe("the simulated phone", () => {
  it("receives the rendered English message with Approve / Cancel", async () => {
    const phone = uniquePhone();
    const created = await place({ customerPhone: phone, customerName: "Omar Farouk", externalOrderId: `SIM-${phone}` });
    const conversation = server.app.services.phones.conversation(phone);
    expect(conversation).toHaveLength(1);
    const [message] = conversation;
    expect(message).toMatchObject({ orderId: created.id, phone, language: "en", buttons: { approve: "Approve", cancel: "Cancel" } });
    expect(message.text).toContain("Omar Farouk");
    expect(message.text).toContain(`SIM-${phone}`);
    expect(message.text).toContain("Arabic coffee");
    expect(message.text).toContain("12 King Fahd Rd, Riyadh");
    expect(message.text).toContain("164.99");
    expect(message.text).not.toMatch(ARABIC);
    expect(message.text).not.toContain("Leave at the door");
    expect(message.id).toMatch(/^wamid\./);
  });

  it("receives Arabic text when the order was created with Accept-Language: ar", async () => {
    const phone = uniquePhone();
    const created = await place(
      { customerPhone: phone, customerName: "ليلى حسن", externalOrderId: `SIM-AR-${phone}` },
      { "accept-language": "ar-SA,ar;q=0.9,en;q=0.5" },
    );
    const [message, ...rest] = server.app.services.phones.conversation(phone);
    expect(rest).toEqual([]);
    expect(message).toMatchObject({ orderId: created.id, language: "ar", buttons: { approve: "تأكيد", cancel: "إلغاء" } });
    expect(message.text).toMatch(ARABIC);
    expect(message.text).toContain("ليلى حسن");
    expect(message.text).toContain(`SIM-AR-${phone}`);
    expect(message.text).toContain("المنتجات");
    expect(message.text).not.toContain("Hello");
  });

  it("keeps one conversation per phone, in order", async () => {
    const phone = uniquePhone();
    const first = await place({ customerPhone: phone });
    const second = await place({ customerPhone: phone }, { "accept-language": "ar" });
    expect(server.app.services.phones.conversation(phone).map((message) => [message.orderId, message.language])).toEqual([
      [first.id, "en"],
      [second.id, "ar"],
    ]);
  });

  it("receives nothing for orders rejected at creation or created in live mode", async () => {
    const before = server.app.services.phones.all().length;
    expect((await shop.test.post("/api/v1/orders", orderInput({ customerPhone: "999131026" }))).status).toBe(400);
    const phone = uniquePhone();
    expect((await shop.live.post("/api/v1/orders", orderInput({ customerPhone: phone }))).status).toBe(502);
    expect(server.app.services.phones.conversation("999131026")).toEqual([]);
    expect(server.app.services.phones.conversation(phone)).toEqual([]);
    expect(server.app.services.phones.all()).toHaveLength(before);
  });
});
