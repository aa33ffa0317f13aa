import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Client } from "graphql-ws";
import WebSocket from "ws";
import type { MessagingProvider } from "../../src/domain/messaging/messaging-provider.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { orderInput } from "../support/fixtures.ts";
import { asGraphQLOrder } from "../support/graphql.ts";
import { connectGraphQLWs, subscribe, SUBSCRIPTION, wsUrl, type Collector } from "../support/graphql-ws.ts";

/**
 * SPEC §6/§7: Subscription.orderStatusChanged over graphql-transport-ws at /graphql: exactly the outbox events
 * (name, timestamp, order data), after commit, for the caller's merchant and mode only, from any instance.
 */
const redisUrl = process.env.TEST_REDIS_URL;

/** Live-mode orders need a provider that accepts: a stand-in for the WhatsApp Cloud API. */
const acceptingLiveProvider: MessagingProvider = {
  name: "accepting-stub",
  sendOrderConfirmation: async (message) => ({ outcome: "accepted", providerMessageId: `wamid.STUB${message.orderId}` }),
};

let server: TestServer;
let shop: TestMerchant;
let neighbour: TestMerchant;
const openClients = new Set<Client>();
const openSockets = new Set<WebSocket>();

beforeAll(async () => {
  server = await startTestServer({}, { liveProvider: acceptingLiveProvider });
  shop = await server.merchant("Subscribed Shop");
  neighbour = await server.merchant("Neighbour Shop");
});
afterAll(() => server?.close());

afterEach(async () => {
  for (const client of openClients) await client.dispose();
  openClients.clear();
  for (const socket of openSockets) socket.terminate();
  openSockets.clear();
  // Every listener of every test is gone once its client is: nothing leaks.
  await vi.waitFor(() => expect(server.app.services.liveEvents.size).toBe(0), { timeout: 5_000 });
});

function connect(target: TestServer, apiKey: string | undefined, extra: Record<string, unknown> = {}): Client {
  const client = connectGraphQLWs(target, apiKey, extra);
  openClients.add(client);
  return client;
}

/** Waits until `count` more live listeners are registered on `target` (the subscriptions are active). */
async function activeSubscriptions(target: TestServer, count: number) {
  await vi.waitFor(() => expect(target.app.services.liveEvents.size).toBe(count), { timeout: 5_000 });
}

async function waitForEvents(collector: Collector, count: number, timeout = 5_000) {
  await vi.waitFor(() => expect(collector.results.length).toBeGreaterThanOrEqual(count), { timeout });
  return collector.events();
}

/** What the subscription must deliver for the outbox row of `type`: same name, timestamp and order data. */
async function outboxEvent(target: TestServer, orderId: string, type: string) {
  const rows = await target.outbox(orderId);
  const row = rows.find((candidate) => candidate.type === type);
  expect(row, `outbox row ${type} of ${orderId}`).toBeDefined();
  return { event: row!.payload.event, timestamp: row!.payload.timestamp, order: asGraphQLOrder(row!.payload.data) };
}

async function createOrder(client = shop.test, overrides: Record<string, unknown> = {}) {
  const response = await client.post("/api/v1/orders", orderInput(overrides));
  expect(response.status).toBe(201);
  return response.body as { id: string };
}

interface RawSocket {
  socket: WebSocket;
  messages: any[];
  closed: Promise<{ code: number; reason: string }>;
  send(message: unknown): void;
}

async function rawSocket(target: TestServer, protocol: string | null = "graphql-transport-ws"): Promise<RawSocket> {
  const socket = protocol === null ? new WebSocket(wsUrl(target)) : new WebSocket(wsUrl(target), protocol);
  openSockets.add(socket);
  const messages: any[] = [];
  socket.on("message", (data) => messages.push(JSON.parse(String(data))));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on("close", (code, reason) => resolve({ code, reason: String(reason) })),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  return { socket, messages, closed, send: (message) => socket.send(JSON.stringify(message)) };
}

async function ackedSocket(target: TestServer, apiKey: string): Promise<RawSocket> {
  const raw = await rawSocket(target);
  raw.send({ type: "connection_init", payload: { apiKey } });
  await vi.waitFor(() => expect(raw.messages).toContainEqual({ type: "connection_ack" }), { timeout: 5_000 });
  return raw;
}

describe("connection and authentication (connection_init payload { apiKey })", () => {
  it("closes with 4401 when connection_init carries no key", async () => {
    const raw = await rawSocket(server);
    raw.send({ type: "connection_init" });
    expect(await raw.closed).toEqual({ code: 4401, reason: "Unauthorized" });

    const empty = await rawSocket(server);
    empty.send({ type: "connection_init", payload: { apiKey: "" } });
    expect((await empty.closed).code).toBe(4401);
    expect(empty.messages).toEqual([]);
  });

  it("closes with 4403 for a malformed, unknown or revoked key", async () => {
    const revokedShop = await server.merchant("Revoked Shop");
    const [testKey] = (await server.app.services.merchantService.listKeys(revokedShop.id)).filter((key) => key.mode === "test");
    await server.app.services.merchantService.revokeKey(testKey.id);
    for (const apiKey of [
      "not-a-key",
      42,
      "ek_test_0000000000000000000000000000000000000000",
      revokedShop.keys.test,
    ]) {
      const raw = await rawSocket(server);
      raw.send({ type: "connection_init", payload: { apiKey } });
      expect(await raw.closed, String(apiKey)).toEqual({ code: 4403, reason: "Forbidden" });
      expect(raw.messages).toEqual([]);
    }
  });

  it("through graphql-ws's client: the 4401/4403 close reaches the subscription's error handler", async () => {
    const missing = subscribe(connect(server, undefined));
    await vi.waitFor(() => expect(missing.error).toBeTruthy(), { timeout: 5_000 });
    expect((missing.error as { code: number }).code).toBe(4401);
    const bad = subscribe(connect(server, "ek_live_0000000000000000000000000000000000000000"));
    await vi.waitFor(() => expect(bad.error).toBeTruthy(), { timeout: 5_000 });
    expect((bad.error as { code: number }).code).toBe(4403);
  });

  it("follows the protocol: subscribe before ack 4401, second init 4429, duplicate id 4409, wrong subprotocol 4406", async () => {
    const early = await rawSocket(server);
    early.send({ id: "1", type: "subscribe", payload: { query: SUBSCRIPTION } });
    expect((await early.closed).code).toBe(4401);

    const twice = await ackedSocket(server, shop.keys.test);
    twice.send({ type: "connection_init", payload: { apiKey: shop.keys.test } });
    expect((await twice.closed).code).toBe(4429);

    const duplicate = await ackedSocket(server, shop.keys.test);
    duplicate.send({ id: "same", type: "subscribe", payload: { query: SUBSCRIPTION } });
    duplicate.send({ id: "same", type: "subscribe", payload: { query: SUBSCRIPTION } });
    expect((await duplicate.closed).code).toBe(4409);

    // The legacy `graphql-ws` subprotocol is not agreed to (the handshake carries none), then 4406.
    const unversioned = await rawSocket(server, null);
    expect((await unversioned.closed).code).toBe(4406);
  });

  it("closes a socket that never sends connection_init with 4408 (3 s)", async () => {
    const raw = await rawSocket(server);
    const started = Date.now();
    expect((await raw.closed).code).toBe(4408);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_500);
  });

  it("a key revoked while connected: the next subscribe closes the socket with 4403", async () => {
    const shortLived = await server.merchant("Short-lived Shop");
    const raw = await ackedSocket(server, shortLived.keys.test);
    const [testKey] = (await server.app.services.merchantService.listKeys(shortLived.id)).filter((key) => key.mode === "test");
    await server.app.services.merchantService.revokeKey(testKey.id);
    raw.send({ id: "1", type: "subscribe", payload: { query: SUBSCRIPTION } });
    expect(await raw.closed).toEqual({ code: 4403, reason: "Forbidden" });
  });
});

describe("operations over the websocket", () => {
  it("serves subscriptions only: a query or mutation gets an error pointing to HTTP, and the socket stays open", async () => {
    const raw = await ackedSocket(server, shop.keys.test);
    raw.send({ id: "q", type: "subscribe", payload: { query: "{ __typename }" } });
    raw.send({ id: "m", type: "subscribe", payload: { query: 'mutation { cancelOrder(id: "x") { order { id } } }' } });
    await vi.waitFor(() => expect(raw.messages.filter((message) => message.type === "error")).toHaveLength(2), { timeout: 5_000 });
    for (const id of ["q", "m"]) {
      const error = raw.messages.find((message) => message.id === id);
      expect(error.type).toBe("error");
      expect(error.payload[0].extensions.code).toBe("BAD_REQUEST");
      expect(error.payload[0].message).toMatch(/HTTP POST \/graphql/);
    }
    expect(raw.socket.readyState).toBe(WebSocket.OPEN);
  });

  it("reports invalid documents as protocol errors (validation, unknown fields)", async () => {
    const raw = await ackedSocket(server, shop.keys.test);
    raw.send({ id: "v", type: "subscribe", payload: { query: "subscription { orderStatusChanged { nope } }" } });
    await vi.waitFor(() => expect(raw.messages.find((message) => message.id === "v")).toBeDefined(), { timeout: 5_000 });
    const error = raw.messages.find((message) => message.id === "v");
    expect(error.type).toBe("error");
    expect(error.payload[0].message).toMatch(/nope/);
  });

  it("caps subscriptions per socket at 100", async () => {
    const raw = await ackedSocket(server, shop.keys.test);
    for (let id = 1; id <= 101; id++) raw.send({ id: String(id), type: "subscribe", payload: { query: SUBSCRIPTION } });
    await vi.waitFor(() => expect(raw.messages.find((message) => message.type === "error")).toBeDefined(), { timeout: 5_000 });
    const errors = raw.messages.filter((message) => message.type === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0].id).toBe("101");
    expect(errors[0].payload[0].extensions.code).toBe("TOO_MANY_SUBSCRIPTIONS");
    await activeSubscriptions(server, 100);
    raw.socket.close(1000);
  });

  it("answers in Arabic when connection_init says so", async () => {
    const raw = await rawSocket(server);
    raw.send({ type: "connection_init", payload: { apiKey: shop.keys.test, language: "ar" } });
    await vi.waitFor(() => expect(raw.messages).toContainEqual({ type: "connection_ack" }), { timeout: 5_000 });
    raw.send({ id: "q", type: "subscribe", payload: { query: "{ __typename }" } });
    await vi.waitFor(() => expect(raw.messages.find((message) => message.id === "q")).toBeDefined(), { timeout: 5_000 });
    expect(raw.messages.find((message) => message.id === "q").payload[0].message).toMatch(/[\u0600-\u06FF]/);
  });
});

describe("orderStatusChanged", () => {
  it("delivers order.created, then the customer's tap (order.confirmed), exactly as the outbox stores them", async () => {
    const subscription = subscribe(connect(server, shop.keys.test));
    await activeSubscriptions(server, 1);
    const order = await createOrder();
    const [created] = await waitForEvents(subscription, 1);
    expect(created).toEqual(await outboxEvent(server, order.id, "order.created"));
    expect(created.order.status).toBe("PENDING");

    const tap = await shop.test.post(`/api/v1/test/orders/${order.id}/customer-action`, { action: "approve" });
    expect(tap.status).toBe(200);
    const [, confirmed] = await waitForEvents(subscription, 2);
    expect(confirmed).toEqual(await outboxEvent(server, order.id, "order.confirmed"));
    expect(confirmed.order).toMatchObject({ status: "CONFIRMED", customerAction: "APPROVED", deliveryStatus: "READ" });
    // The subscription's order is the REST order as it is now.
    expect(confirmed.order).toEqual(asGraphQLOrder((await shop.test.get(`/api/v1/orders/${order.id}`)).body));
  });

  it("delivers order.canceled on DELETE and order.failed on a delivery failure", async () => {
    const first = await createOrder();
    const second = await createOrder();
    const subscription = subscribe(connect(server, shop.keys.test));
    await activeSubscriptions(server, 1);

    expect((await shop.test.delete(`/api/v1/orders/${first.id}`)).status).toBe(200);
    const report = await shop.test.post(`/api/v1/test/orders/${second.id}/delivery`, { status: "failed", errorCode: 131026 });
    expect(report.status).toBe(200);
    const [canceled, failed] = await waitForEvents(subscription, 2);
    expect(canceled).toEqual(await outboxEvent(server, first.id, "order.canceled"));
    expect(canceled.order).toMatchObject({ status: "CANCELED", customerAction: "CANCELED" });
    expect(failed).toEqual(await outboxEvent(server, second.id, "order.failed"));
    expect(failed.order).toMatchObject({ status: "FAILED", deliveryStatus: "FAILED", errorCode: 131026 });
  });

  it("publishes nothing for a change that was refused (cancel of a confirmed order) or changed nothing", async () => {
    const order = await createOrder();
    await shop.test.post(`/api/v1/test/orders/${order.id}/customer-action`, { action: "approve" });
    const subscription = subscribe(connect(server, shop.keys.test));
    await activeSubscriptions(server, 1);

    const refused = await shop.test.delete(`/api/v1/orders/${order.id}`);
    expect(refused.status).toBe(409);
    const tapAgain = await shop.test.post(`/api/v1/test/orders/${order.id}/customer-action`, { action: "cancel" });
    expect(tapAgain.status).toBe(409);
    // A forward delivery report on a confirmed order changes nothing visible in events either.
    await shop.test.post(`/api/v1/test/orders/${order.id}/delivery`, { status: "delivered" });
    // A later event arrives first and alone: nothing was published for the refused changes.
    const sentinel = await createOrder();
    const events = await waitForEvents(subscription, 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(subscription.events()).toHaveLength(1);
    expect(events[0]).toMatchObject({ event: "order.created", order: { id: sentinel.id } });
    expect((await server.outbox(order.id)).map((row) => row.type)).toEqual(["order.created", "order.confirmed"]);
  });

  it("with orderId: only that order's events; an order the caller cannot see is NOT_FOUND", async () => {
    const watched = await createOrder();
    const other = await createOrder();
    const subscription = subscribe(connect(server, shop.keys.test), { orderId: watched.id.toUpperCase() });
    await activeSubscriptions(server, 1);
    await shop.test.delete(`/api/v1/orders/${other.id}`);
    await shop.test.delete(`/api/v1/orders/${watched.id}`);
    const [only] = await waitForEvents(subscription, 1);
    expect(only).toEqual(await outboxEvent(server, watched.id, "order.canceled"));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(subscription.results).toHaveLength(1);

    const neighbours = await createOrder(neighbour.test);
    const liveOrder = await createOrder(shop.live);
    for (const orderId of [neighbours.id, liveOrder.id, "00000000-0000-0000-0000-000000000000", "not-a-uuid"]) {
      const refused = subscribe(connect(server, shop.keys.test), { orderId });
      await vi.waitFor(() => expect(refused.completed).toBe(true), { timeout: 5_000 });
      expect(refused.results).toHaveLength(1);
      expect(refused.results[0].errors).toEqual([
        expect.objectContaining({ message: "Order not found", extensions: { code: "NOT_FOUND" }, path: ["orderStatusChanged"] }),
      ]);
    }
  });

  it("keeps merchants and modes apart: another merchant's and the other mode's events never arrive", async () => {
    const shopTest = subscribe(connect(server, shop.keys.test));
    const shopLive = subscribe(connect(server, shop.keys.live));
    const neighbourTest = subscribe(connect(server, neighbour.keys.test));
    await activeSubscriptions(server, 3);

    const liveOrder = await createOrder(shop.live);
    const testOrder = await createOrder(shop.test);
    const neighbourOrder = await createOrder(neighbour.test);

    const [live] = await waitForEvents(shopLive, 1);
    expect(live).toEqual(await outboxEvent(server, liveOrder.id, "order.created"));
    const [test] = await waitForEvents(shopTest, 1);
    expect(test.order.id).toBe(testOrder.id);
    const [theirs] = await waitForEvents(neighbourTest, 1);
    expect(theirs.order.id).toBe(neighbourOrder.id);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(shopLive.results).toHaveLength(1);
    expect(shopTest.results).toHaveLength(1);
    expect(neighbourTest.results).toHaveLength(1);
  });

  it("stops delivering and releases its listener when the client completes", async () => {
    const client = connect(server, shop.keys.test);
    const kept = subscribe(client);
    const dropped = subscribe(client);
    await activeSubscriptions(server, 2);
    dropped.unsubscribe();
    await activeSubscriptions(server, 1);
    await createOrder();
    await waitForEvents(kept, 1);
    expect(dropped.results).toHaveLength(0);
    kept.unsubscribe();
    await activeSubscriptions(server, 0);
    expect(kept.completed).toBe(true);
  });
});

describe("back-pressure", () => {
  it("a subscriber more than 100 events behind is disconnected with 1013 instead of buffered without limit", async () => {
    const order = await createOrder();
    const [row] = await server.outbox(order.id);
    const slow = await ackedSocket(server, shop.keys.test);
    slow.send({ id: "1", type: "subscribe", payload: { query: SUBSCRIPTION } });
    const other = subscribe(connect(server, neighbour.keys.test));
    await activeSubscriptions(server, 2);
    // 150 events in one tick: the first is being sent, 100 wait, the next one overflows the buffer.
    const stored = { id: row.id, merchantId: shop.id, mode: "test" as const, orderId: order.id, envelope: row.payload };
    for (let i = 0; i < 150; i++) server.app.services.bus.publish({ ...stored });
    expect(await slow.closed).toEqual({ code: 1013, reason: "Subscriber too slow" });
    // Only that socket: another merchant's subscriber is untouched, and the listener is released.
    await activeSubscriptions(server, 1);
    expect(other.error).toBeNull();
    expect(other.completed).toBe(false);
  });
});

describe("shutdown", () => {
  it("app.close() closes open websockets with 1001 and does not hang", async () => {
    const other = await startTestServer({}, { database: server.app.services.database });
    const otherShop = await other.merchant("Closing Shop");
    const raw = await ackedSocket(other, otherShop.keys.test);
    raw.send({ id: "1", type: "subscribe", payload: { query: SUBSCRIPTION } });
    await activeSubscriptions(other, 1);
    const started = Date.now();
    await other.close();
    expect(Date.now() - started).toBeLessThan(3_000);
    expect((await raw.closed).code).toBe(1001);
    expect(other.app.services.liveEvents.size).toBe(0);
  });
});

describe.runIf(redisUrl)("several instances sharing Redis (TEST_REDIS_URL)", () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer({ REDIS_URL: redisUrl! });
    // One database (so keys and orders are shared) and one Redis, like two replicas behind a load balancer.
    b = await startTestServer({ REDIS_URL: redisUrl! }, { database: a.app.services.database });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("an event committed on one instance reaches subscribers on every instance exactly once", async () => {
    const shared = await a.merchant("Replicated Shop");
    const stranger = await a.merchant("Other Replicated Shop");
    const onA = subscribe(connect(a, shared.keys.test));
    const onB = subscribe(connect(b, shared.keys.test));
    const strangerOnB = subscribe(connect(b, stranger.keys.test));
    await activeSubscriptions(a, 1);
    await activeSubscriptions(b, 2);

    const order = await createOrder(a.api.withKey(shared.keys.test));
    const expected = await outboxEvent(a, order.id, "order.created");
    expect((await waitForEvents(onA, 1))[0]).toEqual(expected);
    expect((await waitForEvents(onB, 1))[0]).toEqual(expected);

    // The next change happens on B: A hears it through Redis, B locally; nobody gets a copy twice.
    expect((await b.api.withKey(shared.keys.test).delete(`/api/v1/orders/${order.id}`)).status).toBe(200);
    const canceled = await outboxEvent(a, order.id, "order.canceled");
    expect((await waitForEvents(onA, 2))[1]).toEqual(canceled);
    expect((await waitForEvents(onB, 2))[1]).toEqual(canceled);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(onA.events()).toEqual([expected, canceled]);
    expect(onB.events()).toEqual([expected, canceled]);
    expect(strangerOnB.results).toHaveLength(0);

    for (const collector of [onA, onB, strangerOnB]) collector.unsubscribe();
    await activeSubscriptions(a, 0);
    await activeSubscriptions(b, 0);
  });
});

describe("connections per API key", () => {
  it("closes one more than the per-key limit with 1008; other keys and freed places are unaffected", async () => {
    const limited = await startTestServer({}, { subscriptions: { maxConnectionsPerKey: 2 } });
    try {
      const owner = await limited.merchant("Busy Dashboard");
      const other = await limited.merchant("Other Dashboard");
      const first = await ackedSocket(limited, owner.keys.test);
      await ackedSocket(limited, owner.keys.test);
      const third = await rawSocket(limited);
      third.send({ type: "connection_init", payload: { apiKey: owner.keys.test } });
      expect(await third.closed).toEqual({ code: 1008, reason: "Too many connections for this API key" });
      expect(third.messages).toEqual([]);

      // The merchant's other key (live) and other merchants have their own allowance.
      await ackedSocket(limited, owner.keys.live);
      await ackedSocket(limited, other.keys.test);

      // A place freed by a closed socket can be taken again.
      first.socket.close(1000);
      await first.closed;
      await vi.waitFor(async () => {
        const again = await rawSocket(limited);
        again.send({ type: "connection_init", payload: { apiKey: owner.keys.test } });
        await vi.waitFor(() => expect(again.messages).toContainEqual({ type: "connection_ack" }), { timeout: 1_000 });
      }, { timeout: 5_000 });
    } finally {
      for (const socket of openSockets) socket.terminate();
      openSockets.clear();
      await limited.close();
    }
  });
});
