import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleSession, type ConsoleSession } from "../support/console.ts";
import { FakeWooCommerce, storeReply } from "../support/fake-woocommerce.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { postDelivery } from "../support/store-fake-http.ts";
import { signWooCommerceBody } from "../../src/providers/woocommerce/webhook-signature.ts";
import { activityOf, CONNECT_WOOCOMMERCE, connections, DISCONNECT_STORE, ordersByExternalId, UPDATE_STORE } from "../support/stores.ts";

/**
 * WooCommerce end to end (SPEC §13): a merchant connects a (fake) WooCommerce store from GraphQL, the store's
 * signed order.created deliveries become orders through the same path as POST /api/v1/orders (reaching the
 * simulator in test mode), and each outcome goes back to the store as an order note (and a cancel when set).
 */
let server: TestServer;
let store: FakeWooCommerce;
let shop: TestMerchant;
let admin: ConsoleSession;
let connectionId: string;

const connectInput = (overrides: Record<string, unknown> = {}) => ({
  url: store.url,
  consumerKey: store.consumerKey,
  consumerSecret: store.consumerSecret,
  mode: "TEST",
  ...overrides,
});

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: "true", WEBHOOK_RETRY_SCHEDULE: "200ms,200ms,200ms" });
  store = await FakeWooCommerce.start({ basePath: "/shop" });
  shop = await server.merchant("Woo Shop");
  admin = await consoleSession(server, shop.id);
});

afterAll(async () => {
  await server?.close();
  await store?.close();
});

describe("connecting a WooCommerce store", () => {
  it("refuses credentials the store refuses, and stores nothing", async () => {
    const response = await admin.graphql.query(CONNECT_WOOCOMMERCE, { input: connectInput({ consumerSecret: "cs_0000000000wrong" }) });
    expect(response.body.data.connectWooCommerceStore).toEqual({
      connection: null,
      userErrors: [expect.objectContaining({ code: "VALIDATION_ERROR", field: ["input", "consumerKey"], message: expect.stringContaining("Read/Write") })],
    });
    expect(await connections(admin.graphql)).toEqual([]);
    expect(store.webhooks.size).toBe(0);
  });

  it("refuses an unreachable store, a site that is not WooCommerce, and malformed keys", async () => {
    const unreachable = await admin.graphql.query(CONNECT_WOOCOMMERCE, { input: connectInput({ url: "http://127.0.0.1:1" }) });
    expect(unreachable.body.data.connectWooCommerceStore.userErrors).toEqual([
      expect.objectContaining({ field: ["input", "url"], message: expect.stringContaining("could not be reached") }),
    ]);
    const notWoo = await admin.graphql.query(CONNECT_WOOCOMMERCE, { input: connectInput({ url: `${store.origin}/elsewhere` }) });
    expect(notWoo.body.data.connectWooCommerceStore.userErrors).toEqual([
      expect.objectContaining({ field: ["input", "url"], message: expect.stringContaining("WooCommerce") }),
    ]);
    const malformed = await admin.graphql.query(CONNECT_WOOCOMMERCE, { input: connectInput({ consumerKey: "key", consumerSecret: "secret" }) });
    expect(malformed.body.data.connectWooCommerceStore.userErrors.map((error: any) => error.field)).toEqual([
      ["input", "consumerKey"],
      ["input", "consumerSecret"],
    ]);
    expect(await connections(admin.graphql)).toEqual([]);
  });

  it("refuses another mode than the session's, and viewers", async () => {
    const live = await admin.graphql.query(CONNECT_WOOCOMMERCE, { input: connectInput({ mode: "LIVE" }) });
    expect(live.body.data.connectWooCommerceStore.userErrors).toEqual([expect.objectContaining({ code: "FORBIDDEN", field: ["mode"] })]);
    const viewer = await consoleSession(server, shop.id, "viewer");
    const refused = await viewer.graphql.query(CONNECT_WOOCOMMERCE, { input: connectInput() });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
  });

  it("connects: key checked, connection stored with a sealed secret, the order webhook created (and its ping answered)", async () => {
    const response = await admin.graphql.query(CONNECT_WOOCOMMERCE, { input: connectInput({ url: `${store.url}/wp-admin/` }) });
    expect(response.body.data.connectWooCommerceStore.userErrors).toEqual([]);
    const connection = response.body.data.connectWooCommerceStore.connection;
    expect(connection).toMatchObject({
      platform: "WOOCOMMERCE",
      shop: `${new URL(store.origin).host}/shop`,
      mode: "TEST",
      status: "ACTIVE",
      settings: { codOnly: true, codPaymentNames: ["cod"], tagConfirmed: "cod-confirmed" },
    });
    connectionId = connection.id;
    const webhook = store.webhook;
    expect(webhook).toMatchObject({ topic: "order.created", deliveryUrl: server.app.services.publicUrls.to(`/webhooks/woocommerce/${connectionId}`), status: "active" });
    // WooCommerce pinged the delivery URL while creating the webhook: the connection already existed to answer it.
    expect(webhook.ping).toEqual({ status: 200, error: null });
    expect(webhook.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Nothing secret is stored in clear.
    const row = await server.app.services.database.prisma.storeConnection.findUniqueOrThrow({ where: { id: connectionId } });
    expect(row.credentials).toMatch(/^ocs1\./);
    expect(row.credentials).not.toContain(store.consumerSecret);
    expect(row.credentials).not.toContain(webhook.secret);
    expect(JSON.stringify(row.settings)).not.toContain(store.consumerSecret);
    // One audit entry, by the signed-in user, written in the connection's transaction; the refused attempts wrote none.
    const audit = await server.app.services.database.prisma.auditEntry.findMany({
      where: { merchantId: shop.id, action: "store.connected" },
      select: { actorKind: true, actorLabel: true, target: true },
    });
    expect(audit).toEqual([{ actorKind: "user", actorLabel: expect.stringContaining("@"), target: connectionId }]);
  });

  it("refuses the same store for another merchant", async () => {
    const other = await server.merchant("Other Shop");
    const otherAdmin = await consoleSession(server, other.id);
    const response = await otherAdmin.graphql.query(CONNECT_WOOCOMMERCE, { input: connectInput() });
    expect(response.body.data.connectWooCommerceStore.userErrors).toEqual([
      expect.objectContaining({ field: ["input", "url"], message: expect.stringContaining("another account") }),
    ]);
    expect(await connections(otherAdmin.graphql)).toEqual([]);
    // Nor can it see or disconnect the first merchant's connection.
    const disconnect = await otherAdmin.graphql.query(DISCONNECT_STORE, { id: connectionId });
    expect(disconnect.body.data.disconnectStore).toMatchObject({ connection: null, userErrors: [expect.objectContaining({ field: ["id"] })] });
    expect((await connections(admin.graphql))[0].status).toBe("ACTIVE");
  });
});

describe("WooCommerce deliveries", () => {
  const deliveryUrl = () => `${server.baseUrl}/webhooks/woocommerce/${connectionId}`;

  it("answers WooCommerce's unsigned ping, and nothing else unsigned", async () => {
    const ping = await postDelivery(deliveryUrl(), "webhook_id=12", { "content-type": "application/x-www-form-urlencoded" });
    expect(ping.status).toBe(200);
    const unsigned = await postDelivery(deliveryUrl(), JSON.stringify(store.order()), { "content-type": "application/json" });
    expect(unsigned.status).toBe(401);
    const notPing = await postDelivery(deliveryUrl(), "webhook_id=12&x=1", { "content-type": "application/x-www-form-urlencoded" });
    expect(notPing.status).toBe(401);
  });

  it("refuses forged and malformed signatures, and unknown connections, creating nothing", async () => {
    const order = store.order();
    const signed = store.signedDelivery(order);
    const forged = { ...store.webhook, secret: "not-the-secret" };
    const bad = store.signedDelivery(order, forged);
    expect((await postDelivery(deliveryUrl(), bad.body, bad.headers)).status).toBe(401);
    expect((await postDelivery(deliveryUrl(), signed.body.replace('"cod"', '"COD"'), signed.headers)).status).toBe(401);
    expect((await postDelivery(deliveryUrl(), signed.body, { ...signed.headers, "x-wc-webhook-signature": "abc" })).status).toBe(401);
    expect((await postDelivery(`${server.baseUrl}/webhooks/woocommerce/00000000-0000-4000-8000-000000000000`, signed.body, signed.headers)).status).toBe(401);
    expect((await postDelivery(`${server.baseUrl}/webhooks/woocommerce/not-a-uuid`, signed.body, signed.headers)).status).toBe(401);
    expect(await ordersByExternalId(server, shop.keys.test, `woocommerce:${order.id}`)).toEqual([]);
  });

  it("answers 200 to a signed delivery whose text PostgreSQL cannot store (a NUL, raw or escaped), records nothing of it, and keeps the deliveries beside it", async () => {
    const escaped = store.signedDelivery(store.order({ customer_note: "call me\u0000" }));
    expect(escaped.body).toContain("\\u0000");
    const rawBody = escaped.body.replace("\\u0000", "\u0000");
    const raw = { body: rawBody, headers: { ...escaped.headers, "x-wc-webhook-delivery-id": "raw-nul-delivery", "x-wc-webhook-signature": signWooCommerceBody(rawBody, store.webhook.secret) } };
    const good = store.order();
    // Together, so the group commit would put them in one statement.
    const statuses = await Promise.all([
      postDelivery(deliveryUrl(), raw.body, raw.headers).then((response) => response.status),
      postDelivery(deliveryUrl(), escaped.body, escaped.headers).then((response) => response.status),
      store.deliverOrder(good).then((response) => response.status),
    ]);
    expect(statuses).toEqual([200, 200, 200]);
    await expect.poll(() => ordersByExternalId(server, shop.keys.test, `woocommerce:${good.id}`)).toHaveLength(1);
    const pool = server.app.services.database.pool;
    const stored = await pool.query(`SELECT count(*)::int AS n FROM store_deliveries WHERE payload LIKE '%call me%'`);
    expect(stored.rows[0].n).toBe(0);
  });

  it("creates a COD order through the order path, phone normalised in the address's country; redeliveries create nothing", async () => {
    const order = store.order();
    expect((await store.deliverOrder(order)).status).toBe(200);
    const externalOrderId = `woocommerce:${order.id}`;
    await expect.poll(() => ordersByExternalId(server, shop.keys.test, externalOrderId)).toHaveLength(1);
    const [created] = await ordersByExternalId(server, shop.keys.test, externalOrderId);
    expect(created).toMatchObject({
      externalOrderId,
      customerName: "Layla Hassan",
      customerPhone: "966501234567",
      subtotal: 179.5,
      shippingCost: 25,
      totalCost: 204.5,
      currency: "SAR",
      items: [expect.objectContaining({ productName: "Arabic Coffee Set", quantity: 2 }), expect.objectContaining({ variantName: "Size: L" })],
    });
    // A redelivery (WooCommerce gives each a new delivery id) and the same order from another delivery: nothing new.
    expect((await store.deliverOrder(order)).status).toBe(200);
    await expect.poll(async () => (await activityOf(admin.graphql, connectionId)).filter((entry) => entry.storeOrderId === String(order.id)).map((entry) => entry.kind)).toEqual([
      "order_skipped",
      "order_created",
    ]);
    const activity = await activityOf(admin.graphql, connectionId);
    expect(activity.find((entry) => entry.kind === "order_skipped" && entry.storeOrderId === String(order.id))?.detail).toEqual({ reason: "duplicate" });
    expect(await ordersByExternalId(server, shop.keys.test, externalOrderId)).toHaveLength(1);
    expect((await connections(admin.graphql))[0].lastOrderAt).not.toBeNull();
  });

  it("skips other payment methods and orders without a usable phone, answering 200", async () => {
    const card = store.order({ payment_method: "stripe", payment_method_title: "Credit card" });
    const noPhone = store.order();
    noPhone.billing = { ...noPhone.billing, phone: "12" };
    expect((await store.deliverOrder(card)).status).toBe(200);
    expect((await store.deliverOrder(noPhone)).status).toBe(200);
    await expect
      .poll(async () => (await activityOf(admin.graphql, connectionId)).filter((entry) => entry.kind === "order_skipped").map((entry) => [entry.storeOrderId, entry.detail.reason]))
      .toEqual(expect.arrayContaining([[String(card.id), "not_cod"], [String(noPhone.id), "no_phone"]]));
    expect(await ordersByExternalId(server, shop.keys.test, `woocommerce:${card.id}`)).toEqual([]);
    expect(await ordersByExternalId(server, shop.keys.test, `woocommerce:${noPhone.id}`)).toEqual([]);
  });

  it("creates nothing for a checkout draft, and the order once it is placed", async () => {
    const draft = store.order({ status: "checkout-draft" });
    expect((await store.deliverOrder(draft)).status).toBe(200);
    // The placed order arrives (WooCommerce sends order.created when the draft leaves draft status).
    const placed = { ...draft, status: "processing" };
    expect((await store.deliverOrder(placed)).status).toBe(200);
    await expect.poll(() => ordersByExternalId(server, shop.keys.test, `woocommerce:${draft.id}`)).toHaveLength(1);
    const entries = (await activityOf(admin.graphql, connectionId)).filter((entry) => entry.storeOrderId === String(draft.id));
    expect(entries.map((entry) => entry.kind)).toEqual(["order_created"]);
  });
});

describe("WooCommerce write-back", () => {
  async function newOrder(overrides: Record<string, unknown> = {}) {
    const order = store.order(overrides);
    await store.deliverOrder(order);
    await expect.poll(() => ordersByExternalId(server, shop.keys.test, `woocommerce:${order.id}`)).toHaveLength(1);
    const [created] = await ordersByExternalId(server, shop.keys.test, `woocommerce:${order.id}`);
    return { storeOrderId: String(order.id), orderId: created.id as string };
  }
  const notesOf = (storeOrderId: string) => store.orders.get(storeOrderId)?.notes.map((note) => note.note) ?? [];

  it("confirmed → an order note with the confirmed tag", async () => {
    const { storeOrderId, orderId } = await newOrder();
    await shop.test.post(`/api/v1/test/orders/${orderId}/customer-action`, { action: "approve" });
    await expect.poll(() => notesOf(storeOrderId)).toEqual(["cod-confirmed (order confirmation over WhatsApp)"]);
    expect(store.orders.get(storeOrderId)?.status).toBe("processing");
    await expect
      .poll(async () => (await activityOf(admin.graphql, connectionId)).find((entry) => entry.kind === "writeback_succeeded" && entry.storeOrderId === storeOrderId)?.detail)
      .toEqual({ outcome: "confirmed", effects: ["tag:cod-confirmed"] });
  });

  it("canceled → only a note while cancelOnCustomerCancel is off (the default)", async () => {
    const { storeOrderId, orderId } = await newOrder();
    await shop.test.post(`/api/v1/test/orders/${orderId}/customer-action`, { action: "cancel" });
    await expect.poll(() => notesOf(storeOrderId)).toEqual(["cod-canceled (order confirmation over WhatsApp)"]);
    await expect
      .poll(async () => (await activityOf(admin.graphql, connectionId)).find((entry) => entry.kind === "writeback_succeeded" && entry.storeOrderId === storeOrderId)?.detail)
      .toEqual({ outcome: "canceled", effects: ["tag:cod-canceled"] });
    expect(store.orders.get(storeOrderId)?.status).toBe("processing");
    expect(store.requestsTo(new RegExp(`/orders/${storeOrderId}$`), "PUT")).toEqual([]);
  });

  it("expired → a note with the unconfirmed tag; the store order cancelled too when cancelOnExpiry", async () => {
    const kept = await newOrder();
    await server.app.services.orderService.expire(kept.orderId);
    await expect.poll(() => notesOf(kept.storeOrderId)).toEqual(["cod-unconfirmed (order confirmation over WhatsApp)"]);
    await expect
      .poll(async () => (await activityOf(admin.graphql, connectionId)).find((entry) => entry.kind === "writeback_succeeded" && entry.storeOrderId === kept.storeOrderId)?.detail)
      .toEqual({ outcome: "expired", effects: ["tag:cod-unconfirmed"] });
    expect(store.orders.get(kept.storeOrderId)?.status).toBe("processing");
    expect(store.requestsTo(new RegExp(`/orders/${kept.storeOrderId}$`), "PUT")).toEqual([]);

    const updated = await admin.graphql.query(UPDATE_STORE, { id: connectionId, input: { cancelOnExpiry: true } });
    expect(updated.body.data.updateStoreConnection.userErrors).toEqual([]);
    const cancelled = await newOrder();
    await server.app.services.orderService.expire(cancelled.orderId);
    await expect.poll(() => store.orders.get(cancelled.storeOrderId)?.status).toBe("cancelled");
    expect(notesOf(cancelled.storeOrderId)).toEqual(["cod-unconfirmed (order confirmation over WhatsApp)"]);
    expect(store.requestsTo(new RegExp(`/orders/${cancelled.storeOrderId}$`), "PUT").map((request) => request.body)).toEqual([{ status: "cancelled" }]);
    // The note goes first, then the cancel (the order in which the effects are applied).
    expect(store.requestsTo(new RegExp(`/orders/${cancelled.storeOrderId}(/notes)?$`)).map((request) => request.method)).toEqual(["POST", "PUT"]);
    await admin.graphql.query(UPDATE_STORE, { id: connectionId, input: { cancelOnExpiry: false } });
  });

  it("canceled → a note, and the store order cancelled when cancelOnCustomerCancel", async () => {
    const updated = await admin.graphql.query(UPDATE_STORE, { id: connectionId, input: { cancelOnCustomerCancel: true } });
    expect(updated.body.data.updateStoreConnection.userErrors).toEqual([]);
    const { storeOrderId, orderId } = await newOrder();
    await shop.test.post(`/api/v1/test/orders/${orderId}/customer-action`, { action: "cancel" });
    await expect.poll(() => store.orders.get(storeOrderId)?.status).toBe("cancelled");
    expect(notesOf(storeOrderId)).toEqual(["cod-canceled (order confirmation over WhatsApp)"]);
    const cancels = store.requestsTo(new RegExp(`/orders/${storeOrderId}$`), "PUT");
    expect(cancels.map((request) => request.body)).toEqual([{ status: "cancelled" }]);
  });

  it("failed delivery → a note with the undeliverable tag", async () => {
    const { storeOrderId, orderId } = await newOrder();
    await shop.test.post(`/api/v1/test/orders/${orderId}/delivery`, { status: "failed" });
    await expect.poll(() => notesOf(storeOrderId)).toEqual(["cod-undeliverable (order confirmation over WhatsApp)"]);
  });

  it("waits out a 429 with Retry-After and a 5xx, then writes once", async () => {
    const { storeOrderId, orderId } = await newOrder();
    store.next(storeReply.rateLimited(1), storeReply.serverError(503));
    const started = Date.now();
    await shop.test.post(`/api/v1/test/orders/${orderId}/customer-action`, { action: "approve" });
    await expect.poll(() => notesOf(storeOrderId), { timeout: 15_000 }).toEqual(["cod-confirmed (order confirmation over WhatsApp)"]);
    const attempts = store.requestsTo(new RegExp(`/orders/${storeOrderId}/notes$`), "POST");
    expect(attempts.map((request) => request.status)).toEqual([429, 503, 201]);
    // The second attempt came no sooner than the Retry-After asked (1 s).
    expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it("gives up on a permanent refusal and says so in the activity", async () => {
    const { storeOrderId, orderId } = await newOrder();
    store.orders.delete(storeOrderId); // deleted in the store meanwhile: 404
    await shop.test.post(`/api/v1/test/orders/${orderId}/customer-action`, { action: "approve" });
    await expect
      .poll(async () => (await activityOf(admin.graphql, connectionId)).find((entry) => entry.kind === "writeback_failed" && entry.storeOrderId === storeOrderId)?.detail)
      .toEqual({ outcome: "confirmed", error: expect.stringContaining("HTTP 404") });
    expect(store.requestsTo(new RegExp(`/orders/${storeOrderId}/notes$`), "POST")).toHaveLength(1);
  });
});

describe("a key the store refuses", () => {
  it("sets the connection to ERROR at once (a WooCommerce key cannot be refreshed), with the write-back failed", async () => {
    const order = store.order();
    await store.deliverOrder(order);
    await expect.poll(() => ordersByExternalId(server, shop.keys.test, `woocommerce:${order.id}`)).toHaveLength(1);
    const [created] = await ordersByExternalId(server, shop.keys.test, `woocommerce:${order.id}`);
    store.next(storeReply.status(401, { code: "woocommerce_rest_cannot_create", message: "Sorry, you are not allowed to create resources.", data: { status: 401 } }));
    await shop.test.post(`/api/v1/test/orders/${created.id}/customer-action`, { action: "approve" });
    await expect.poll(async () => (await connections(admin.graphql)).find((entry: any) => entry.id === connectionId)?.status).toBe("ERROR");
    expect(store.requestsTo(new RegExp(`/orders/${order.id}/notes$`), "POST").map((request) => request.status)).toEqual([401]);
    await expect
      .poll(async () => (await activityOf(admin.graphql, connectionId)).find((entry) => entry.kind === "writeback_failed" && entry.storeOrderId === String(order.id))?.detail)
      .toEqual({ outcome: "confirmed", error: expect.stringContaining("401") });
  });
});

describe("disconnecting", () => {
  it("deletes the store's webhook and ignores later deliveries with 200", async () => {
    const webhook = store.webhook;
    const response = await admin.graphql.query(DISCONNECT_STORE, { id: connectionId });
    expect(response.body.data.disconnectStore).toEqual({ connection: { id: connectionId, status: "DISCONNECTED" }, userErrors: [] });
    expect(store.webhooks.size).toBe(0);
    const row = await server.app.services.database.prisma.storeConnection.findUniqueOrThrow({ where: { id: connectionId } });
    expect(row.credentials).toBeNull();
    const order = store.order();
    expect((await store.deliverOrder(order, webhook)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await ordersByExternalId(server, shop.keys.test, `woocommerce:${order.id}`)).toEqual([]);
  });

  it("reconnects the same store for the same merchant", async () => {
    const response = await admin.graphql.query(CONNECT_WOOCOMMERCE, { input: connectInput() });
    expect(response.body.data.connectWooCommerceStore.connection).toMatchObject({ id: connectionId, status: "ACTIVE" });
    const order = store.order();
    expect((await store.deliverOrder(order)).status).toBe(200);
    await expect.poll(() => ordersByExternalId(server, shop.keys.test, `woocommerce:${order.id}`)).toHaveLength(1);
  });
});

describe("the SSRF guard on store URLs", () => {
  it("refuses private addresses and plain http when private URLs are not allowed", async () => {
    const guarded = await startTestServer();
    try {
      const merchant = await guarded.merchant("Guarded");
      const session = await consoleSession(guarded, merchant.id);
      const before = store.requests.length;
      const privateUrl = await session.graphql.query(CONNECT_WOOCOMMERCE, { input: connectInput({ url: "https://127.0.0.1:8443" }) });
      expect(privateUrl.body.data.connectWooCommerceStore.userErrors).toEqual([
        expect.objectContaining({ field: ["input", "url"], message: expect.stringContaining("private") }),
      ]);
      const internal = await session.graphql.query(CONNECT_WOOCOMMERCE, { input: connectInput({ url: "https://shop.internal" }) });
      expect(internal.body.data.connectWooCommerceStore.userErrors[0].message).toContain("private");
      const http = await session.graphql.query(CONNECT_WOOCOMMERCE, { input: connectInput({ url: "http://shop.example.com" }) });
      expect(http.body.data.connectWooCommerceStore.userErrors[0].message).toContain("https://");
      // The guarded server never reached the (loopback) store.
      expect(store.requests.length).toBe(before);
    } finally {
      await guarded.close();
    }
  });
});
