import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { orderInput } from "../support/fixtures.ts";
import { EventStreamReader } from "../support/event-stream.ts";

/**
 * SPEC §5.4, what the /simulator page reads: GET /api/v1/test/conversations (the simulated phones) and the
 * live channel GET /api/v1/test/events, both scoped to the caller's merchant and to test mode.
 */
let server: TestServer;
let shop: TestMerchant;
let other: TestMerchant;
const streams: EventStreamReader[] = [];

beforeAll(async () => {
  server = await startTestServer();
  shop = await server.merchant("Shop");
  other = await server.merchant("Other shop");
});
afterAll(async () => {
  for (const stream of streams) stream.close();
  await server?.close();
});

let phoneCounter = 0;
const uniquePhone = () => `9665${String(Date.now() % 1e6).padStart(6, "0")}${String(phoneCounter++).padStart(2, "0")}`;

async function place(merchant: TestMerchant, overrides: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const response = await merchant.test.post("/api/v1/orders", orderInput(overrides), { headers });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

async function openEvents(key: string | null): Promise<EventStreamReader> {
  const stream = await EventStreamReader.open(`${server.baseUrl}/api/v1/test/events`, key ? { "x-api-key": key } : {});
  streams.push(stream);
  return stream;
}

describe("GET /api/v1/test/conversations", () => {
  it("groups the merchant's simulated messages by phone, each with its order as it is now", async () => {
    const phone = uniquePhone();
    const first = await place(shop, { customerPhone: phone });
    const second = await place(shop, { customerPhone: phone }, { "accept-language": "ar" });
    await shop.test.post(`/api/v1/test/orders/${first.id}/customer-action`, { action: "approve" });

    const response = await shop.test.get("/api/v1/test/conversations");
    expect(response.status).toBe(200);
    const conversation = response.body.data.find((entry: { phone: string }) => entry.phone === phone);
    expect(conversation.messages.map((message: { orderId: string }) => message.orderId)).toEqual([first.id, second.id]);
    const [english, arabic] = conversation.messages;
    expect(english).toMatchObject({
      orderId: first.id,
      phone,
      language: "en",
      buttons: { approve: "Approve", cancel: "Cancel" },
      order: { id: first.id, status: "confirmed", customerAction: "approved", deliveryStatus: "read" },
    });
    expect(english.id).toMatch(/^wamid\.SIM/);
    expect(english.text).toContain(first.externalOrderId);
    expect(arabic.language).toBe("ar");
    expect(arabic.text).toMatch(/[\u0600-\u06FF]/);
    expect(arabic.order).toMatchObject({ status: "pending", customerAction: null, deliveryStatus: null });
    // The phone with the newest message comes first.
    expect(response.body.data[0].phone).toBe(phone);
  });

  it("shows nothing of another merchant's orders", async () => {
    const phone = uniquePhone();
    const mine = await place(shop, { customerPhone: phone });
    const theirs = await other.test.get("/api/v1/test/conversations");
    expect(theirs.status).toBe(200);
    const orderIds = theirs.body.data.flatMap((entry: any) => entry.messages.map((message: any) => message.orderId));
    expect(orderIds).not.toContain(mine.id);
    expect(theirs.body.data.map((entry: { phone: string }) => entry.phone)).not.toContain(phone);

    const own = await place(other, { customerPhone: phone });
    const after = await other.test.get("/api/v1/test/conversations");
    const conversation = after.body.data.find((entry: { phone: string }) => entry.phone === phone);
    expect(conversation.messages.map((message: { orderId: string }) => message.orderId)).toEqual([own.id]);
  });

  it("refuses a live key with 403 and a missing key with 401", async () => {
    const live = await shop.live.get("/api/v1/test/conversations");
    expect(live.status).toBe(403);
    expect(live.body).toMatchObject({ success: false, error: "FORBIDDEN" });
    const anonymous = await server.api.get("/api/v1/test/conversations");
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ success: false, error: "UNAUTHORIZED" });
    const wrong = await server.api.withKey(`ek_test_${"x".repeat(40)}`).get("/api/v1/test/conversations");
    expect(wrong.status).toBe(401);
  });

  it("is documented in the OpenAPI document", async () => {
    const document = (await server.api.get("/api/v1/openapi.json")).body;
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(["/api/v1/test/conversations", "/api/v1/test/events"]));
  });
});

describe("GET /api/v1/test/events", () => {
  it("pushes a new message once its order is created, then every change of it, live", async () => {
    const stream = await openEvents(shop.keys.test);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    await stream.waitFor((event) => event.event === "ready");

    const phone = uniquePhone();
    const created = await place(shop, { customerPhone: phone }, { "accept-language": "ar" });
    const message = await stream.waitFor((event) => event.event === "message" && event.data.order.id === created.id);
    expect(message.data.message).toMatchObject({ orderId: created.id, phone, language: "ar" });
    expect(message.data.order).toEqual(created);

    await shop.test.post(`/api/v1/test/orders/${created.id}/delivery`, { status: "delivered" });
    await stream.waitFor((event) => event.event === "order" && event.data.order.deliveryStatus === "delivered");

    await shop.test.post(`/api/v1/test/orders/${created.id}/customer-action`, { action: "cancel" });
    const canceled = await stream.waitFor((event) => event.event === "order" && event.data.order.status === "canceled");
    expect(canceled.data.order).toMatchObject({ id: created.id, customerAction: "canceled", deliveryStatus: "read" });

    // A merchant cancel (DELETE) of a pending order reaches the page too, through the committed event.
    const deleted = await place(shop, { customerPhone: phone });
    await shop.test.delete(`/api/v1/orders/${deleted.id}`);
    await stream.waitFor((event) => event.event === "order" && event.data.order.id === deleted.id && event.data.order.status === "canceled");
  });

  it("never pushes another merchant's orders, nor the merchant's live orders", async () => {
    const stream = await openEvents(other.keys.test);
    await stream.waitFor((event) => event.event === "ready");
    const foreign = await place(shop, { customerPhone: uniquePhone() });
    await shop.test.post(`/api/v1/test/orders/${foreign.id}/customer-action`, { action: "approve" });
    const live = await other.live.post("/api/v1/orders", orderInput());
    expect(live.status).toBe(502); // no WhatsApp configured in tests: stored failed, no event
    const own = await place(other, { customerPhone: uniquePhone() });
    await stream.waitFor((event) => event.event === "message" && event.data.order.id === own.id);
    const seen = stream.events.filter((event) => event.event !== "ready").map((event) => event.data.order.id);
    expect(seen).toEqual([own.id]);
  });

  it("refuses a live key with 403 and a missing key with 401, in the usual error body", async () => {
    const events = (headers: Record<string, string>) => fetch(`${server.baseUrl}/api/v1/test/events`, { headers });
    const live = await events({ "x-api-key": shop.keys.live });
    expect(live.status).toBe(403);
    expect(await live.json()).toMatchObject({ success: false, error: "FORBIDDEN" });
    const anonymous = await events({});
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ success: false, error: "UNAUTHORIZED" });
    // The key is read from the header only, never from the URL (it would end up in access logs).
    const inUrl = await fetch(`${server.baseUrl}/api/v1/test/events?key=${shop.keys.test}`);
    expect(inUrl.status).toBe(401);
  });

  it("an open stream does not hold the server's shutdown up", async () => {
    const own = await startTestServer();
    const merchant = await own.merchant();
    const stream = await EventStreamReader.open(`${own.baseUrl}/api/v1/test/events`, { "x-api-key": merchant.keys.test });
    await stream.waitFor((event) => event.event === "ready");
    const started = Date.now();
    await own.close();
    expect(Date.now() - started).toBeLessThan(3_000);
    // The stream was ended (not cut): the reader sees its end.
    await expect(stream.waitFor(() => false, 2_000)).rejects.toThrow(/stream ended/);
    stream.close();
  });
});
