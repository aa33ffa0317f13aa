import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { consoleSession, type ConsoleSession } from "../support/console.ts";
import { orderInput } from "../support/fixtures.ts";
import { connectGraphQLWs, subscribe } from "../support/graphql-ws.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { createEndpoint, eventually } from "../support/webhooks.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";

/**
 * SPEC §15: recording an answer given outside WhatsApp (REST and GraphQL) through the same state change as the
 * customer's tap, the policy's followUpAfter and the follow-up queue (needsFollowUp), and bad input on every new
 * route (4xx, never 5xx).
 */
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

let server: TestServer;
let shop: TestMerchant;
let agent: ConsoleSession;
let receiver: WebhookReceiver;

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: "true", WEBHOOK_RETRY_SCHEDULE: "1s" });
  shop = await server.merchant("Desk Shop");
  agent = await consoleSession(server, shop.id, "agent");
  receiver = await startWebhookReceiver();
  const endpoint = await createEndpoint(shop.test, { url: receiver.url() });
  receiver.secret = endpoint.secret;
});

afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

async function place(merchant: TestMerchant = shop, overrides: Record<string, unknown> = {}) {
  const response = await merchant.test.post("/api/v1/orders", orderInput(overrides));
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const timelineOf = async (id: string) => (await shop.test.get(`/api/v1/orders/${id}/timeline`)).body.data as any[];

const RECORD = `mutation Record($orderId: ID!, $action: CustomerAnswer!, $channel: AnswerChannel!, $note: String) {
  recordCustomerAnswer(orderId: $orderId, action: $action, channel: $channel, note: $note) {
    order { id status customerAction deliveryStatus }
    userErrors { code field message }
  }
}`;

describe("recording an answer", () => {
  it("an agent's phone answer confirms the order, fires order.confirmed to the webhook and the subscription, and names who, how and what", async () => {
    const order = await place();
    const ws = connectGraphQLWs(server, shop.keys.test);
    const live = subscribe(ws, { orderId: order.id });
    try {
      // Wait until the server holds the subscription (no event can be missed after that).
      await eventually(async () => server.app.services.liveEvents.size, (count) => count >= 1);
      const response = await agent.graphql.query(RECORD, { orderId: order.id, action: "APPROVE", channel: "PHONE", note: "  Called at 14:05, wants delivery after 6  " });
      expect(response.status).toBe(200);
      expect(response.body.data.recordCustomerAnswer).toEqual({
        order: { id: order.id, status: "CONFIRMED", customerAction: "APPROVED", deliveryStatus: "READ" },
        userErrors: [],
      });
      const [delivered] = await receiver.waitFor(1, (request) => request.body?.event === "order.confirmed" && request.body.data.id === order.id);
      expect(delivered.verified).toBe(true);
      expect(delivered.body.data).toMatchObject({ status: "confirmed", customerAction: "approved" });
      await eventually(async () => live.results.length, (count) => count >= 1);
      expect(live.events().map((event) => event.event)).toEqual(["order.confirmed"]);
    } finally {
      live.unsubscribe();
      await ws.dispose();
    }
    const answer = (await timelineOf(order.id)).filter((entry) => entry.kind === "approved");
    expect(answer).toEqual([
      { at: expect.any(String), kind: "approved", source: "merchant", detail: { via: "phone", note: "Called at 14:05, wants delivery after 6", by: agent.user.email } },
    ]);
  });

  it("over REST with an API key: `by` is the key's prefix (never the key), cancel acts like a Cancel tap, reminders stop", async () => {
    const policy = await shop.test.put("/api/v1/confirmation-policy", { reminders: ["2h"], expireAfter: "1d" });
    expect(policy.status, policy.text).toBe(200);
    const order = await place();
    const response = await shop.test.post(`/api/v1/orders/${order.id}/customer-answer`, { action: "cancel", channel: "in_person" });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ id: order.id, status: "canceled", customerAction: "canceled" });
    const [entry] = (await timelineOf(order.id)).filter((step) => step.kind === "canceled");
    expect(entry.source).toBe("merchant");
    expect(entry.detail).toEqual({ via: "in_person", by: shop.keys.test.slice(0, entry.detail.by.length) });
    expect(entry.detail.by.length).toBeLessThan(shop.keys.test.length);
    expect(entry.detail.by).toMatch(/^ek_test_/);
    const tasks = await server.app.services.database.pool.query("SELECT state FROM order_tasks WHERE order_id = $1 ORDER BY position", [order.id]);
    expect(tasks.rows.map((row) => row.state)).toEqual(["canceled", "canceled"]);
    await shop.test.put("/api/v1/confirmation-policy", { reminders: [] });
    const events = (await server.outbox(order.id)).map((event) => event.type);
    expect(events).toEqual(["order.created", "order.canceled"]);
  });

  it("racing a customer's tap 50 times: one terminal state, one event, one answer in the timeline", async () => {
    const outcomes = { tap: 0, recorded: 0 };
    for (let round = 0; round < 50; round++) {
      const order = await place();
      const tapAction = round % 2 === 0 ? "approve" : "cancel";
      const recordAction = round % 3 === 0 ? tapAction : tapAction === "approve" ? "cancel" : "approve";
      const [tap, recorded] = await Promise.all([
        shop.test.post(`/api/v1/test/orders/${order.id}/customer-action`, { action: tapAction }),
        shop.test.post(`/api/v1/orders/${order.id}/customer-answer`, { action: recordAction, channel: "phone", note: `round ${round}` }),
      ]);
      const statuses = [tap.status, recorded.status].sort();
      expect(statuses, `${tap.text} ${recorded.text}`).toEqual([200, 409]);
      const winner = tap.status === 200 ? { by: "tap", action: tapAction } : { by: "recorded", action: recordAction };
      outcomes[winner.by === "tap" ? "tap" : "recorded"]++;
      const loser = tap.status === 409 ? tap : recorded;
      expect(loser.body.error).toBe("ORDER_NOT_PENDING");
      const final = (await shop.test.get(`/api/v1/orders/${order.id}`)).body;
      expect(final.status).toBe(winner.action === "approve" ? "confirmed" : "canceled");
      const events = (await server.outbox(order.id)).map((event) => event.type);
      expect(events).toEqual(["order.created", winner.action === "approve" ? "order.confirmed" : "order.canceled"]);
      const answers = (await timelineOf(order.id)).filter((entry) => entry.kind === "approved" || entry.kind === "canceled");
      expect(answers).toHaveLength(1);
      expect(answers[0].source).toBe(winner.by === "tap" ? "customer" : "merchant");
    }
    expect(outcomes.tap + outcomes.recorded).toBe(50);
  });

  it("refuses a non-pending order (409 / ORDER_NOT_PENDING with the order) and changes nothing", async () => {
    const order = await place();
    expect((await shop.test.post(`/api/v1/test/orders/${order.id}/customer-action`, { action: "approve" })).status).toBe(200);
    const rest = await shop.test.post(`/api/v1/orders/${order.id}/customer-answer`, { action: "cancel", channel: "phone" });
    expect(rest.status).toBe(409);
    expect(rest.body).toMatchObject({ success: false, error: "ORDER_NOT_PENDING", status: "confirmed" });
    const graphql = await agent.graphql.query(RECORD, { orderId: order.id, action: "CANCEL", channel: "OTHER" });
    expect(graphql.body.data.recordCustomerAnswer.order).toMatchObject({ id: order.id, status: "CONFIRMED" });
    expect(graphql.body.data.recordCustomerAnswer.userErrors).toEqual([{ code: "ORDER_NOT_PENDING", field: ["orderId"], message: expect.any(String) }]);
    expect((await server.outbox(order.id)).map((event) => event.type)).toEqual(["order.created", "order.confirmed"]);
  });
});

describe("bad input on the new routes (4xx, never 5xx)", () => {
  it("POST /orders/{id}/customer-answer", async () => {
    const order = await place();
    const other = await server.merchant("Other");
    const path = `/api/v1/orders/${order.id}/customer-answer`;
    const cases: [string, () => Promise<{ status: number; body: any }>, number, string | null][] = [
      ["no key", () => server.api.post(path, { action: "approve", channel: "phone" }), 401, "UNAUTHORIZED"],
      ["not JSON", () => shop.test.post(path, undefined, { rawBody: "{nope", headers: { "content-type": "application/json" } }), 400, "VALIDATION_ERROR"],
      ["text body", () => shop.test.post(path, undefined, { rawBody: "approve", headers: { "content-type": "text/plain" } }), 415, "UNSUPPORTED_MEDIA_TYPE"],
      ["no body", () => shop.test.post(path), 400, "VALIDATION_ERROR"],
      ["array body", () => shop.test.post(path, [1]), 400, "VALIDATION_ERROR"],
      ["unknown action", () => shop.test.post(path, { action: "maybe", channel: "phone" }), 400, "VALIDATION_ERROR"],
      ["unknown channel", () => shop.test.post(path, { action: "approve", channel: "pigeon" }), 400, "VALIDATION_ERROR"],
      ["note too long", () => shop.test.post(path, { action: "approve", channel: "phone", note: "x".repeat(501) }), 400, "VALIDATION_ERROR"],
      ["note with NUL", () => shop.test.post(path, { action: "approve", channel: "phone", note: "a\u0000b" }), 400, "VALIDATION_ERROR"],
      ["note not a string", () => shop.test.post(path, { action: "approve", channel: "phone", note: 5 }), 400, "VALIDATION_ERROR"],
      ["body too large", () => shop.test.post(path, { action: "approve", channel: "phone", note: "x".repeat(1_100_000) }), 413, "PAYLOAD_TOO_LARGE"],
      ["malformed id", () => shop.test.post("/api/v1/orders/not-a-uuid/customer-answer", { action: "approve", channel: "phone" }), 404, "NOT_FOUND"],
      ["unknown id", () => shop.test.post("/api/v1/orders/00000000-0000-4000-8000-000000000000/customer-answer", { action: "approve", channel: "phone" }), 404, "NOT_FOUND"],
      ["another merchant's order", () => other.test.post(path, { action: "approve", channel: "phone" }), 404, "NOT_FOUND"],
      ["the live key of the same merchant", () => shop.live.post(path, { action: "approve", channel: "phone" }), 404, "NOT_FOUND"],
    ];
    for (const [label, send, status, error] of cases) {
      const response = await send();
      expect(response.status, label).toBe(status);
      if (error) expect(response.body.error, label).toBe(error);
    }
    const details = (await shop.test.post(path, { action: "approve", channel: "phone", note: "x".repeat(501) }, { headers: { "accept-language": "ar" } })).body;
    expect(details.details[0].field).toBe("note");
    expect(details.message).toMatch(/[\u0600-\u06FF]/);
    expect((await shop.test.get(`/api/v1/orders/${order.id}`)).body.status).toBe("pending");
  });

  it("recordCustomerAnswer over GraphQL", async () => {
    const order = await place();
    const long = await agent.graphql.query(RECORD, { orderId: order.id, action: "APPROVE", channel: "PHONE", note: "x".repeat(501) });
    expect(long.status).toBe(200);
    expect(long.body.data.recordCustomerAnswer).toMatchObject({ order: null, userErrors: [{ code: "VALIDATION_ERROR", field: ["note"] }] });
    const badEnum = await agent.graphql.query(RECORD, { orderId: order.id, action: "MAYBE", channel: "PHONE" });
    expect(badEnum.status).toBe(400);
    const malformed = await agent.graphql.query(RECORD, { orderId: "nope", action: "APPROVE", channel: "PHONE" });
    expect(malformed.body.data.recordCustomerAnswer.userErrors[0].code).toBe("NOT_FOUND");
    expect((await shop.test.get(`/api/v1/orders/${order.id}`)).body.status).toBe("pending");
  });

  it("GET /orders/export and needsFollowUp filters", async () => {
    const cases: [string, string, number][] = [
      ["unknown status", "/api/v1/orders/export?status=bogus", 400],
      ["needsFollowUp not a boolean", "/api/v1/orders/export?needsFollowUp=yes", 400],
      ["bad date", "/api/v1/orders/export?createdFrom=yesterday", 400],
      ["bad phone", "/api/v1/orders/export?customerPhone=%2B1", 400],
      ["NUL in search", "/api/v1/orders/export?search=a%00b", 400],
      ["bad mode", "/api/v1/orders/export?mode=prod", 400],
      ["list: needsFollowUp not a boolean", "/api/v1/orders?needsFollowUp=1", 400],
    ];
    for (const [label, path, status] of cases) {
      const response = await shop.test.get(path);
      expect(response.status, label).toBe(status);
      expect(response.body.error, label).toBe("VALIDATION_ERROR");
    }
    expect((await server.api.get("/api/v1/orders/export")).status).toBe(401);
    const badCookie = await fetch(new URL("/api/v1/orders/export", server.baseUrl), { headers: { cookie: "ocs_session=forged" } });
    expect(badCookie.status).toBe(401);
    const crossSite = await fetch(new URL("/api/v1/orders/export", server.baseUrl), { headers: { cookie: agent.cookie, "sec-fetch-site": "cross-site" } });
    expect(crossSite.status).toBe(403);
    const graphql = await agent.graphql.query(`{ orders(filter: { needsFollowUp: "yes" }) { edges { cursor } } }`);
    expect(graphql.status).toBe(400);
  });

  it("the policy's followUpAfter: default 2h, a PUT omitting it stores the default, bounds like a reminder's", async () => {
    const fresh = await server.merchant("Policy shop");
    expect((await fresh.test.get("/api/v1/confirmation-policy")).body.followUpAfter).toBe("2h");
    const set = await fresh.test.put("/api/v1/confirmation-policy", { reminders: [], followUpAfter: "30m" });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ reminders: [], expireAfter: null, quietHours: null, smsFallback: null, followUpAfter: "30m" });
    const omitted = await fresh.test.put("/api/v1/confirmation-policy", { reminders: ["1h"] });
    expect(omitted.body.followUpAfter).toBe("2h");
    for (const bad of ["soon", "8d", "1s", 5, "0h"]) {
      const response = await fresh.test.put("/api/v1/confirmation-policy", { followUpAfter: bad });
      expect(response.status, String(bad)).toBe(400);
      expect(response.body.details[0].field).toBe("followUpAfter");
    }
    const admin = await consoleSession(server, fresh.id, "admin");
    const viaGraphQL = await admin.graphql.query(`mutation { updateConfirmationPolicy(input: { followUpAfter: "4h" }) { policy { followUpAfter } userErrors { field } } }`);
    expect(viaGraphQL.body.data.updateConfirmationPolicy).toEqual({ policy: { followUpAfter: "4h" }, userErrors: [] });
    const read = await admin.graphql.query("{ confirmationPolicy { followUpAfter reminders } }");
    expect(read.body.data.confirmationPolicy).toEqual({ followUpAfter: "4h", reminders: [] });
  });
});

describe("the follow-up queue (needsFollowUp)", () => {
  it("holds pending orders whose last message is older than followUpAfter, newest first; a recent reminder or an answer takes an order out", async () => {
    const desk = await server.merchant("Queue shop");
    const pool = server.app.services.database.pool;
    const age = async (id: string, hours: number) => {
      await pool.query(`UPDATE orders SET created_at = now() - make_interval(hours => $2), updated_at = now() WHERE id = $1`, [id, hours]);
    };
    const old1 = await place(desk, { externalOrderId: "Q-old-1" });
    const old2 = await place(desk, { externalOrderId: "Q-old-2" });
    const recent = await place(desk, { externalOrderId: "Q-recent" });
    const reminded = await place(desk, { externalOrderId: "Q-reminded" });
    const answered = await place(desk, { externalOrderId: "Q-answered" });
    await age(old1.id, 5);
    await age(old2.id, 3);
    await age(recent.id, 1);
    await age(reminded.id, 6);
    await age(answered.id, 7);
    // A reminder went out 30 minutes ago: the last message is recent.
    await pool.query(
      `INSERT INTO order_tasks (id, order_id, merchant_id, mode, kind, position, state, due_at, finished_at, created_at)
       VALUES (gen_random_uuid(), $1, $2, 'test', 'reminder', 1, 'sent', now() - interval '30 minutes', now() - interval '30 minutes', now())`,
      [reminded.id, desk.id],
    );
    expect((await desk.test.post(`/api/v1/test/orders/${answered.id}/customer-action`, { action: "approve" })).status).toBe(200);

    const queue = await desk.test.get("/api/v1/orders?needsFollowUp=true");
    expect(queue.status).toBe(200);
    expect(queue.body.data.map((order: any) => order.externalOrderId)).toEqual(["Q-old-2", "Q-old-1"]);
    expect((await desk.test.get("/api/v1/orders?needsFollowUp=false")).body.data).toHaveLength(5);

    // A shorter followUpAfter applies at once; the reminder 30 minutes ago is now older than it.
    await desk.test.put("/api/v1/confirmation-policy", { followUpAfter: "20m" });
    const shorter = await desk.test.get("/api/v1/orders?needsFollowUp=true&limit=2");
    expect(shorter.body.data.map((order: any) => order.externalOrderId)).toEqual(["Q-recent", "Q-old-2"]);
    const next = await desk.test.get(`/api/v1/orders?needsFollowUp=true&limit=2&cursor=${shorter.body.pagination.nextCursor}`);
    expect(next.body.data.map((order: any) => order.externalOrderId)).toEqual(["Q-old-1", "Q-reminded"]);

    // GraphQL: the same queue with its count, combined with a search.
    const admin = await consoleSession(server, desk.id, "agent");
    const graphql = await admin.graphql.query(`{ orders(filter: { needsFollowUp: true, search: "Q-old" }) { totalCount edges { node { externalOrderId } } } }`);
    expect(graphql.body.data.orders).toEqual({ totalCount: 2, edges: [{ node: { externalOrderId: "Q-old-2" } }, { node: { externalOrderId: "Q-old-1" } }] });

    // Answering from the queue takes the order out of it.
    await admin.graphql.query(RECORD, { orderId: old2.id, action: "APPROVE", channel: "PHONE" });
    const after = await desk.test.get("/api/v1/orders?needsFollowUp=true");
    expect(after.body.data.map((order: any) => order.externalOrderId)).toEqual(["Q-recent", "Q-old-1", "Q-reminded"]);
    // A customer's question nobody answered (SPEC §11 needs reply) puts even a fresh order in the queue; a reply
    // takes it out again (its last message is recent).
    const asking = await place(desk, { externalOrderId: "Q-asking" });
    const question = await desk.test.post(`/api/v1/test/orders/${asking.id}/customer-message`, { text: "Can I pay by card?" });
    expect(question.status, question.text).toBeLessThan(300);
    const withQuestion = await desk.test.get("/api/v1/orders?needsFollowUp=true");
    expect(withQuestion.body.data.map((order: any) => order.externalOrderId)).toEqual(["Q-asking", "Q-recent", "Q-old-1", "Q-reminded"]);
    const reply = await desk.test.post(`/api/v1/orders/${asking.id}/messages`, { text: "Yes, the courier has a card reader." });
    expect(reply.status, reply.text).toBe(201);
    const replied = await desk.test.get("/api/v1/orders?needsFollowUp=true");
    expect(replied.body.data.map((order: any) => order.externalOrderId)).toEqual(["Q-recent", "Q-old-1", "Q-reminded"]);
    // Another merchant's queue is its own.
    expect((await shop.test.get("/api/v1/orders?needsFollowUp=true")).body.data.map((order: any) => order.id)).not.toContain(old1.id);
  });
});
