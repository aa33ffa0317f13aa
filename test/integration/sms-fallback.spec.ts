import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { orderInput } from "../support/fixtures.ts";
import { eventually } from "../support/webhooks.ts";
import { FakeTwilio, twilioReply } from "../support/fake-twilio.ts";
import { FakeWhatsApp } from "../support/fake-whatsapp.ts";
import { TEST_APP_SECRET, sendCallback, statusCallback } from "../support/meta-callbacks.ts";

/** SPEC §12: the SMS fallback, in test mode (simulated phone) and live mode (Meta callbacks, fake Twilio). */
vi.setConfig({ testTimeout: 60_000 });

const POLICY = { reminders: [], expireAfter: null, quietHours: null, smsFallback: { errorCodes: [131026] } };

const timelineOf = async (client: TestMerchant["test"], id: string) => (await client.get(`/api/v1/orders/${id}/timeline`)).body.data as any[];
const kinds = (entries: any[]) => entries.map((entry) => entry.kind);

describe("test mode", () => {
  let server: TestServer;
  let shop: TestMerchant;

  beforeAll(async () => {
    server = await startTestServer({ CONFIRMATION_MIN_DELAY: "1s" });
    shop = await server.merchant("Dates Shop");
  });
  afterAll(() => server?.close());

  const place = async (overrides: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
    const response = await shop.test.post("/api/v1/orders", orderInput(overrides), { headers });
    expect(response.status, response.text).toBe(201);
    return response.body;
  };
  const fail = (id: string, errorCode = 131026) => shop.test.post(`/api/v1/test/orders/${id}/delivery`, { status: "failed", errorCode });
  const smsOf = async (orderId: string) =>
    ((await shop.test.get("/api/v1/test/conversations")).body.data as any[])
      .flatMap((phone) => phone.messages)
      .filter((message: any) => message.orderId === orderId && message.channel === "sms");

  it("the policy field: default null, stored, validated, and a PUT without it turns it off", async () => {
    expect((await shop.test.get("/api/v1/confirmation-policy")).body.smsFallback).toBeNull();
    const bad = await shop.test.put("/api/v1/confirmation-policy", { smsFallback: { errorCodes: [] } });
    expect(bad.status).toBe(400);
    expect((await shop.test.put("/api/v1/confirmation-policy", { smsFallback: { errorCodes: ["x"] } })).status).toBe(400);
    const stored = await shop.test.put("/api/v1/confirmation-policy", { smsFallback: { errorCodes: [131026, 131026, 131049] } });
    expect(stored.status, stored.text).toBe(200);
    expect(stored.body.smsFallback).toEqual({ errorCodes: [131026, 131049] });
    const graphql = await shop.test.post("/graphql", { query: "{ confirmationPolicy { smsFallback { errorCodes } } }" });
    expect(graphql.body.data.confirmationPolicy.smsFallback).toEqual({ errorCodes: [131026, 131049] });
    expect((await shop.test.put("/api/v1/confirmation-policy", {})).body.smsFallback).toBeNull();
    const viaGraphql = await shop.test.post("/graphql", {
      query: "mutation($input: ConfirmationPolicyInput!) { updateConfirmationPolicy(input: $input) { policy { smsFallback { errorCodes } } userErrors { field } } }",
      variables: { input: { smsFallback: { errorCodes: [131026] } } },
    });
    expect(viaGraphql.body.data.updateConfirmationPolicy.policy.smsFallback).toEqual({ errorCodes: [131026] });
    expect((await shop.test.put("/api/v1/confirmation-policy", { smsFallback: null })).body.smsFallback).toBeNull();
  });

  it("without the policy, 131026 fails the order as before", async () => {
    const order = await place();
    const failed = await fail(order.id);
    expect(failed.body).toMatchObject({ status: "failed", errorCode: 131026 });
    expect(await smsOf(order.id)).toEqual([]);
  });

  it("131026 with the policy: pending, message_failed, an SMS with the page link; the page's Approve confirms", async () => {
    await shop.test.put("/api/v1/confirmation-policy", POLICY);
    const order = await place();
    const after = await fail(order.id);
    expect(after.status, after.text).toBe(200);
    expect(after.body).toMatchObject({ status: "pending", deliveryStatus: "failed", errorCode: null, failureReason: null });
    expect((await server.outbox(order.id)).map((event) => event.type)).toEqual(["order.created"]);
    const [sms] = await eventually(() => smsOf(order.id), (list) => list.length === 1);
    const link = (await shop.test.get(`/api/v1/orders/${order.id}/confirmation-link`)).body.url;
    expect(sms.text).toBe(`Dates Shop: please confirm your order ${order.externalOrderId} (SAR 164.99): ${link}`);
    expect(sms.phone).toBe(order.customerPhone);
    const timeline = await eventually(() => timelineOf(shop.test, order.id), (entries) => kinds(entries).includes("sms_sent"));
    expect(kinds(timeline)).toEqual(["created", "message_sent", "message_failed", "sms_sent"]);
    expect(timeline[2]).toMatchObject({ source: "provider", detail: { errorCode: 131026, failureReason: "Message undeliverable" } });
    expect(timeline[3].detail).toMatchObject({ sms: "fallback", provider: "simulator", segments: 1 });
    // A repeated failure report changes nothing and sends nothing more.
    expect((await fail(order.id)).body.status).toBe("pending");
    // The SMS is part of the order's conversation (SPEC §11 kind SMS), after the confirmation.
    const conversation = (await shop.test.get(`/api/v1/orders/${order.id}/messages`)).body.data;
    expect(conversation.map((message: { kind: string }) => message.kind)).toEqual(["confirmation", "sms"]);
    expect(conversation[1]).toMatchObject({ direction: "outbound", sender: "service", text: sms.text, status: "sent" });

    // The customer opens the link from the SMS and approves.
    const page = await fetch(link.replace("localhost", "127.0.0.1"));
    expect(page.status).toBe(200);
    const answer = await fetch(link, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "action=approve" });
    expect(answer.status).toBe(303);
    expect((await shop.test.get(`/api/v1/orders/${order.id}`)).body).toMatchObject({ status: "confirmed", customerAction: "approved" });
    expect((await server.outbox(order.id)).map((event) => event.type)).toEqual(["order.created", "order.confirmed"]);
    expect(await smsOf(order.id)).toHaveLength(1);
  });

  it("an Arabic order gets its SMS in Arabic (UCS-2, at most two segments)", async () => {
    await shop.test.put("/api/v1/confirmation-policy", POLICY);
    const order = await place({}, { "accept-language": "ar" });
    await fail(order.id);
    const [sms] = await eventually(() => smsOf(order.id), (list) => list.length === 1);
    expect(sms.text).toContain("يرجى تأكيد طلبك");
    const timeline = await eventually(() => timelineOf(shop.test, order.id), (entries) => kinds(entries).includes("sms_sent"));
    expect(timeline.at(-1).detail.segments).toBeLessThanOrEqual(2);
  });

  it("an unlisted code still fails the order; an order created before the policy keeps the old rules", async () => {
    await shop.test.put("/api/v1/confirmation-policy", {});
    const before = await place();
    await shop.test.put("/api/v1/confirmation-policy", POLICY);
    expect((await fail(before.id)).body).toMatchObject({ status: "failed", errorCode: 131026 });
    const unlisted = await place();
    expect((await fail(unlisted.id, 131049)).body).toMatchObject({ status: "failed", errorCode: 131049 });
    expect(await smsOf(unlisted.id)).toEqual([]);
  });

  it("the simulated carrier: delivered is a timeline step; undelivered fails the order with the WhatsApp error", async () => {
    await shop.test.put("/api/v1/confirmation-policy", POLICY);
    const delivered = await place();
    await fail(delivered.id);
    await eventually(() => smsOf(delivered.id), (list) => list.length === 1);
    const ok = await shop.test.post(`/api/v1/test/orders/${delivered.id}/sms-delivery`, { status: "delivered" });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.status).toBe("pending");
    // After delivered, a late failure changes nothing.
    expect((await shop.test.post(`/api/v1/test/orders/${delivered.id}/sms-delivery`, { status: "failed", errorCode: 30008 })).body.status).toBe("pending");
    expect(kinds(await timelineOf(shop.test, delivered.id)).filter((kind) => kind.startsWith("sms_"))).toEqual(["sms_sent", "sms_delivered"]);

    const undelivered = await place();
    await fail(undelivered.id);
    await eventually(() => smsOf(undelivered.id), (list) => list.length === 1);
    const failed = await shop.test.post(`/api/v1/test/orders/${undelivered.id}/sms-delivery`, { status: "undelivered", errorCode: 30003 });
    expect(failed.body).toMatchObject({ status: "failed", errorCode: 131026, failureReason: "Message undeliverable" });
    const events = await server.outbox(undelivered.id);
    expect(events.map((event) => event.type)).toEqual(["order.created", "order.failed"]);
    expect(events[1].payload.data).toMatchObject({ status: "failed", errorCode: 131026, failureReason: "Message undeliverable" });
    const last = (await timelineOf(shop.test, undelivered.id)).at(-1);
    expect(last).toMatchObject({ kind: "sms_failed", source: "provider", detail: { errorCode: 131026, smsErrorCode: 30003, sms: "fallback" } });

    const noSms = await place();
    expect((await shop.test.post(`/api/v1/test/orders/${noSms.id}/sms-delivery`, { status: "delivered" })).status).toBe(404);
    expect((await shop.live.post(`/api/v1/test/orders/${noSms.id}/sms-delivery`, { status: "delivered" })).status).toBe(403);
    expect((await shop.test.post(`/api/v1/test/orders/${noSms.id}/sms-delivery`, { status: "read" })).status).toBe(400);
  });

  it("reminders of an SMS order go by SMS, and it expires like any other order", async () => {
    await shop.test.put("/api/v1/confirmation-policy", { ...POLICY, reminders: ["2s"], expireAfter: "5s" });
    const order = await place();
    await fail(order.id);
    const messages = await eventually(() => smsOf(order.id), (list) => list.length === 2, 20_000);
    expect(messages[1].reminder).toBe(1);
    expect(messages[1].text).toContain("reminder, confirm order");
    const expired = await eventually(async () => (await shop.test.get(`/api/v1/orders/${order.id}`)).body, (body) => body.status === "expired", 20_000);
    expect(expired.status).toBe("expired");
    const timeline = kinds(await timelineOf(shop.test, order.id));
    expect(timeline.filter((kind) => kind === "sms_sent")).toHaveLength(2);
    expect(timeline).not.toContain("reminder_sent");
    expect(timeline.at(-1)).toBe("expired");
    const reminders = ((await shop.test.get("/api/v1/test/conversations")).body.data as any[])
      .flatMap((phone) => phone.messages)
      .filter((message: any) => message.orderId === order.id && message.channel !== "sms");
    expect(reminders).toHaveLength(1); // the first WhatsApp message only
  });
});

describe("live mode through Twilio", () => {
  let server: TestServer;
  let shop: TestMerchant;
  let twilio: FakeTwilio;
  let whatsapp: FakeWhatsApp;

  beforeAll(async () => {
    twilio = await FakeTwilio.start();
    whatsapp = await FakeWhatsApp.start();
    server = await startTestServer({
      ...twilio.env,
      WHATSAPP_API_URL: whatsapp.apiUrl,
      WHATSAPP_PHONE_NUMBER_ID: "271828182845904",
      WHATSAPP_ACCESS_TOKEN: "EAAG-test-token",
      WHATSAPP_APP_SECRET: TEST_APP_SECRET,
    });
    shop = await server.merchant("Dates Shop");
    await shop.live.put("/api/v1/confirmation-policy", POLICY);
  });
  afterAll(async () => {
    await server?.close();
    await twilio?.close();
    await whatsapp?.close();
  });

  let phone = 966_500_000_100;
  async function placeAndFail(): Promise<{ order: any; wamid: string }> {
    // A phone of its own per order: the fake Twilio's messages are found by recipient.
    const response = await shop.live.post("/api/v1/orders", orderInput({ customerPhone: String(phone++) }));
    expect(response.status, response.text).toBe(201);
    const row = await server.app.services.database.prisma.order.findUniqueOrThrow({ where: { id: response.body.id } });
    const callback = await sendCallback(server.baseUrl, statusCallback(row.providerMessageId!, "failed", { orderId: response.body.id }));
    expect(callback.status).toBe(200);
    return { order: response.body, wamid: row.providerMessageId! };
  }
  const liveOrder = async (id: string) => (await shop.live.get(`/api/v1/orders/${id}`)).body;

  it("a Meta failure with 131026 sends the SMS through Twilio: form-encoded, basic auth, the page link, the status callback", async () => {
    const { order } = await placeAndFail();
    const [sms] = await eventually(async () => twilio.messagesTo(order.customerPhone), (list) => list.length === 1);
    const link = (await shop.live.get(`/api/v1/orders/${order.id}/confirmation-link`)).body.url;
    expect(sms.body).toContain(link);
    expect(sms.from).toBe("+15005550006");
    expect(sms.statusCallback).toBe(`${server.baseUrl.replace("127.0.0.1", "localhost")}/webhooks/twilio`);
    expect(await liveOrder(order.id)).toMatchObject({ status: "pending", deliveryStatus: "failed", errorCode: null });
    const timeline = await eventually(() => timelineOf(shop.live, order.id), (entries) => kinds(entries).includes("sms_sent"));
    expect(timeline.at(-1).detail).toMatchObject({ provider: "twilio", providerMessageId: sms.sid });
  });

  it("status callbacks: missing or bad signature 403 before anything is read; good ones applied once; replays and out-of-order harmless", async () => {
    const { order } = await placeAndFail();
    const [sms] = await eventually(async () => twilio.messagesTo(order.customerPhone), (list) => list.length === 1);
    await eventually(() => timelineOf(shop.live, order.id), (entries) => kinds(entries).includes("sms_sent"));
    expect((await twilio.sendStatus(sms.sid, "undelivered", { signature: null })).status).toBe(403);
    expect((await twilio.sendStatus(sms.sid, "undelivered", { signWith: "not-the-token" })).status).toBe(403);
    expect((await twilio.sendStatus(sms.sid, "undelivered", { signature: "RSOYDt4T1cUTdK1PDd93/VVr8B8=" })).status).toBe(403);
    // Signed over another URL than PUBLIC_BASE_URL/webhooks/twilio.
    const elsewhere = await fetch(`${server.baseUrl}/webhooks/twilio`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": "x".repeat(27) + "=" },
      body: `MessageSid=${sms.sid}&MessageStatus=undelivered`,
    });
    expect(elsewhere.status).toBe(403);
    expect((await liveOrder(order.id)).status).toBe("pending");

    expect((await twilio.sendStatus(sms.sid, "sent")).status).toBe(204);
    expect((await twilio.sendStatus(sms.sid, "delivered")).status).toBe(204);
    expect((await twilio.sendStatus(sms.sid, "delivered")).status).toBe(204);
    // Out of order: a late "sent" and a failure after delivery change nothing.
    expect((await twilio.sendStatus(sms.sid, "sent")).status).toBe(204);
    expect((await twilio.sendStatus(sms.sid, "undelivered", { errorCode: 30003 })).status).toBe(204);
    expect(await liveOrder(order.id)).toMatchObject({ status: "pending" });
    expect(kinds(await timelineOf(shop.live, order.id)).filter((kind) => kind.startsWith("sms_"))).toEqual(["sms_sent", "sms_delivered"]);
    // Unknown messages are acknowledged and ignored.
    expect((await twilio.sendStatus(`SM${"f".repeat(32)}`, "delivered", { url: sms.statusCallback! })).status).toBe(204);
  });

  it("undelivered fails the order with the WhatsApp error (order.failed, sms_failed); a replay adds nothing", async () => {
    const { order } = await placeAndFail();
    const [sms] = await eventually(async () => twilio.messagesTo(order.customerPhone), (list) => list.length === 1);
    await eventually(() => timelineOf(shop.live, order.id), (entries) => kinds(entries).includes("sms_sent"));
    expect((await twilio.sendStatus(sms.sid, "undelivered", { errorCode: 30003 })).status).toBe(204);
    expect((await twilio.sendStatus(sms.sid, "undelivered", { errorCode: 30003 })).status).toBe(204);
    expect((await twilio.sendStatus(sms.sid, "failed", { errorCode: 30008 })).status).toBe(204);
    expect(await liveOrder(order.id)).toMatchObject({ status: "failed", errorCode: 131026, failureReason: "Message undeliverable" });
    expect((await server.outbox(order.id)).map((event) => event.type)).toEqual(["order.created", "order.failed"]);
    const failures = (await timelineOf(shop.live, order.id)).filter((entry) => entry.kind === "sms_failed");
    expect(failures).toHaveLength(1);
    expect(failures[0].detail).toMatchObject({ smsErrorCode: 30003, smsFailureReason: "Unreachable destination handset" });
  });

  it("an SMS Twilio refuses fails the order with the WhatsApp code", async () => {
    twilio.next(twilioReply.invalidTo());
    const { order } = await placeAndFail();
    const failed = await eventually(() => liveOrder(order.id), (body) => body.status === "failed");
    expect(failed).toMatchObject({ errorCode: 131026, failureReason: "Message undeliverable" });
    const last = (await timelineOf(shop.live, order.id)).at(-1);
    expect(last).toMatchObject({ kind: "sms_failed", detail: { smsErrorCode: 21211, sms: "fallback" } });
    expect((await server.outbox(order.id)).map((event) => event.type)).toEqual(["order.created", "order.failed"]);
  });
});

describe("live mode without SMS_PROVIDER", () => {
  it("the fallback does nothing: 131026 fails the order as the seed says", async () => {
    const whatsapp = await FakeWhatsApp.start();
    const server = await startTestServer({
      WHATSAPP_API_URL: whatsapp.apiUrl,
      WHATSAPP_PHONE_NUMBER_ID: "271828182845904",
      WHATSAPP_ACCESS_TOKEN: "EAAG-test-token",
      WHATSAPP_APP_SECRET: TEST_APP_SECRET,
    });
    try {
      const shop = await server.merchant();
      await shop.live.put("/api/v1/confirmation-policy", POLICY);
      const response = await shop.live.post("/api/v1/orders", orderInput());
      const row = await server.app.services.database.prisma.order.findUniqueOrThrow({ where: { id: response.body.id } });
      await sendCallback(server.baseUrl, statusCallback(row.providerMessageId!, "failed", { orderId: response.body.id }));
      expect((await shop.live.get(`/api/v1/orders/${response.body.id}`)).body).toMatchObject({ status: "failed", errorCode: 131026 });
      // Without a Twilio auth token every callback is refused.
      const forged = await fetch(`${server.baseUrl}/webhooks/twilio`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "MessageSid=x" });
      expect(forged.status).toBe(403);
    } finally {
      await server.close();
      await whatsapp.close();
    }
  });
});
