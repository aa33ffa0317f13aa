import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StoreRepository } from "../../src/domain/stores/store.repository.ts";
import { StoreService } from "../../src/domain/stores/store.service.ts";
import { ShopifyConnector } from "../../src/providers/shopify/shopify.connector.ts";
import { consoleSession, type ConsoleSession } from "../support/console.ts";
import { FakeShopify, shopifyOrder } from "../support/fake-shopify.ts";
import { startTestServer, type TestServer, type TestMerchant } from "../support/server.ts";
import { orderInput } from "../support/fixtures.ts";
import { eventually } from "../support/webhooks.ts";
import { DISCONNECT_STORE, installShop, onServer, STORE_CONNECTIONS, UPDATE_STORE } from "../support/shopify-install.ts";

const CLIENT_ID = "fake-app-client-id";
const CLIENT_SECRET = "fake-app-client-secret-0123456789";

describe("Shopify connector", () => {
  let fake: FakeShopify;
  let server: TestServer;
  let merchant: TestMerchant;
  let admin: ConsoleSession;
  let webhookUrl: string;
  const shop = "cod-demo.myshopify.com";
  let connectionId: string;

  const ordersOf = (merchantId: string) =>
    server.app.services.database.prisma.order.findMany({ where: { merchantId, externalOrderId: { startsWith: "shopify:" } }, include: { items: true } });
  const connection = async (session = admin) => (await session.graphql.query(STORE_CONNECTIONS)).body.data.storeConnections as any[];
  const activity = async (kind: string) => (await connection()).find((c) => c.id === connectionId).activity.filter((a: any) => a.kind === kind);
  const orderByStoreId = (storeOrderId: string) =>
    server.app.services.database.prisma.order.findFirst({ where: { externalOrderId: `shopify:${storeOrderId}` } });
  const settings = (input: Record<string, unknown>) => admin.graphql.query(UPDATE_STORE, { id: connectionId, input });

  beforeAll(async () => {
    fake = await new FakeShopify({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }).start();
    server = await startTestServer({
      SHOPIFY_CLIENT_ID: CLIENT_ID,
      SHOPIFY_CLIENT_SECRET: CLIENT_SECRET,
      SHOPIFY_SHOP_ORIGIN: fake.shopOrigin,
      COOKIE_SECURE: "false",
      WEBHOOK_RETRY_SCHEDULE: "100ms,200ms,300ms",
    });
    webhookUrl = `${server.baseUrl}/webhooks/shopify`;
    merchant = await server.merchant("Shop A");
    admin = await consoleSession(server, merchant.id, "admin");
  });

  afterAll(async () => {
    await server?.close();
    await fake?.stop();
  });

  describe("install", () => {
    it("refuses without a session, for a viewer, for bad shop names and bad modes", async () => {
      const url = (query: string) => `${server.baseUrl}/integrations/shopify/install?${query}`;
      expect((await fetch(url(`shop=${shop}&mode=test`), { redirect: "manual" })).status).toBe(401);
      const viewer = await consoleSession(server, merchant.id, "viewer");
      expect((await fetch(url(`shop=${shop}&mode=test`), { headers: { cookie: viewer.cookie }, redirect: "manual" })).status).toBe(403);
      for (const bad of ["evil.com", "cod-demo.myshopify.com.evil.com", "https://cod-demo.myshopify.com", "", "a/b.myshopify.com", "x".repeat(70) + ".myshopify.com"]) {
        const response = await fetch(url(`shop=${encodeURIComponent(bad)}&mode=test`), { headers: { cookie: admin.cookie }, redirect: "manual" });
        expect(response.status, bad).toBe(400);
      }
      expect((await fetch(url(`shop=${shop}&mode=prod`), { headers: { cookie: admin.cookie }, redirect: "manual" })).status).toBe(400);
      // A page of another site cannot start an install with the admin's cookie.
      const crossSite = await fetch(url(`shop=${shop}&mode=test`), { headers: { cookie: admin.cookie, "sec-fetch-site": "cross-site" }, redirect: "manual" });
      expect(crossSite.status).toBe(403);
      expect(await connection()).toEqual([]);
    });

    it("refuses a forged hmac, an unknown state and a state of another session at the callback", async () => {
      const callbackUrl = `${server.baseUrl}/integrations/shopify/callback`;
      const start = await fetch(`${server.baseUrl}/integrations/shopify/install?shop=${shop}&mode=test`, { headers: { cookie: admin.cookie }, redirect: "manual" });
      expect(start.status).toBe(302);
      const authorize = new URL(start.headers.get("location")!);
      expect(authorize.pathname).toBe(`/${shop}/admin/oauth/authorize`);
      expect(authorize.searchParams.get("client_id")).toBe(CLIENT_ID);
      expect(authorize.searchParams.get("redirect_uri")).toMatch(/\/integrations\/shopify\/callback$/);
      const state = authorize.searchParams.get("state")!;
      const forged = fake.signedCallback(callbackUrl, { code: "abc", shop, state }, "not-the-secret");
      expect((await fetch(forged, { headers: { cookie: admin.cookie }, redirect: "manual" })).status).toBe(401);
      const unknownState = fake.signedCallback(callbackUrl, { code: "abc", shop, state: "0".repeat(64) });
      expect((await fetch(unknownState, { headers: { cookie: admin.cookie }, redirect: "manual" })).status).toBe(403);
      const otherAdmin = await consoleSession(server, merchant.id, "admin");
      const stolen = fake.signedCallback(callbackUrl, { code: "abc", shop, state });
      expect((await fetch(stolen, { headers: { cookie: otherAdmin.cookie }, redirect: "manual" })).status).toBe(403);
      // The state is single use: even its own session cannot use it now.
      expect((await fetch(stolen, { headers: { cookie: admin.cookie }, redirect: "manual" })).status).toBe(403);
      expect(await connection()).toEqual([]);
      expect(fake.tokenRequests).toHaveLength(0);
    });

    it("connects the shop: expiring token sealed at rest, webhooks subscribed, defaults set", async () => {
      const steps = await installShop(server, fake, admin, shop, "test");
      expect(steps.callback?.status).toBe(302);
      expect(steps.callback?.headers.get("location")).toMatch(/^\/console\/stores\?connected=/);
      expect(fake.tokenRequests.at(-1)?.body).toMatchObject({ client_id: CLIENT_ID, expiring: "1" });
      const [found] = await connection();
      connectionId = found.id;
      expect(found).toMatchObject({
        platform: "SHOPIFY",
        shop,
        mode: "TEST",
        status: "ACTIVE",
        settings: {
          codOnly: true,
          codPaymentNames: ["Cash on Delivery (COD)", "cash on delivery", "COD"],
          tagConfirmed: "cod-confirmed",
          tagCanceled: "cod-canceled",
          tagExpired: "cod-unconfirmed",
          tagFailed: "cod-undeliverable",
          cancelOnCustomerCancel: false,
          cancelOnExpiry: false,
          holdFulfillmentUntilConfirmed: false,
          language: "en",
        },
      });
      expect((await admin.live.query(STORE_CONNECTIONS)).body.data.storeConnections).toEqual([]);
      expect(fake.shop(shop).subscriptions.map((sub) => sub.topic).sort()).toEqual(["APP_UNINSTALLED", "ORDERS_CREATE"]);
      expect(fake.shop(shop).subscriptions.every((sub) => sub.uri.endsWith("/webhooks/shopify"))).toBe(true);
      const row = await server.app.services.database.prisma.storeConnection.findUniqueOrThrow({ where: { id: connectionId } });
      const token = [...fake.shop(shop).accessTokens.keys()][0];
      expect(row.credentials).toMatch(/^ocs1\./);
      expect(row.credentials).not.toContain(token);
      expect(row.tokenExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 50 * 60 * 1000);
    });

    it("never connects a shop already connected to another merchant (tenant isolation)", async () => {
      const other = await server.merchant("Shop B");
      const otherAdmin = await consoleSession(server, other.id, "admin");
      const steps = await installShop(server, fake, otherAdmin, shop, "test");
      expect(steps.callback?.status).toBe(409);
      expect(await connection(otherAdmin)).toEqual([]);
      // Orders of the shop go to merchant A only.
      const order = shopifyOrder();
      expect((await fake.sendOrder(webhookUrl, shop, order)).status).toBe(200);
      await eventually(() => ordersOf(merchant.id), (orders) => orders.some((o) => o.externalOrderId === `shopify:${order.id}`));
      expect(await ordersOf(other.id)).toEqual([]);
    });
  });

  describe("orders/create", () => {
    it("creates a COD order through the create path, with the store's figures, phone and language", async () => {
      const order = shopifyOrder({}, "820982911946154999");
      const response = await fake.sendOrder(webhookUrl, shop, order);
      expect(response.status).toBe(200);
      const created = await eventually(() => orderByStoreId(order.id), (found) => found !== null && found.sendState !== "sending");
      expect(created).toMatchObject({
        merchantId: merchant.id,
        mode: "test",
        externalOrderId: "shopify:820982911946154999",
        customerName: "Layla Hassan",
        customerPhone: "966501234567",
        currency: "SAR",
        language: "ar",
        status: "pending",
      });
      expect(String(created!.totalCost)).toBe("423");
      expect(String(created!.subtotal)).toBe("398");
      // The same path as POST /api/v1/orders: visible over the API, with order.created in the outbox.
      const viaApi = await merchant.test.get(`/api/v1/orders/${created!.id}`);
      expect(viaApi.status).toBe(200);
      expect((await server.outbox(created!.id)).map((event) => event.type)).toEqual(["order.created"]);
      const entries = await activity("order_created");
      expect(entries.some((entry: any) => entry.storeOrderId === order.id && entry.orderId === created!.id)).toBe(true);
      expect((await connection()).find((c) => c.id === connectionId).lastOrderAt).not.toBeNull();
    });

    it("skips prepaid orders, missing and invalid phones, with reasons in the activity log", async () => {
      const prepaid = shopifyOrder({ payment_gateway_names: ["shopify_payments"], gateway: "shopify_payments" });
      const noPhone = shopifyOrder({ shipping_address: { name: "No Phone", country_code: "SA" }, customer: null });
      const badPhone = shopifyOrder({ shipping_address: { name: "Bad", phone: "123", country_code: "SA" } });
      for (const order of [prepaid, noPhone, badPhone]) expect((await fake.sendOrder(webhookUrl, shop, order)).status).toBe(200);
      const skipped = await eventually(() => activity("order_skipped"), (entries) => entries.length >= 3);
      const reasons = Object.fromEntries(skipped.map((entry: any) => [entry.storeOrderId, entry.detail.reason]));
      expect(reasons[prepaid.id]).toBe("not_cod");
      expect(reasons[noPhone.id]).toBe("no_phone");
      expect(reasons[badPhone.id]).toBe("invalid");
      for (const order of [prepaid, noPhone, badPhone]) expect(await orderByStoreId(order.id)).toBeNull();
    });

    it("creates nothing new for a redelivered webhook or the same order under another webhook id", async () => {
      const order = shopifyOrder();
      expect((await fake.sendOrder(webhookUrl, shop, order, { webhookId: "redelivered-1" })).status).toBe(200);
      expect((await fake.sendOrder(webhookUrl, shop, order, { webhookId: "redelivered-1" })).status).toBe(200);
      expect((await fake.sendOrder(webhookUrl, shop, order, { webhookId: "another-id" })).status).toBe(200);
      await eventually(() => activity("order_skipped"), (entries) => entries.some((entry: any) => entry.storeOrderId === order.id && entry.detail.reason === "duplicate"));
      const orders = await server.app.services.database.prisma.order.findMany({ where: { externalOrderId: `shopify:${order.id}` } });
      expect(orders).toHaveLength(1);
      expect(await server.app.services.database.prisma.storeDelivery.count({ where: { webhookId: "redelivered-1" } })).toBe(1);
    });

    it("answers 401 to forged or unsigned deliveries and stores nothing", async () => {
      const before = await server.app.services.database.prisma.storeDelivery.count();
      const order = shopifyOrder();
      expect((await fake.sendWebhook(webhookUrl, shop, "orders/create", order.json, { secret: "forged" })).status).toBe(401);
      expect((await fake.sendWebhook(webhookUrl, shop, "orders/create", order.json, { hmac: null })).status).toBe(401);
      expect((await fake.sendWebhook(webhookUrl, shop, "orders/create", order.json, { hmac: "garbage" })).status).toBe(401);
      expect(await server.app.services.database.prisma.storeDelivery.count()).toBe(before);
      expect(await orderByStoreId(order.id)).toBeNull();
    });

    it("answers 200 to verified deliveries it cannot use (unknown shop, unknown topic, not JSON)", async () => {
      expect((await fake.sendOrder(webhookUrl, "nobody.myshopify.com", shopifyOrder())).status).toBe(200);
      expect((await fake.sendWebhook(webhookUrl, shop, "products/update", "{}")).status).toBe(200);
      expect((await fake.sendWebhook(webhookUrl, shop, "orders/create", "not json")).status).toBe(200);
    });
  });

  describe("write-back", () => {
    const placeOrder = async (overrides: Record<string, unknown> = {}) => {
      const order = shopifyOrder(overrides);
      expect((await fake.sendOrder(webhookUrl, shop, order)).status).toBe(200);
      const created = await eventually(() => orderByStoreId(order.id), (found) => found !== null && found.status === "pending" && found.sendState === "accepted");
      return { storeOrderId: order.id, orderId: created!.id };
    };

    it("tags a confirmed order", async () => {
      const { storeOrderId, orderId } = await placeOrder();
      await server.app.services.orderService.applyCustomerAction(orderId, "approve");
      await eventually(async () => fake.order(shop, storeOrderId).tags, (tags) => tags.includes("cod-confirmed"));
      await eventually(() => activity("writeback_succeeded"), (entries) => entries.some((entry: any) => entry.orderId === orderId));
      expect(fake.order(shop, storeOrderId).cancelled).toBeNull();
    });

    it("tags a canceled order, and cancels it in the store when cancelOnCustomerCancel", async () => {
      const first = await placeOrder();
      await server.app.services.orderService.applyCustomerAction(first.orderId, "cancel");
      await eventually(async () => fake.order(shop, first.storeOrderId).tags, (tags) => tags.includes("cod-canceled"));
      expect(fake.order(shop, first.storeOrderId).cancelled).toBeNull();

      expect((await settings({ cancelOnCustomerCancel: true })).body.data.updateStoreConnection.userErrors).toEqual([]);
      const second = await placeOrder();
      await server.app.services.orderService.applyCustomerAction(second.orderId, "cancel");
      await eventually(async () => fake.order(shop, second.storeOrderId).cancelled, (cancelled) => cancelled !== null);
      expect(fake.order(shop, second.storeOrderId)).toMatchObject({ tags: ["cod-canceled"], cancelled: { reason: "CUSTOMER" } });
      const cancel = fake.callsOf("OrderCancel").find((call) => call.variables.orderId.endsWith(second.storeOrderId));
      expect(cancel?.variables.reason).toBe("CUSTOMER");
      await settings({ cancelOnCustomerCancel: false });
    });

    it("tags an expired order and cancels it with reason OTHER when cancelOnExpiry", async () => {
      await settings({ cancelOnExpiry: true });
      const { storeOrderId, orderId } = await placeOrder();
      await server.app.services.orderService.expire(orderId);
      await eventually(async () => fake.order(shop, storeOrderId).cancelled, (cancelled) => cancelled !== null);
      expect(fake.order(shop, storeOrderId)).toMatchObject({ tags: ["cod-unconfirmed"], cancelled: { reason: "OTHER" } });
      await settings({ cancelOnExpiry: false });
    });

    it("tags an undeliverable order", async () => {
      const { storeOrderId, orderId } = await placeOrder();
      await server.app.services.orderService.applyDeliveryStatus(orderId, "failed", { errorCode: 131026, failureReason: "Message undeliverable" });
      await eventually(async () => fake.order(shop, storeOrderId).tags, (tags) => tags.includes("cod-undeliverable"));
    });

    it("writes no tag set to null", async () => {
      await settings({ tagConfirmed: null });
      const { storeOrderId, orderId } = await placeOrder();
      await server.app.services.orderService.applyCustomerAction(orderId, "approve");
      await eventually(
        () => server.app.services.database.prisma.storeWriteback.findMany({ where: { orderId } }),
        (rows) => rows.length === 1 && rows[0].status === "succeeded",
      );
      expect(fake.order(shop, storeOrderId).tags).toEqual([]);
      await settings({ tagConfirmed: "cod-confirmed" });
    });

    it("holds fulfillment while pending (waiting for fulfillment orders to exist) and releases it on confirmation", async () => {
      await settings({ holdFulfillmentUntilConfirmed: true });
      fake.options.fulfillmentOrdersAfterQueries = 2;
      const { storeOrderId, orderId } = await placeOrder();
      await eventually(async () => fake.order(shop, storeOrderId).fulfillmentOrders, (nodes) => nodes.length === 1 && nodes[0].status === "ON_HOLD", 20_000);
      await server.app.services.orderService.applyCustomerAction(orderId, "approve");
      await eventually(async () => fake.order(shop, storeOrderId), (order) => order.tags.includes("cod-confirmed") && order.fulfillmentOrders[0].status === "OPEN");
      const calls = fake.calls.filter((call) => JSON.stringify(call.variables).includes(storeOrderId.slice(-6))).map((call) => call.operationName);
      expect(calls.indexOf("FulfillmentOrderHold")).toBeLessThan(calls.indexOf("FulfillmentOrderReleaseHold"));
      expect(calls.filter((name) => name === "FulfillmentOrders").length).toBeGreaterThanOrEqual(3);
      fake.options.fulfillmentOrdersAfterQueries = 0;
      await settings({ holdFulfillmentUntilConfirmed: false });
    });

    it("retries throttling and 5xx (after Retry-After), in order, applying each effect once", async () => {
      await settings({ cancelOnCustomerCancel: true });
      const { storeOrderId, orderId } = await placeOrder();
      fake.failures.push({ kind: "throttled" }, { kind: "status", status: 503, retryAfter: "1" }, { kind: "status", status: 500 });
      await server.app.services.orderService.applyCustomerAction(orderId, "cancel");
      await eventually(async () => fake.order(shop, storeOrderId).cancelled, (cancelled) => cancelled !== null, 20_000);
      const ours = fake.calls.filter((call) => JSON.stringify(call.variables).includes(storeOrderId));
      const names = ours.map((call) => call.operationName);
      expect(names).toEqual(["TagsAdd:THROTTLED", "TagsAdd", "TagsAdd", "TagsAdd", "OrderCancel"]);
      // Retry-After: 1 was honoured between the 503 and the next try.
      expect(ours[2].at - ours[1].at).toBeGreaterThanOrEqual(950);
      expect(fake.order(shop, storeOrderId).tags).toEqual(["cod-canceled"]);
      await settings({ cancelOnCustomerCancel: false });
    });

    it("records a permanent failure (userErrors) without retrying", async () => {
      const { storeOrderId, orderId } = await placeOrder();
      fake.failures.push({ kind: "userErrors", message: "Tags are invalid" });
      await server.app.services.orderService.applyCustomerAction(orderId, "approve");
      const failed = await eventually(() => activity("writeback_failed"), (entries) => entries.some((entry: any) => entry.orderId === orderId));
      expect(failed.find((entry: any) => entry.orderId === orderId).detail.error).toContain("Tags are invalid");
      expect(fake.calls.filter((call) => call.operationName === "TagsAdd" && call.variables.id.endsWith(storeOrderId))).toHaveLength(1);
    });
  });

  describe("tokens", () => {
    it("refreshes an expiring token once, even with several callers at a time", async () => {
      await server.app.services.database.prisma.storeConnection.update({ where: { id: connectionId }, data: { tokenExpiresAt: new Date(Date.now() + 60_000) } });
      const before = fake.shop(shop).refreshes;
      const results = await Promise.all([1, 2, 3, 4].map(() => server.app.services.stores.freshCredentials(connectionId)));
      expect(fake.shop(shop).refreshes).toBe(before + 1);
      expect(new Set(results.map((result) => result?.accessToken)).size).toBe(1);
      const row = await server.app.services.database.prisma.storeConnection.findUniqueOrThrow({ where: { id: connectionId } });
      expect(row.tokenExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 50 * 60 * 1000);
      // The new token works for write-backs.
      const order = shopifyOrder();
      await fake.sendOrder(webhookUrl, shop, order);
      const created = await eventually(() => orderByStoreId(order.id), (found) => found?.status === "pending" && found.sendState === "accepted");
      await server.app.services.orderService.applyCustomerAction(created!.id, "approve");
      await eventually(async () => fake.order(shop, order.id).tags, (tags) => tags.includes("cod-confirmed"));
    });
  });

  describe("tokens across instances", () => {
    it("refreshes once when two instances (two services on one database) need a fresh token at the same time", async () => {
      const services = server.app.services;
      const second = new StoreService(
        new StoreRepository(services.database.prisma, services.database.pool),
        services.orderService,
        services.secrets,
        { shopify: new ShopifyConnector({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, shopOrigin: fake.shopOrigin, apiVersion: "2026-10", scopes: "read_orders", timeoutMs: 10_000 }) },
        pino({ level: "silent" }),
      );
      await services.database.prisma.storeConnection.update({ where: { id: connectionId }, data: { tokenExpiresAt: new Date(Date.now() + 60_000) } });
      const before = fake.shop(shop).refreshes;
      const results = await Promise.all([services.stores.freshCredentials(connectionId), second.freshCredentials(connectionId), second.freshCredentials(connectionId)]);
      expect(fake.shop(shop).refreshes).toBe(before + 1);
      expect(new Set(results.map((result) => result?.accessToken)).size).toBe(1);
    });
  });

  describe("settings and roles", () => {
    it("lets viewers read without secrets and refuses their changes", async () => {
      const viewer = await consoleSession(server, merchant.id, "viewer");
      const list = await viewer.graphql.query(STORE_CONNECTIONS);
      expect(list.body.data.storeConnections[0].id).toBe(connectionId);
      expect(JSON.stringify(list.body)).not.toMatch(/shpat_|shprt_|ocs1\./);
      const update = await viewer.graphql.query(UPDATE_STORE, { id: connectionId, input: { codOnly: false } });
      expect(update.body.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    });

    it("returns userErrors for invalid settings and unknown ids", async () => {
      const bad = await settings({ tagConfirmed: "a,b", codPaymentNames: [] });
      expect(bad.body.data.updateStoreConnection.connection).toBeNull();
      expect(bad.body.data.updateStoreConnection.userErrors.map((error: any) => error.field.join("."))).toEqual(
        expect.arrayContaining(["input.tagConfirmed", "input.codPaymentNames"]),
      );
      const unknown = await admin.graphql.query(UPDATE_STORE, { id: "0196b7a8-7d1e-7c55-a9c7-000000000000", input: { codOnly: false } });
      expect(unknown.body.data.updateStoreConnection.userErrors[0].field).toEqual(["id"]);
      // Another merchant's admin cannot see or change it.
      const other = await server.merchant("Shop C");
      const otherAdmin = await consoleSession(server, other.id, "admin");
      const foreign = await otherAdmin.graphql.query(UPDATE_STORE, { id: connectionId, input: { codOnly: false } });
      expect(foreign.body.data.updateStoreConnection.userErrors[0].field).toEqual(["id"]);
    });
  });

  describe("compliance and uninstall", () => {
    it("redacts a customer's personal data in our orders from that shop", async () => {
      const order = shopifyOrder();
      await fake.sendOrder(webhookUrl, shop, order);
      const created = await eventually(() => orderByStoreId(order.id), (found) => found?.sendState === "accepted");
      const body = JSON.stringify({ shop_id: 954889, shop_domain: shop, customer: { id: 191167, email: "layla@example.com", phone: "+966501234567" }, orders_to_redact: [Number(order.id.slice(0, 15))] }).replace(
        String(Number(order.id.slice(0, 15))),
        order.id,
      );
      expect((await fake.sendWebhook(webhookUrl, shop, "customers/redact", body)).status).toBe(200);
      const redacted = await eventually(() => orderByStoreId(order.id), (found) => found?.customerName === "Redacted");
      expect(redacted).toMatchObject({ customerPhone: "0", customerAddress: null, note: null });
      const events = await server.outbox(created!.id);
      expect(JSON.stringify(events.map((event) => event.payload))).not.toContain("Layla");
      expect((await fake.sendWebhook(webhookUrl, shop, "customers/data_request", JSON.stringify({ shop_domain: shop, orders_requested: [] }))).status).toBe(200);
      await eventually(() => activity("data_requested"), (entries) => entries.length === 1);
    });

    it("disconnects on APP_UNINSTALLED: tokens deleted, later deliveries answered and ignored", async () => {
      expect((await fake.sendWebhook(webhookUrl, shop, "app/uninstalled", JSON.stringify({ id: 548380009, domain: shop }))).status).toBe(200);
      await eventually(() => connection(), (list) => list.find((c) => c.id === connectionId)?.status === "DISCONNECTED");
      const row = await server.app.services.database.prisma.storeConnection.findUniqueOrThrow({ where: { id: connectionId } });
      expect(row.credentials).toBeNull();
      const order = shopifyOrder();
      expect((await fake.sendOrder(webhookUrl, shop, order)).status).toBe(200);
      await eventually(() => server.app.services.database.prisma.storeDelivery.findFirst({ where: { shop, status: "pending" } }), (pending) => pending === null);
      expect(await orderByStoreId(order.id)).toBeNull();
    });

    it("reconnects, then disconnectStore stops everything the same way", async () => {
      const steps = await installShop(server, fake, admin, shop, "test");
      expect(steps.callback?.status).toBe(302);
      const [again] = (await connection()).filter((c) => c.shop === shop);
      expect(again).toMatchObject({ id: connectionId, status: "ACTIVE" });
      const result = await admin.graphql.query(DISCONNECT_STORE, { id: connectionId });
      expect(result.body.data.disconnectStore).toEqual({ connection: { id: connectionId, status: "DISCONNECTED" }, userErrors: [] });
      const order = shopifyOrder();
      expect((await fake.sendOrder(webhookUrl, shop, order)).status).toBe(200);
      await eventually(() => server.app.services.database.prisma.storeDelivery.findFirst({ where: { shop, status: "pending" } }), (pending) => pending === null);
      expect(await orderByStoreId(order.id)).toBeNull();
      expect(onServer(server, "http://localhost:1/x?y=1")).toBe(`${server.baseUrl}/x?y=1`);
    });

    it("erases the shop's customers on shop/redact, which Shopify sends 48 hours after the uninstall (no live connection)", async () => {
      const prisma = server.app.services.database.prisma;
      const fromShop = () =>
        prisma.order.findMany({ where: { merchantId: merchant.id, externalOrderId: { startsWith: "shopify:" } }, select: { customerName: true, customerPhone: true } });
      // The shop's orders as they were before the customer's redaction above (which named every one of them).
      await prisma.order.updateMany({
        where: { merchantId: merchant.id, externalOrderId: { startsWith: "shopify:" } },
        data: { customerName: "Layla Again", customerPhone: "966501234567" },
      });
      expect((await fromShop()).length).toBeGreaterThan(1);
      const other = await server.merchant("Not Shopify");
      const untouched = await other.test.post("/api/v1/orders", orderInput());
      expect(untouched.status).toBe(201);
      expect((await fake.sendWebhook(webhookUrl, shop, "shop/redact", JSON.stringify({ shop_id: 954889, shop_domain: shop }))).status).toBe(200);
      const after = await eventually(fromShop, (orders) => orders.every((order) => order.customerName === "Redacted"));
      expect(after.length).toBeGreaterThan(1);
      expect(after.every((order) => order.customerPhone === "0")).toBe(true);
      await eventually(() => activity("shop_redacted"), (entries) => entries.length === 1);
      // Only that shop's orders.
      expect((await prisma.order.findUniqueOrThrow({ where: { id: untouched.body.id } })).customerName).not.toBe("Redacted");
    });
  });
});
