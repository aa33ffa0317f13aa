import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { ISO_MS, ITEM_FIELDS, ORDER_FIELDS, orderInput } from "../support/fixtures.ts";

let server: TestServer;
let shop: TestMerchant;

beforeAll(async () => {
  server = await startTestServer();
  shop = await server.merchant();
});
afterAll(() => server?.close());

const outbox = (orderId: string) => server.outbox(orderId);

describe("create → simulator approve → GET", () => {
  it("creates a pending order with the seed's exact fields and JSON types", async () => {
    const input = orderInput({ currency: "sar" });
    const created = await shop.test.post("/api/v1/orders", input);
    expect(created.status).toBe(201);
    const order = created.body;
    expect(Object.keys(order)).toEqual(ORDER_FIELDS);
    expect(order).toMatchObject({
      externalOrderId: input.externalOrderId,
      status: "pending",
      customerAction: null,
      deliveryStatus: null,
      customerName: "Layla Hassan",
      customerPhone: "966501234567",
      customerAddress: "12 King Fahd Rd, Riyadh",
      subtotal: 149.99,
      shippingCost: 15,
      totalCost: 164.99,
      currency: "SAR",
      failureReason: null,
      errorCode: null,
    });
    expect(order).not.toHaveProperty("note");
    expect(order.createdAt).toMatch(ISO_MS);
    expect(order.updatedAt).toMatch(ISO_MS);
    expect(order.items).toHaveLength(2);
    expect(Object.keys(order.items[0])).toEqual(ITEM_FIELDS);
    expect(order.items[0]).toMatchObject({ productName: "Arabic coffee", variantName: "500 g", quantity: 1, unitPrice: 99.99, totalPrice: 99.99 });
    expect(order.items[1]).toMatchObject({ productName: "Dates", variantName: null, quantity: 2, unitPrice: 25, totalPrice: 50 });
    expect(typeof order.items[0].id).toBe("string");
  });

  it("confirms on Approve, and the outbox holds order.created then order.confirmed with the seed payloads", async () => {
    const created = (await shop.test.post("/api/v1/orders", orderInput())).body;
    const tapped = await shop.test.post(`/api/v1/test/orders/${created.id}/customer-action`, { action: "approve" });
    expect(tapped.status).toBe(200);
    const fetched = await shop.test.get(`/api/v1/orders/${created.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toMatchObject({ status: "confirmed", customerAction: "approved", deliveryStatus: "read" });
    // GET is served by a single SQL statement: same fields, same order, same values as every other path.
    expect(Object.keys(fetched.body)).toEqual(ORDER_FIELDS);
    expect(Object.keys(fetched.body.items[0])).toEqual(ITEM_FIELDS);
    expect(fetched.body).toEqual(tapped.body);

    const events = await outbox(created.id);
    expect(events.map((event) => event.type)).toEqual(["order.created", "order.confirmed"]);
    const [createdEvent, confirmedEvent] = events.map((event) => event.payload as any);
    expect(Object.keys(createdEvent)).toEqual(["event", "timestamp", "data"]);
    expect(createdEvent.event).toBe("order.created");
    expect(createdEvent.timestamp).toMatch(ISO_MS);
    expect(Object.keys(createdEvent.data)).toEqual(ORDER_FIELDS);
    expect(createdEvent.data).toMatchObject({ status: "pending", customerAction: null, deliveryStatus: null, failureReason: null, errorCode: null });
    expect(createdEvent.data).toEqual(created);
    expect(confirmedEvent.event).toBe("order.confirmed");
    expect(confirmedEvent.data).toEqual(fetched.body);
    expect(confirmedEvent.timestamp).toBe(fetched.body.updatedAt);
  });

  it("cancels on the customer's Cancel tap with order.canceled", async () => {
    const created = (await shop.test.post("/api/v1/orders", orderInput())).body;
    const tapped = await shop.test.post(`/api/v1/test/orders/${created.id}/customer-action`, { action: "cancel" });
    expect(tapped.body).toMatchObject({ status: "canceled", customerAction: "canceled", deliveryStatus: "read" });
    expect((await outbox(created.id)).map((event) => event.type)).toEqual(["order.created", "order.canceled"]);
  });

  it("keeps another merchant from seeing any of it", async () => {
    const created = (await shop.test.post("/api/v1/orders", orderInput())).body;
    const other = await server.merchant("Other Shop");
    for (const response of [
      await other.test.get(`/api/v1/orders/${created.id}`),
      await other.test.delete(`/api/v1/orders/${created.id}`),
      await other.test.post(`/api/v1/test/orders/${created.id}/customer-action`, { action: "approve" }),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ success: false, message: "Order not found", error: "NOT_FOUND" });
    }
    const list = await other.test.get("/api/v1/orders");
    expect(list.body.data).toEqual([]);
    expect((await shop.test.get(`/api/v1/orders/${created.id}`)).body.status).toBe("pending");
  });
});

describe("a send interrupted by a crash", () => {
  it("is failed by the maintenance sweep, stays invisible until then, and fires no event", async () => {
    const { OrderRepository } = await import("../../src/domain/orders/order.repository.ts");
    const repository = new OrderRepository(server.app.services.database.prisma, server.app.services.database.pool);
    const scope = { merchantId: shop.id, mode: "test" as const };
    const input = orderInput();
    const parsed = { ...input, currency: "SAR", items: input.items.map((item) => ({ ...item })) };
    const claimed = await repository.insertSending(scope, parsed as never, "en", new Date(Date.now() - 10 * 60_000));
    if (!("inserted" in claimed)) throw new Error("not inserted");
    const id = claimed.inserted.id;

    expect((await shop.test.get(`/api/v1/orders/${id}`)).status).toBe(404);
    const duplicate = await shop.test.post("/api/v1/orders", input);
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.orderId).toBe(id);

    expect(await server.app.services.orderService.failAbandonedSends(5 * 60_000)).toBe(1);
    const swept = await shop.test.get(`/api/v1/orders/${id}`);
    expect(swept.body).toMatchObject({ status: "failed", deliveryStatus: "failed", errorCode: null, failureReason: "Unknown failure" });
    expect(await outbox(id)).toEqual([]);
    // Recent sends are someone's in-flight request: left alone.
    const fresh = await repository.insertSending(scope, { ...parsed, externalOrderId: `${input.externalOrderId}-b` } as never, "en", new Date());
    expect(await server.app.services.orderService.failAbandonedSends(5 * 60_000)).toBe(0);
    expect("inserted" in fresh).toBe(true);
  });
});
