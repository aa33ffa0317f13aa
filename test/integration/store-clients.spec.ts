import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SallaClient } from "../../src/providers/salla/salla-client.ts";
import { fetchTransport, guardedTransport } from "../../src/providers/store-support/store-http.ts";
import { verifyWooCommerceSignature, wooCommercePingWebhookId } from "../../src/providers/woocommerce/webhook-signature.ts";
import { WooCommerceClient, type WooCommerceCredentials } from "../../src/providers/woocommerce/woocommerce-client.ts";
import { FakeSalla, storeReply } from "../support/fake-salla.ts";
import { FakeWooCommerce } from "../support/fake-woocommerce.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

/**
 * The store REST clients against the fakes over real loopback HTTP (no database: the connectors' HTTP layer
 * alone). The connection flows that use them are tested with the service in store-*.spec.ts.
 */
const allowPrivate = guardedTransport({ timeoutMs: 2_000, allowPrivate: true });

describe("WooCommerce REST client", () => {
  let store: FakeWooCommerce;
  let receiver: WebhookReceiver;
  let credentials: WooCommerceCredentials;
  const client = new WooCommerceClient(allowPrivate);

  beforeAll(async () => {
    store = await FakeWooCommerce.start({ basePath: "/shop" });
    receiver = await startWebhookReceiver();
    credentials = { storeUrl: store.url, consumerKey: store.consumerKey, consumerSecret: store.consumerSecret };
  });
  afterAll(async () => {
    await store.close();
    await receiver.close();
  });

  it("accepts good credentials and tells bad ones, a non-WooCommerce site and an unreachable one apart", async () => {
    expect(await client.checkCredentials(credentials)).toEqual({ ok: true });
    expect(await client.checkCredentials({ ...credentials, consumerSecret: "cs_wrong" })).toMatchObject({
      ok: false,
      problem: "bad_credentials",
      detail: expect.stringContaining("woocommerce_rest_cannot_view"),
    });
    expect(await client.checkCredentials({ ...credentials, storeUrl: store.origin })).toMatchObject({ ok: false, problem: "not_woocommerce" });
    expect(await client.checkCredentials({ ...credentials, storeUrl: "http://127.0.0.1:1" })).toMatchObject({
      ok: false,
      problem: "unreachable",
      detail: "connection refused",
    });
    // Basic auth: the key and secret travel in the Authorization header, never in the URL.
    const checked = store.requestsTo(/webhooks\?per_page=1/)[0];
    expect(checked.headers.authorization).toBe(`Basic ${Buffer.from(`${store.consumerKey}:${store.consumerSecret}`).toString("base64")}`);
    expect(checked.path).not.toContain(store.consumerSecret);
  });

  it("never reaches a private address unless private URLs are allowed", async () => {
    const guarded = new WooCommerceClient(guardedTransport({ timeoutMs: 2_000, allowPrivate: false }));
    const before = store.requests.length;
    expect(await guarded.checkCredentials(credentials)).toMatchObject({ ok: false, problem: "unreachable", detail: expect.stringContaining("blocked") });
    const note = await guarded.addOrderNote(credentials, "1", "x");
    expect(note).toMatchObject({ ok: false, retryable: false, status: null });
    expect(store.requests.length).toBe(before);
  });

  it("creates the order webhook, which pings the delivery URL first", async () => {
    const created = await client.createOrderWebhook(credentials, { name: "Order confirmation", deliveryUrl: receiver.url("/webhooks/woocommerce/c1"), secret: "s3cret" });
    expect(created).toMatchObject({ ok: true, value: { webhookId: expect.stringMatching(/^\d+$/) } });
    const ping = receiver.requests.at(-1)!;
    expect(wooCommercePingWebhookId(Buffer.from(ping.rawBody))).toBe(created.ok ? created.value.webhookId : null);
    expect(ping.headers["x-wc-webhook-signature"]).toBeUndefined();
    expect(store.webhook).toMatchObject({ topic: "order.created", secret: "s3cret", status: "active", ping: { status: 204 } });
  });

  it("signs order deliveries over PHP's JSON bytes", async () => {
    const order = store.order({ billing: { ...store.order().billing, first_name: "ليلى" } });
    await store.deliverOrder(order);
    const delivery = receiver.requests.at(-1)!;
    expect(delivery.rawBody).toContain("\\u0644");
    expect(delivery.headers["x-wc-webhook-topic"]).toBe("order.created");
    expect(verifyWooCommerceSignature(Buffer.from(delivery.rawBody), delivery.headers["x-wc-webhook-signature"], "s3cret")).toBe(true);
    expect(verifyWooCommerceSignature(Buffer.from(JSON.stringify(JSON.parse(delivery.rawBody))), delivery.headers["x-wc-webhook-signature"], "s3cret")).toBe(false);
  });

  it("adds notes and cancels; classifies 429, 5xx, 404 and timeouts", async () => {
    const order = store.order();
    await store.deliverOrder(order);
    const id = String(order.id);
    expect(await client.addOrderNote(credentials, id, "Customer confirmed on WhatsApp")).toMatchObject({ ok: true, value: { noteId: expect.any(String) } });
    expect(store.orders.get(id)?.notes).toEqual([expect.objectContaining({ note: "Customer confirmed on WhatsApp", customer_note: false })]);
    expect(await client.cancelOrder(credentials, id)).toEqual({ ok: true, value: undefined });
    expect(store.orders.get(id)?.status).toBe("cancelled");

    store.next(storeReply.rateLimited(7), storeReply.serverError(503));
    expect(await client.addOrderNote(credentials, id, "x")).toMatchObject({ ok: false, retryable: true, status: 429, retryAfterMs: 7000 });
    expect(await client.cancelOrder(credentials, id)).toMatchObject({ ok: false, retryable: true, status: 503 });
    expect(await client.cancelOrder(credentials, "999999")).toMatchObject({
      ok: false,
      retryable: false,
      status: 404,
      detail: expect.stringContaining("woocommerce_rest_shop_order_invalid_id"),
    });
    store.next(storeReply.delay(3_000));
    expect(await client.addOrderNote(credentials, id, "x")).toMatchObject({ ok: false, retryable: true, status: null, detail: "timeout after 2000 ms" });
    store.next(storeReply.reset());
    expect(await client.addOrderNote(credentials, id, "x")).toMatchObject({ ok: false, retryable: true, status: null });
  });

  it("refuses writes with a read-only key and deletes its webhook on disconnect", async () => {
    const readOnly = await FakeWooCommerce.start({ readOnlyKey: true });
    try {
      const creds = { storeUrl: readOnly.url, consumerKey: readOnly.consumerKey, consumerSecret: readOnly.consumerSecret };
      expect(await client.createOrderWebhook(creds, { name: "x", deliveryUrl: receiver.url("/x"), secret: "s" })).toMatchObject({
        ok: false,
        retryable: false,
        unauthorized: true,
      });
    } finally {
      await readOnly.close();
    }
    const webhookId = store.webhook.id;
    expect(await client.deleteWebhook(credentials, webhookId)).toEqual({ ok: true, value: undefined });
    expect(store.webhooks.size).toBe(0);
    expect(await client.deleteWebhook(credentials, webhookId)).toEqual({ ok: true, value: undefined });
  });
});

describe("Salla API client", () => {
  let salla: FakeSalla;
  let client: SallaClient;

  beforeAll(async () => {
    salla = await FakeSalla.start();
    client = new SallaClient(
      { apiUrl: salla.apiUrl, authUrl: salla.authUrl, clientId: salla.clientId, clientSecret: salla.clientSecret },
      fetchTransport({ timeoutMs: 2_000 }),
    );
  });
  afterAll(() => salla.close());

  it("updates status and adds history notes with the merchant's token; another merchant's order is 404", async () => {
    const tokens = salla.install(111);
    const other = salla.install(222);
    const data = salla.orderData();
    salla.orders.set(String(data.id), "111");
    expect(await client.updateOrderStatus(tokens.access_token, String(data.id), "canceled", "Customer canceled on WhatsApp")).toEqual({ ok: true, value: undefined });
    expect(await client.addOrderNote(tokens.access_token, String(data.id), "Customer confirmed")).toEqual({ ok: true, value: undefined });
    expect(salla.statusUpdates).toEqual([{ merchantId: "111", orderId: String(data.id), slug: "canceled", note: "Customer canceled on WhatsApp" }]);
    expect(salla.notes).toEqual([{ merchantId: "111", orderId: String(data.id), note: "Customer confirmed" }]);
    expect(await client.addOrderNote(other.access_token, String(data.id), "x")).toMatchObject({ ok: false, retryable: false, status: 404 });
    expect(await client.addOrderNote("at.unknown", String(data.id), "x")).toMatchObject({ ok: false, unauthorized: true, status: 401 });
  });

  it("classifies the rate limit's 429 as retryable after Retry-After", async () => {
    const tokens = salla.install(333);
    const data = salla.orderData();
    salla.orders.set(String(data.id), "333");
    salla.setRateLimit({ limit: 2, windowSeconds: 60 });
    try {
      expect(await client.addOrderNote(tokens.access_token, String(data.id), "1")).toMatchObject({ ok: true });
      expect(await client.addOrderNote(tokens.access_token, String(data.id), "2")).toMatchObject({ ok: true });
      const limited = await client.addOrderNote(tokens.access_token, String(data.id), "3");
      expect(limited).toMatchObject({ ok: false, retryable: true, status: 429 });
      expect(limited.ok ? 0 : limited.retryAfterMs).toBeGreaterThanOrEqual(1000);
      expect(limited.ok ? 0 : limited.retryAfterMs).toBeLessThanOrEqual(60_000);
    } finally {
      salla.setRateLimit(undefined);
    }
  });

  it("refreshes with a single-use refresh token; a reused one revokes the chain", async () => {
    const first = salla.install(444);
    const refreshed = await client.refreshTokens(first.refresh_token);
    expect(refreshed).toMatchObject({ ok: true, value: { accessToken: expect.stringMatching(/^at\./), refreshToken: expect.stringMatching(/^rt\./) } });
    if (!refreshed.ok) throw new Error("refresh failed");
    expect(refreshed.value.refreshToken).not.toBe(first.refresh_token);
    expect(refreshed.value.expiresAt.getTime()).toBeGreaterThan(Date.now() + 13 * 24 * 3600 * 1000);

    const data = salla.orderData();
    salla.orders.set(String(data.id), "444");
    expect(await client.addOrderNote(refreshed.value.accessToken, String(data.id), "ok")).toMatchObject({ ok: true });

    // The old refresh token again: the whole chain dies, including the fresh access token.
    expect(await client.refreshTokens(first.refresh_token)).toMatchObject({ ok: false, unauthorized: true, retryable: false, status: 400 });
    expect(salla.isRevoked(444)).toBe(true);
    expect(await client.addOrderNote(refreshed.value.accessToken, String(data.id), "x")).toMatchObject({ ok: false, unauthorized: true });
    expect(await client.refreshTokens(refreshed.value.refreshToken)).toMatchObject({ ok: false, unauthorized: true });
  });

  it("reports wrong client credentials and an unreachable auth server", async () => {
    const tokens = salla.install(555);
    const wrong = new SallaClient(
      { apiUrl: salla.apiUrl, authUrl: salla.authUrl, clientId: salla.clientId, clientSecret: "nope" },
      fetchTransport({ timeoutMs: 2_000 }),
    );
    expect(await wrong.refreshTokens(tokens.refresh_token)).toMatchObject({ ok: false, unauthorized: true, status: 401, detail: expect.stringContaining("invalid_client") });
    const down = new SallaClient({ apiUrl: "http://127.0.0.1:1/admin/v2", authUrl: "http://127.0.0.1:1", clientId: "c", clientSecret: "s" }, fetchTransport({ timeoutMs: 2_000 }));
    expect(await down.refreshTokens(tokens.refresh_token)).toMatchObject({ ok: false, retryable: true, status: null });
    // The token was not consumed by the failed attempts.
    expect(await client.refreshTokens(tokens.refresh_token)).toMatchObject({ ok: true });
  });
});
