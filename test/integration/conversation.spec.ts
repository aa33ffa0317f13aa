import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BUTTON_PAYLOAD } from "../../src/domain/messaging/messaging-provider.ts";
import { FakeWhatsApp } from "../support/fake-whatsapp.ts";
import { orderInput } from "../support/fixtures.ts";
import { TEST_APP_SECRET, newInboundId, sendCallback } from "../support/meta-callbacks.ts";
import { buttonReplyMessage, conversationCallback, listReplyMessage, randomPhone, statusItem, textMessage } from "../support/meta-conversation.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";

/**
 * SPEC §11 over real HTTP: live orders sent through the fake WhatsApp Cloud API, the customer's words arriving as
 * Meta's signed callbacks, the conversation read and answered over REST.
 */
let fake: FakeWhatsApp;
let server: TestServer;
let shop: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  fake = await FakeWhatsApp.start();
  server = await startTestServer({
    WHATSAPP_API_URL: fake.apiUrl,
    WHATSAPP_PHONE_NUMBER_ID: "271828182845904",
    WHATSAPP_ACCESS_TOKEN: "EAAG-test-access-token",
    WHATSAPP_APP_SECRET: TEST_APP_SECRET,
  });
  shop = await server.merchant("Coffee House");
  other = await server.merchant("Dates Market");
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});
beforeEach(() => fake.reset());

const callback = async (body: unknown) => {
  const response = await sendCallback(server.baseUrl, body);
  expect(response.status, response.text).toBe(200);
};

async function placeLive(merchant = shop, overrides: Record<string, unknown> = {}) {
  const response = await merchant.live.post("/api/v1/orders", orderInput(overrides));
  expect(response.status, response.text).toBe(201);
  const row = await server.app.services.database.prisma.order.findUniqueOrThrow({ where: { id: response.body.id } });
  return { id: response.body.id as string, wamid: row.providerMessageId!, phone: response.body.customerPhone as string, ref: response.body.externalOrderId as string };
}

const messagesOf = async (merchant: TestMerchant, id: string) => {
  const response = await merchant.live.get(`/api/v1/orders/${id}/messages`);
  expect(response.status, response.text).toBe(200);
  return response.body.data as any[];
};

/** Waits until the fake Graph API received a request matching `match` (sends happen after commit). */
async function sentTo(match: (body: any) => boolean): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const found = fake.requests.find((request) => match(request.body));
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no request matched; saw ${JSON.stringify(fake.requests.map((request) => request.body))}`);
}

describe("clear answers act like the tap", () => {
  for (const [words, status] of [
    ["نعم", "confirmed"],
    ["Yes!", "confirmed"],
    ["تمام 👍", "confirmed"],
    ["الغاء", "canceled"],
    ["cancel", "canceled"],
    ["مش عايز", "canceled"],
  ] as const) {
    it(`"${words}" quoting the confirmation → ${status}`, async () => {
      const phone = randomPhone();
      const order = await placeLive(shop, { customerPhone: phone });
      await callback(conversationCallback([textMessage({ from: phone, body: words, contextId: order.wamid })]));
      const read = await shop.live.get(`/api/v1/orders/${order.id}`);
      expect(read.body.status).toBe(status);
      const events = (await server.outbox(order.id)).map((event) => event.type);
      expect(events).toEqual(["order.created", status === "confirmed" ? "order.confirmed" : "order.canceled"]);
      const timeline = (await shop.live.get(`/api/v1/orders/${order.id}/timeline`)).body.data;
      const answer = timeline.find((entry: any) => entry.kind === (status === "confirmed" ? "approved" : "canceled"));
      expect(answer).toMatchObject({ source: "customer", detail: { via: "text", text: words } });
      const conversation = await messagesOf(shop, order.id);
      expect(conversation.map((message) => [message.direction, message.sender, message.kind])).toEqual([
        ["outbound", "service", "confirmation"],
        ["inbound", "customer", "text"],
      ]);
      expect(conversation[1]).toMatchObject({ text: words, status: null });
      // The customer's message is marked read at Meta.
      await sentTo((body) => body?.status === "read");
    });
  }

  it("a reply quoting our message from another number changes nothing and stores nothing (SPEC §14)", async () => {
    const order = await placeLive(shop, { customerPhone: randomPhone() });
    await callback(conversationCallback([textMessage({ from: randomPhone(), body: "نعم", contextId: order.wamid })]));
    expect((await shop.live.get(`/api/v1/orders/${order.id}`)).body.status).toBe("pending");
    expect((await messagesOf(shop, order.id)).map((message) => message.kind)).toEqual(["confirmation"]);
    expect((await server.outbox(order.id)).map((event) => event.type)).toEqual(["order.created"]);
  });

  it("without context, the phone's one pending order is the one answered", async () => {
    const phone = randomPhone();
    const order = await placeLive(shop, { customerPhone: phone });
    await callback(conversationCallback([textMessage({ from: phone, body: "ايوه" })]));
    expect((await shop.live.get(`/api/v1/orders/${order.id}`)).body.status).toBe("confirmed");
  });
});

describe("unclear words", () => {
  it("are a customer_message, get the automatic buttons once, and need a reply", async () => {
    const phone = randomPhone();
    const order = await placeLive(shop, { customerPhone: phone });
    const first = newInboundId();
    await callback(conversationCallback([textMessage({ from: phone, body: "can you deliver tomorrow?", contextId: order.wamid, messageId: first })]));
    expect((await shop.live.get(`/api/v1/orders/${order.id}`)).body.status).toBe("pending");
    const events = await server.outbox(order.id);
    expect(events.map((event) => event.type)).toEqual(["order.created", "order.customer_message"]);
    expect(events[1].payload).toMatchObject({ event: "order.customer_message", data: { id: order.id }, message: { text: "can you deliver tomorrow?" } });
    const buttons = await sentTo((body) => body?.type === "interactive" && body.interactive?.type === "button" && body.to === `+${phone}`);
    expect(buttons.body.context).toEqual({ message_id: first });
    expect(buttons.body.interactive.body.text).toBe(`Please tap a button to confirm or cancel order ${order.ref}.`);
    expect(buttons.body.interactive.action.buttons.map((button: any) => button.reply.id)).toEqual([
      BUTTON_PAYLOAD.approve(order.id),
      BUTTON_PAYLOAD.cancel(order.id),
    ]);
    const needs = await shop.live.get(`/api/v1/orders?needsReply=true`);
    expect(needs.body.data.map((o: any) => o.id)).toContain(order.id);

    // A second unclear text: another customer_message, no second automatic reply.
    await callback(conversationCallback([textMessage({ from: phone, body: "لا مشكلة", contextId: order.wamid })]));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.requests.filter((request) => request.body?.type === "interactive")).toHaveLength(1);
    const conversation = await messagesOf(shop, order.id);
    expect(conversation.map((message) => message.kind)).toEqual(["confirmation", "text", "buttons", "text"]);
    expect(conversation[2]).toMatchObject({ sender: "service", status: "sent" });

    // A tap on the automatic buttons (quoting them) confirms the order like the template's.
    const autoWamid = buttons.response.messages[0].id;
    await callback(conversationCallback([buttonReplyMessage({ from: phone, id: BUTTON_PAYLOAD.approve(order.id), title: "Approve", contextId: autoWamid })]));
    expect((await shop.live.get(`/api/v1/orders/${order.id}`)).body.status).toBe("confirmed");
    const after = await messagesOf(shop, order.id);
    expect(after.at(-1)).toMatchObject({ direction: "inbound", kind: "tap", text: "Approve" });
    const stillNeeds = await shop.live.get(`/api/v1/orders?needsReply=true`);
    expect(stillNeeds.body.data.map((o: any) => o.id)).not.toContain(order.id);

    // A status of the automatic reply updates that message, never the order's delivery status.
    const before = (await shop.live.get(`/api/v1/orders/${order.id}`)).body;
    await callback(conversationCallback([], [statusItem(autoWamid, "read", phone), statusItem(autoWamid, "failed", phone)]));
    expect((await messagesOf(shop, order.id)).find((message) => message.kind === "buttons").status).toBe("read");
    expect((await shop.live.get(`/api/v1/orders/${order.id}`)).body).toEqual(before);
    expect((await server.outbox(order.id)).map((event) => event.type)).toEqual(["order.created", "order.customer_message", "order.customer_message", "order.confirmed"]);
  });

  it("a text on an answered order is a customer_message with no automatic reply", async () => {
    const phone = randomPhone();
    const order = await placeLive(shop, { customerPhone: phone });
    await callback(conversationCallback([textMessage({ from: phone, body: "yes", contextId: order.wamid })]));
    await callback(conversationCallback([textMessage({ from: phone, body: "yes", contextId: order.wamid })]));
    const events = (await server.outbox(order.id)).map((event) => event.type);
    expect(events).toEqual(["order.created", "order.confirmed", "order.customer_message"]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fake.requests.filter((request) => request.body?.type === "interactive")).toHaveLength(0);
  });

  it("a repeat of the same callback is applied once", async () => {
    const phone = randomPhone();
    const order = await placeLive(shop, { customerPhone: phone });
    const body = conversationCallback([textMessage({ from: phone, body: "what colour is it?", contextId: order.wamid })]);
    await callback(body);
    await callback(body);
    expect((await server.outbox(order.id)).map((event) => event.type)).toEqual(["order.created", "order.customer_message"]);
    expect((await messagesOf(shop, order.id)).filter((message) => message.direction === "inbound")).toHaveLength(1);
  });
});

describe("attribution", () => {
  it("a phone with no pending order: nothing is stored, nobody sees it", async () => {
    const phone = randomPhone();
    const before = await server.app.services.database.prisma.orderMessage.count();
    await callback(conversationCallback([textMessage({ from: phone, body: "hello?" })]));
    expect(await server.app.services.database.prisma.orderMessage.count()).toBe(before);
    expect(fake.requests).toHaveLength(0);
  });

  it("several pending orders: a list asks which one; the choice gets that order's buttons", async () => {
    const phone = randomPhone();
    const a = await placeLive(shop, { customerPhone: phone });
    const b = await placeLive(other, { customerPhone: phone });
    fake.reset();
    await callback(conversationCallback([textMessage({ from: phone, body: "yes" })]));
    // The text answered neither order.
    for (const [merchant, order] of [[shop, a], [other, b]] as const) {
      expect((await merchant.live.get(`/api/v1/orders/${order.id}`)).body.status).toBe("pending");
    }
    const list = await sentTo((body) => body?.interactive?.type === "list");
    const rows = list.body.interactive.action.sections[0].rows;
    expect(rows.map((row: any) => row.id)).toEqual([`ORDER:${b.id}`, `ORDER:${a.id}`]);
    // "<merchant> <externalOrderId>" in Meta's 24 characters: the merchant's name is shortened, the reference kept.
    expect(rows[0].title).toBe(`Dates Mark… ${b.ref}`);
    for (const row of rows) expect([...row.title].length).toBeLessThanOrEqual(24);
    expect(list.body.interactive.body.text).toBe("Which order do you mean?");
    // Each merchant's conversation shows the list with its own order only.
    const shopView = await messagesOf(shop, a.id);
    expect(shopView.at(-1)).toMatchObject({ kind: "list", sender: "service" });
    expect(shopView.at(-1).text).not.toContain(b.ref);
    expect(JSON.stringify(shopView)).not.toContain("Dates Market");

    const listWamid = list.response.messages[0].id;
    await callback(conversationCallback([], [statusItem(listWamid, "delivered", phone)]));
    expect((await messagesOf(other, b.id)).at(-1).status).toBe("delivered");

    await callback(conversationCallback([listReplyMessage({ from: phone, rowId: `ORDER:${a.id}`, title: rows[1].title, contextId: listWamid })]));
    const buttons = await sentTo((body) => body?.interactive?.type === "button");
    expect(buttons.body.interactive.action.buttons[0].reply.id).toBe(BUTTON_PAYLOAD.approve(a.id));
    expect((await messagesOf(shop, a.id)).map((message) => message.kind).slice(-2)).toEqual(["tap", "buttons"]);
    expect((await messagesOf(other, b.id)).map((message) => message.kind)).toEqual(["confirmation", "list"]);
  });

  it("merchant B never sees A's conversation over REST", async () => {
    const phone = randomPhone();
    const order = await placeLive(shop, { customerPhone: phone });
    await callback(conversationCallback([textMessage({ from: phone, body: "secret question", contextId: order.wamid })]));
    expect((await other.live.get(`/api/v1/orders/${order.id}/messages`)).status).toBe(404);
    expect((await other.live.post(`/api/v1/orders/${order.id}/messages`, { text: "hi" })).status).toBe(404);
    expect((await shop.test.get(`/api/v1/orders/${order.id}/messages`)).status).toBe(404);
    expect((await other.live.get(`/api/v1/orders?needsReply=true`)).body.data).toEqual([]);
  });
});

describe("merchant replies", () => {
  it("are refused before the customer writes, sent while the window is open, refused after 24 h", async () => {
    const phone = randomPhone();
    const order = await placeLive(shop, { customerPhone: phone });
    const closed = await shop.live.post(`/api/v1/orders/${order.id}/messages`, { text: "Hello" });
    expect(closed.status).toBe(409);
    expect(closed.body).toMatchObject({ success: false, error: "CONVERSATION_CLOSED" });
    expect(fake.requests.filter((request) => request.body?.type === "text")).toHaveLength(0);

    await callback(conversationCallback([textMessage({ from: phone, body: "is it fresh?", contextId: order.wamid })]));
    const sent = await shop.live.post(`/api/v1/orders/${order.id}/messages`, { text: "Roasted this morning ☕" });
    expect(sent.status, sent.text).toBe(201);
    expect(sent.body).toMatchObject({ direction: "outbound", sender: "merchant", kind: "text", text: "Roasted this morning ☕", status: "sent" });
    const request = await sentTo((body) => body?.type === "text");
    expect(request.body).toMatchObject({ to: `+${phone}`, text: { body: "Roasted this morning ☕" } });
    expect((await shop.live.get(`/api/v1/orders?needsReply=true`)).body.data.map((o: any) => o.id)).not.toContain(order.id);

    // 25 hours later (the stored customer message moved back): the window is closed.
    await server.app.services.database.pool.query(
      `UPDATE order_messages SET at = at - interval '25 hours' WHERE order_id = $1 AND direction = 'inbound'`,
      [order.id],
    );
    const late = await shop.live.post(`/api/v1/orders/${order.id}/messages`, { text: "Still there?" });
    expect(late.status).toBe(409);
    expect(late.body.error).toBe("CONVERSATION_CLOSED");
  });

  it("bad bodies are 400", async () => {
    const order = await placeLive();
    for (const body of [{}, { text: "" }, { text: "   " }, { text: "x".repeat(4097) }, { text: 5 }]) {
      expect((await shop.live.post(`/api/v1/orders/${order.id}/messages`, body)).status).toBe(400);
    }
  });
});

describe("a Meta batch of 1,000 mixed texts and statuses", () => {
  it("is applied exactly: answers, questions, strangers, repeats and statuses each once", async () => {
    const created: Awaited<ReturnType<typeof placeLive>>[] = [];
    for (let start = 0; start < 250; start += 10) {
      created.push(...(await Promise.all(Array.from({ length: 10 }, () => placeLive(shop, { customerPhone: randomPhone() })))));
    }
    const answering = created.slice(0, 100); // "yes" / "الغاء" quoting their confirmation
    const asking = created.slice(100, 150); // unclear texts
    const delivered = created.slice(150, 250); // delivered then read statuses of their confirmation
    const answers = answering.map((order, index) =>
      textMessage({ from: order.phone, body: index % 2 ? "الغاء" : "yes", contextId: order.wamid }),
    );
    const questions = asking.map((order) => textMessage({ from: order.phone, body: "where is my order?", contextId: order.wamid }));
    const strangers = Array.from({ length: 300 }, () => textMessage({ from: randomPhone(), body: "yes" }));
    const repeats = [...answers.slice(0, 100), ...questions.slice(0, 50)].map((message) => ({ ...message }));
    const statuses = delivered.flatMap((order) => [statusItem(order.wamid, "delivered", order.phone), statusItem(order.wamid, "read", order.phone)]);
    const unknownStatuses = Array.from({ length: 200 }, () => statusItem(newInboundId(), "delivered", randomPhone()));
    const messages = [...answers, ...questions, ...strangers, ...repeats];
    const allStatuses = [...statuses, ...unknownStatuses];
    expect(messages.length + allStatuses.length).toBe(1_000);
    // Shuffled deterministically, keeping each order's "delivered" before its "read" and each original before its repeat.
    const order = (items: any[]) => items.map((item, index) => ({ item, key: (index * 7919) % items.length })).sort((a, b) => a.key - b.key).map(({ item }) => item);
    const shuffledMessages = [...order([...answers, ...questions, ...strangers]), ...repeats];
    const before = await server.app.services.database.prisma.orderMessage.count();
    fake.reset();
    await callback(conversationCallback(shuffledMessages, [...statuses.filter((_, index) => index % 2 === 0), ...order(unknownStatuses), ...statuses.filter((_, index) => index % 2 === 1)]));

    const rows = await server.app.services.database.prisma.order.findMany({ where: { id: { in: created.map((o) => o.id) } } });
    const byId = new Map(rows.map((row) => [row.id, row]));
    answering.forEach((o, index) => expect(byId.get(o.id)!.status, o.id).toBe(index % 2 ? "canceled" : "confirmed"));
    for (const o of asking) expect(byId.get(o.id)!.status).toBe("pending");
    for (const o of delivered) expect(byId.get(o.id)!).toMatchObject({ status: "pending", deliveryStatus: "read" });
    const events = await server.app.services.database.prisma.orderEvent.groupBy({
      by: ["type"],
      where: { orderId: { in: created.map((o) => o.id) } },
      _count: true,
    });
    expect(Object.fromEntries(events.map((row) => [row.type, row._count]))).toEqual({
      "order.created": 250,
      "order.confirmed": 50,
      "order.canceled": 50,
      "order.customer_message": 50,
    });
    // 150 customer texts stored (repeats and strangers not), 50 automatic replies queued and sent.
    const stored = await server.app.services.database.prisma.orderMessage.groupBy({
      by: ["direction", "kind"],
      where: { orderId: { in: created.map((o) => o.id) } },
      _count: true,
    });
    expect(Object.fromEntries(stored.map((row) => [`${row.direction}:${row.kind}`, row._count]))).toEqual({ "inbound:text": 150, "outbound:buttons": 50 });
    expect(await server.app.services.database.prisma.orderMessage.count()).toBe(before + 200);
    for (let i = 0; i < 400 && fake.requests.filter((r) => r.body?.type === "interactive").length < 50; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(fake.requests.filter((r) => r.body?.type === "interactive")).toHaveLength(50);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fake.requests.filter((r) => r.body?.type === "interactive")).toHaveLength(50);
  }, 600_000);
});
