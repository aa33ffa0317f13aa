import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orderInput } from "../support/fixtures.ts";
import { GraphQLClient } from "../support/graphql.ts";
import { connectGraphQLWs, subscribe } from "../support/graphql-ws.ts";
import { randomPhone } from "../support/meta-conversation.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";

/**
 * SPEC §11 over GraphQL, driven by the simulated customer of test mode (POST /test/orders/{id}/customer-message):
 * Order.messages, conversationWindow, sendOrderMessage, OrderFilter.needsReply and orderMessageReceived, each seen
 * only by the order's own merchant.
 */
let server: TestServer;
let shop: TestMerchant;
let other: TestMerchant;
let gql: GraphQLClient;
let otherGql: GraphQLClient;

beforeAll(async () => {
  server = await startTestServer();
  shop = await server.merchant("Coffee House");
  other = await server.merchant("Dates Market");
  gql = new GraphQLClient(server.baseUrl, shop.keys.test);
  otherGql = new GraphQLClient(server.baseUrl, other.keys.test);
});
afterAll(() => server?.close());

const MESSAGES = `query Conversation($id: ID!) {
  order(id: $id) { status messages { id direction sender kind text at status } conversationWindow { open closesAt lastCustomerMessageAt } }
}`;
const SEND = `mutation Send($orderId: ID!, $text: String!) {
  sendOrderMessage(orderId: $orderId, text: $text) { message { id direction sender kind text status } userErrors { code message field } }
}`;
const NEEDS_REPLY = `query Needs($needs: Boolean) { orders(first: 50, filter: { needsReply: $needs }) { totalCount edges { node { id } } } }`;
const RECEIVED = `subscription Received($orderId: ID) {
  orderMessageReceived(orderId: $orderId) { timestamp order { id status } message { id direction sender kind text at status } }
}`;

async function place(merchant = shop, phone = randomPhone()) {
  const response = await merchant.test.post("/api/v1/orders", orderInput({ customerPhone: phone }));
  expect(response.status, response.text).toBe(201);
  return response.body.id as string;
}

const say = (merchant: TestMerchant, id: string, text: string) => merchant.test.post(`/api/v1/test/orders/${id}/customer-message`, { text });

async function until(check: () => boolean) {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  expect(check()).toBe(true);
}

describe("GraphQL conversation", () => {
  it("a clear answer in the simulator confirms; the conversation shows both messages", async () => {
    const id = await place();
    const answered = await say(shop, id, "نعم");
    expect(answered.status, answered.text).toBe(200);
    expect(answered.body.status).toBe("confirmed");
    const read = await gql.query(MESSAGES, { id });
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.order.status).toBe("CONFIRMED");
    expect(read.body.data.order.messages.map((m: any) => [m.direction, m.sender, m.kind])).toEqual([
      ["OUTBOUND", "SERVICE", "CONFIRMATION"],
      ["INBOUND", "CUSTOMER", "TEXT"],
    ]);
    expect(read.body.data.order.messages[0].text).toContain("Layla Hassan");
    expect(read.body.data.order.conversationWindow.open).toBe(true);
  });

  it("an unclear text: needs reply, subscription event, automatic buttons; a reply answers it", async () => {
    const id = await place();
    const ws = connectGraphQLWs(server, shop.keys.test);
    const otherWs = connectGraphQLWs(server, other.keys.test);
    const statusWs = connectGraphQLWs(server, shop.keys.test);
    const mine = subscribe(ws, {}, RECEIVED);
    const theirs = subscribe(otherWs, {}, RECEIVED);
    const statusChanges = subscribe(statusWs, { orderId: id });
    const before = server.app.services.liveEvents.size;
    await until(() => server.app.services.liveEvents.size >= 3 || before >= 3);
    await new Promise((resolve) => setTimeout(resolve, 200));

    const window = await gql.query(MESSAGES, { id });
    expect(window.body.data.order.conversationWindow).toEqual({ open: false, closesAt: null, lastCustomerMessageAt: null });
    const closed = await gql.query(SEND, { orderId: id, text: "hello" });
    expect(closed.body.data.sendOrderMessage.userErrors[0].code).toBe("CONVERSATION_CLOSED");

    expect((await say(shop, id, "Can you deliver on Friday?")).status).toBe(200);
    await until(() => mine.results.length === 1);
    const event = mine.results[0].data!.orderMessageReceived;
    expect(event.order).toEqual({ id, status: "PENDING" });
    expect(event.message).toMatchObject({ direction: "INBOUND", sender: "CUSTOMER", kind: "TEXT", text: "Can you deliver on Friday?", status: null });
    // The status subscription does not carry customer messages; the other merchant receives nothing.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(statusChanges.results).toHaveLength(0);
    expect(theirs.results).toHaveLength(0);

    const needs = await gql.query(NEEDS_REPLY, { needs: true });
    expect(needs.body.data.orders.edges.map((edge: any) => edge.node.id)).toEqual([id]);
    expect(needs.body.data.orders.totalCount).toBe(1);
    expect((await otherGql.query(NEEDS_REPLY, { needs: true })).body.data.orders.totalCount).toBe(0);
    const notNeeding = await gql.query(NEEDS_REPLY, { needs: false });
    expect(notNeeding.body.data.orders.edges.map((edge: any) => edge.node.id)).not.toContain(id);

    // The automatic reply buttons reach the simulated phone once the sender ran.
    await until(() => server.app.services.phones.all().some((message) => message.orderId === id && message.kind === "buttons"));

    const sent = await gql.query(SEND, { orderId: id, text: "Yes, Friday works." });
    expect(sent.body.errors).toBeUndefined();
    expect(sent.body.data.sendOrderMessage).toMatchObject({
      message: { direction: "OUTBOUND", sender: "MERCHANT", kind: "TEXT", text: "Yes, Friday works.", status: "SENT".toLowerCase() },
      userErrors: [],
    });
    expect(server.app.services.phones.all().some((message) => message.orderId === id && message.kind === "text" && message.text === "Yes, Friday works.")).toBe(true);
    expect((await gql.query(NEEDS_REPLY, { needs: true })).body.data.orders.totalCount).toBe(0);

    const conversation = (await gql.query(MESSAGES, { id })).body.data.order.messages.map((m: any) => `${m.sender}:${m.kind}`);
    expect(conversation).toEqual(["SERVICE:CONFIRMATION", "CUSTOMER:TEXT", "SERVICE:BUTTONS", "MERCHANT:TEXT"]);

    // Merchant B: the order does not exist, its conversation cannot be read or answered.
    expect((await otherGql.query(MESSAGES, { id })).body.data.order).toBeNull();
    const foreign = await otherGql.query(SEND, { orderId: id, text: "hi" });
    expect(foreign.body.data.sendOrderMessage.userErrors[0].code).toBe("NOT_FOUND");
    const foreignSub = subscribe(otherWs, { orderId: id }, RECEIVED);
    await until(() => foreignSub.error !== null || foreignSub.results.length > 0);
    expect(JSON.stringify(foreignSub.error ?? foreignSub.results)).toContain("NOT_FOUND");

    mine.unsubscribe();
    theirs.unsubscribe();
    statusChanges.unsubscribe();
    await ws.dispose();
    await otherWs.dispose();
    await statusWs.dispose();
  });

  it("bad text is a VALIDATION_ERROR and sends nothing", async () => {
    const id = await place();
    await say(shop, id, "hmm");
    for (const text of ["", "   ", "x".repeat(4097)]) {
      const response = await gql.query(SEND, { orderId: id, text });
      expect(response.body.data.sendOrderMessage.userErrors[0].code).toBe("VALIDATION_ERROR");
    }
  });

  it("the simulator's customer route refuses other merchants' orders and live keys", async () => {
    const id = await place();
    expect((await say(other, id, "yes")).status).toBe(404);
    expect((await shop.live.post(`/api/v1/test/orders/${id}/customer-message`, { text: "yes" })).status).toBe(403);
    expect((await shop.test.get(`/api/v1/orders/${id}`)).body.status).toBe("pending");
  });
});
