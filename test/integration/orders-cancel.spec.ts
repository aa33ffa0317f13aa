import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { ISO_MS, ORDER_FIELDS, orderInput } from "../support/fixtures.ts";

let server: TestServer;
let shop: TestMerchant;

beforeAll(async () => {
  server = await startTestServer();
  shop = await server.merchant();
});
afterAll(() => server?.close());

const outbox = (orderId: string) => server.outbox(orderId);

async function place(overrides: Record<string, unknown> = {}) {
  const response = await shop.test.post("/api/v1/orders", orderInput(overrides));
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const NOT_FOUND = { success: false, message: "Order not found", error: "NOT_FOUND" };
const ARABIC = /[\u0600-\u06FF]/;

function expectNotPending(response: { status: number; body: any }, status: string) {
  expect(response.status).toBe(409);
  expect(Object.keys(response.body)).toEqual(["success", "message", "error", "status"]);
  expect(response.body).toMatchObject({ success: false, error: "ORDER_NOT_PENDING", status });
  expect(typeof response.body.message).toBe("string");
  expect(response.body.message.length).toBeGreaterThan(0);
}

describe("DELETE /api/v1/orders/{id}", () => {
  it("cancels a pending order: 200, canceled/canceled, and order.canceled carrying the response", async () => {
    const created = await place();
    const response = await shop.test.delete(`/api/v1/orders/${created.id}`);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(ORDER_FIELDS);
    expect(response.body).toEqual({
      ...created,
      status: "canceled",
      customerAction: "canceled",
      updatedAt: response.body.updatedAt,
    });
    expect(response.body.updatedAt).toMatch(ISO_MS);
    expect(response.body.updatedAt >= created.updatedAt).toBe(true);

    const events = await outbox(created.id);
    expect(events.map((event) => event.type)).toEqual(["order.created", "order.canceled"]);
    const payload = events[1].payload as any;
    expect(Object.keys(payload)).toEqual(["event", "timestamp", "data"]);
    expect(payload.event).toBe("order.canceled");
    expect(payload.timestamp).toMatch(ISO_MS);
    expect(payload.data).toEqual(response.body);
    expect(payload.timestamp).toBe(response.body.updatedAt);

    expect((await shop.test.get(`/api/v1/orders/${created.id}`)).body).toEqual(response.body);
  });

  it("is idempotent: a second DELETE answers 200 with the order unchanged and fires no second event", async () => {
    const created = await place();
    const first = await shop.test.delete(`/api/v1/orders/${created.id}`);
    const second = await shop.test.delete(`/api/v1/orders/${created.id}`);
    const third = await shop.test.delete(`/api/v1/orders/${created.id}`, { headers: { "accept-language": "ar" } });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(third.status).toBe(200);
    expect(third.body).toEqual(first.body);
    expect((await outbox(created.id)).map((event) => event.type)).toEqual(["order.created", "order.canceled"]);
  });

  it("treats an order canceled by the customer as already canceled", async () => {
    const created = await place();
    const tapped = await shop.test.post(`/api/v1/test/orders/${created.id}/customer-action`, { action: "cancel" });
    expect(tapped.status).toBe(200);
    const response = await shop.test.delete(`/api/v1/orders/${created.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(tapped.body);
    expect((await outbox(created.id)).map((event) => event.type)).toEqual(["order.created", "order.canceled"]);
  });

  it("refuses to cancel a confirmed order: 409 ORDER_NOT_PENDING with its status, in en and ar", async () => {
    const created = await place();
    const confirmed = await shop.test.post(`/api/v1/test/orders/${created.id}/customer-action`, { action: "approve" });
    expect(confirmed.body.status).toBe("confirmed");

    const en = await shop.test.delete(`/api/v1/orders/${created.id}`);
    expectNotPending(en, "confirmed");
    expect(en.headers.get("content-language")).toBe("en");
    expect(en.body.message).not.toMatch(ARABIC);

    const ar = await shop.test.delete(`/api/v1/orders/${created.id}`, { headers: { "accept-language": "ar-EG" } });
    expectNotPending(ar, "confirmed");
    expect(ar.headers.get("content-language")).toBe("ar");
    expect(ar.body.message).toMatch(ARABIC);
    expect(ar.body.message).not.toBe(en.body.message);

    expect((await shop.test.get(`/api/v1/orders/${created.id}`)).body).toEqual(confirmed.body);
    expect((await outbox(created.id)).map((event) => event.type)).toEqual(["order.created", "order.confirmed"]);
  });

  it("refuses to cancel an order whose delivery failed", async () => {
    const created = await place();
    const failed = await shop.test.post(`/api/v1/test/orders/${created.id}/delivery`, { status: "failed", errorCode: 131026 });
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ status: "failed", deliveryStatus: "failed", errorCode: 131026 });

    expectNotPending(await shop.test.delete(`/api/v1/orders/${created.id}`), "failed");
    const ar = await shop.test.delete(`/api/v1/orders/${created.id}`, { headers: { "accept-language": "ar" } });
    expectNotPending(ar, "failed");
    expect(ar.body.message).toMatch(ARABIC);

    expect((await shop.test.get(`/api/v1/orders/${created.id}`)).body).toEqual(failed.body);
    expect((await outbox(created.id)).map((event) => event.type)).toEqual(["order.created", "order.failed"]);
  });

  it("refuses to cancel an order the provider rejected at creation", async () => {
    const rejected = await shop.test.post("/api/v1/orders", orderInput({ customerPhone: "999131030" }));
    expect(rejected.status).toBe(400);
    const [order] = (await shop.test.get("/api/v1/orders?customerPhone=999131030")).body.data;
    expect(order.status).toBe("failed");
    expectNotPending(await shop.test.delete(`/api/v1/orders/${order.id}`), "failed");
    expect(await outbox(order.id)).toEqual([]);
  });

  it("answers 404 NOT_FOUND with the seed's exact body for unknown and malformed ids", async () => {
    const ids = [
      randomUUID(),
      "0192f3a4-5b6c-7d8e-9f00-112233445566",
      "not-an-id",
      "123",
      "0192f3a4-5b6c-7d8e-9f00-11223344556g",
      "0192f3a45b6c7d8e9f00112233445566",
      "x".repeat(500),
      encodeURIComponent("' OR 1=1 --"),
      "%zz",
      "%E0%A4%A",
    ];
    for (const id of ids) {
      const response = await shop.test.delete(`/api/v1/orders/${id}`);
      expect(response.status, id).toBe(404);
      expect(response.body).toEqual(NOT_FOUND);
      expect(response.headers.get("x-request-id")).toBeTruthy();
      expect((await shop.test.get(`/api/v1/orders/${id}`)).body).toEqual(NOT_FOUND);
    }
    const ar = await shop.test.delete(`/api/v1/orders/${randomUUID()}`, { headers: { "accept-language": "ar" } });
    expect(ar.status).toBe(404);
    expect(Object.keys(ar.body)).toEqual(["success", "message", "error"]);
    expect(ar.body).toMatchObject({ success: false, error: "NOT_FOUND" });
    expect(ar.body.message).toMatch(ARABIC);
  });

  it("answers 404 for another merchant's order and for the other mode, changing nothing", async () => {
    const created = await place();
    const other = await server.merchant("Other Shop");
    expect((await other.test.delete(`/api/v1/orders/${created.id}`)).body).toEqual(NOT_FOUND);
    expect((await other.live.delete(`/api/v1/orders/${created.id}`)).body).toEqual(NOT_FOUND);
    expect((await shop.live.delete(`/api/v1/orders/${created.id}`)).body).toEqual(NOT_FOUND);
    expect((await shop.test.get(`/api/v1/orders/${created.id}`)).body).toEqual(created);
    expect((await outbox(created.id)).map((event) => event.type)).toEqual(["order.created"]);
  });

  it("needs an API key", async () => {
    const created = await place();
    const response = await server.api.delete(`/api/v1/orders/${created.id}`);
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ success: false, error: "UNAUTHORIZED" });
    expect((await shop.test.get(`/api/v1/orders/${created.id}`)).body.status).toBe("pending");
  });
});

describe("concurrent cancel", () => {
  it("a DELETE racing an Approve tap: exactly one wins, one terminal event, responses agree with the end state", async () => {
    const orders = await Promise.all(Array.from({ length: 20 }, () => place()));
    const results = await Promise.all(
      orders.map(async (order) => {
        const [cancel, tap] = await Promise.all([
          shop.test.delete(`/api/v1/orders/${order.id}`),
          shop.test.post(`/api/v1/test/orders/${order.id}/customer-action`, { action: "approve" }),
        ]);
        return { order, cancel, tap };
      }),
    );

    const winners = { canceled: 0, confirmed: 0 };
    for (const { order, cancel, tap } of results) {
      const final = (await shop.test.get(`/api/v1/orders/${order.id}`)).body;
      expect(["canceled", "confirmed"]).toContain(final.status);
      const events = await outbox(order.id);
      expect(events.map((event) => event.type)).toEqual(["order.created", `order.${final.status}`]);
      const terminal = (events[1].payload as any).data;

      if (final.status === "canceled") {
        winners.canceled++;
        expect(final.customerAction).toBe("canceled");
        expect(cancel.status).toBe(200);
        expect(cancel.body).toEqual(terminal);
        expectNotPending(tap, "canceled");
      } else {
        winners.confirmed++;
        expect(final.customerAction).toBe("approved");
        expect(tap.status).toBe(200);
        expect(tap.body).toEqual(terminal);
        expect(tap.body).toEqual(final);
        expectNotPending(cancel, "confirmed");
      }
    }
    expect(winners.canceled + winners.confirmed).toBe(20);
  });

  it("5 parallel DELETEs on one order: all 200 with the same canceled order, one order.canceled", async () => {
    for (let round = 0; round < 3; round++) {
      const order = await place();
      const responses = await Promise.all(Array.from({ length: 5 }, () => shop.test.delete(`/api/v1/orders/${order.id}`)));
      for (const response of responses) {
        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({ id: order.id, status: "canceled", customerAction: "canceled" });
        expect(response.body).toEqual(responses[0].body);
      }
      const events = await outbox(order.id);
      expect(events.map((event) => event.type)).toEqual(["order.created", "order.canceled"]);
      expect((events[1].payload as any).data).toEqual(responses[0].body);
      expect((await shop.test.get(`/api/v1/orders/${order.id}`)).body).toEqual(responses[0].body);
    }
  });

  it("parallel DELETEs and taps of both kinds on many orders still end with one terminal event each", async () => {
    const orders = await Promise.all(Array.from({ length: 10 }, () => place()));
    await Promise.all(
      orders.flatMap((order) => [
        shop.test.delete(`/api/v1/orders/${order.id}`),
        shop.test.post(`/api/v1/test/orders/${order.id}/customer-action`, { action: "approve" }),
        shop.test.post(`/api/v1/test/orders/${order.id}/customer-action`, { action: "cancel" }),
        shop.test.delete(`/api/v1/orders/${order.id}`),
      ]),
    );
    for (const order of orders) {
      const final = (await shop.test.get(`/api/v1/orders/${order.id}`)).body;
      const events = await outbox(order.id);
      expect(events.map((event) => event.type)).toEqual(["order.created", `order.${final.status}`]);
      expect(final.customerAction).toBe(final.status === "confirmed" ? "approved" : "canceled");
    }
  });
});

describe("DELETE from clients that always send Content-Type: application/json", () => {
  it("cancels with an empty body", async () => {
    const order = (await shop.test.post("/api/v1/orders", orderInput())).body;
    const response = await shop.test.delete(`/api/v1/orders/${order.id}`, { headers: { "content-type": "application/json" }, rawBody: "" });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: order.id, status: "canceled", customerAction: "canceled" });
  });
});
