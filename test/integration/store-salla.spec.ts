import { randomBytes } from "node:crypto";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type RunningApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { StoreRepository } from "../../src/domain/stores/store.repository.ts";
import { StoreService } from "../../src/domain/stores/store.service.ts";
import { consoleSession, type ConsoleSession } from "../support/console.ts";
import { usingPostgres } from "../support/database.ts";
import { FakeSalla, storeReply } from "../support/fake-salla.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { postDelivery } from "../support/store-fake-http.ts";
import { activityOf, connections, CREATE_SALLA_LINK_CODE, DISCONNECT_STORE, ordersByExternalId, UPDATE_STORE } from "../support/stores.ts";

/**
 * Salla end to end (SPEC §13): the app's signed webhooks, stores linked by one-time codes from the console,
 * `order.created` with cash on delivery creating orders, results written back within Salla's rate limits, and
 * single-use refresh tokens refreshed once per store even when instances race.
 */
let server: TestServer;
let salla: FakeSalla;
let shop: TestMerchant;
let admin: ConsoleSession;
let webhookUrl: string;
let env: Record<string, string>;
let connectionId: string;
const STORE = 1305146709;

async function linkCode(session: ConsoleSession = admin, mode = "TEST"): Promise<string> {
  const response = await session.graphql.query(CREATE_SALLA_LINK_CODE, { mode });
  expect(response.body.data.createSallaLinkCode.userErrors).toEqual([]);
  return response.body.data.createSallaLinkCode.code;
}

/**
 * A second StoreService over the same database: it shares nothing in memory with the server's, so only the
 * database's refresh lease stands between them (as between two processes).
 */
function secondInstance(): StoreService {
  const services = server.app.services;
  return new StoreService(
    new StoreRepository(services.database.prisma, services.database.pool),
    services.orderService,
    services.secrets,
    { salla: services.stores.connector("salla")! },
    pino({ level: "silent" }),
  );
}

/** Someone presents a refresh token twice at Salla's token endpoint: Salla revokes the whole grant chain. */
async function presentTwice(refreshToken: string): Promise<void> {
  for (let i = 0; i < 2; i++) {
    await fetch(`${salla.authUrl}/oauth2/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: salla.clientId, client_secret: salla.clientSecret }),
    });
  }
}

/** Installs the app on a Salla store and links it with `code`: returns the connection id. */
async function installAndLink(merchant: number, code: string, options: { expiresInSeconds?: number } = {}) {
  expect((await salla.deliver(webhookUrl, salla.event("app.store.authorize", merchant, salla.install(merchant, options)))).status).toBe(200);
  expect((await salla.deliver(webhookUrl, salla.event("app.settings.updated", merchant, { settings: { link_code: code } }))).status).toBe(200);
}

beforeAll(async () => {
  salla = await FakeSalla.start();
  env = {
    WEBHOOK_RETRY_SCHEDULE: "200ms,200ms,200ms",
    SALLA_CLIENT_ID: salla.clientId,
    SALLA_CLIENT_SECRET: salla.clientSecret,
    SALLA_WEBHOOK_SECRET: salla.webhookSecret,
    SALLA_API_URL: salla.apiUrl,
    SALLA_AUTH_URL: salla.authUrl,
    SECRETS_KEY: randomBytes(32).toString("base64"),
  };
  server = await startTestServer(env);
  webhookUrl = `${server.baseUrl}/webhooks/salla`;
  shop = await server.merchant("Salla Shop");
  admin = await consoleSession(server, shop.id);
});

afterAll(async () => {
  await server?.close();
  await salla?.close();
});

describe("Salla webhooks and linking", () => {
  it("refuses unsigned, forged and malformed signatures before anything", async () => {
    const body = salla.event("app.store.authorize", 999, salla.install(999));
    const signed = salla.signed(body);
    expect((await postDelivery(webhookUrl, signed.body, { "content-type": "application/json" })).status).toBe(401);
    const forged = salla.signed(body, "another-secret");
    expect((await postDelivery(webhookUrl, forged.body, forged.headers)).status).toBe(401);
    expect((await postDelivery(webhookUrl, signed.body, { ...signed.headers, "x-salla-signature": "xyz" })).status).toBe(401);
    expect((await postDelivery(webhookUrl, signed.body.replace("999", "998"), signed.headers)).status).toBe(401);
    expect(await server.app.services.database.prisma.sallaPendingInstall.count()).toBe(0);
  });

  it("makes link codes for admins in their own mode only", async () => {
    const code = await linkCode();
    expect(code).toMatch(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
    const live = await admin.graphql.query(CREATE_SALLA_LINK_CODE, { mode: "LIVE" });
    expect(live.body.data.createSallaLinkCode).toMatchObject({ code: null, userErrors: [expect.objectContaining({ code: "FORBIDDEN" })] });
    const viewer = await consoleSession(server, shop.id, "viewer");
    expect((await viewer.graphql.query(CREATE_SALLA_LINK_CODE, { mode: "TEST" })).body.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    // Only the code's hash is stored.
    const rows = await server.app.services.database.prisma.sallaLinkCode.findMany();
    expect(JSON.stringify(rows)).not.toContain(code.replace(/-/g, ""));
  });

  it("links a store by its code after app.store.authorize; orders of unlinked stores create nothing", async () => {
    const unlinked = salla.orderData();
    expect((await salla.deliver(webhookUrl, salla.event("order.created", STORE, unlinked))).status).toBe(200);
    const code = await linkCode();
    await installAndLink(STORE, code.toLowerCase());
    const [connection] = await connections(admin.graphql);
    expect(connection).toMatchObject({ platform: "SALLA", shop: String(STORE), mode: "TEST", status: "ACTIVE", settings: { codPaymentNames: ["cod"] } });
    connectionId = connection.id;
    const row = await server.app.services.database.prisma.storeConnection.findUniqueOrThrow({ where: { id: connectionId } });
    expect(row.credentials).toMatch(/^ocs1\./);
    expect(row.tokenExpiresAt).not.toBeNull();
    expect(await server.app.services.database.prisma.sallaPendingInstall.count({ where: { sallaMerchantId: String(STORE) } })).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await ordersByExternalId(server, shop.keys.test, `salla:${unlinked.id}`)).toEqual([]);
  });

  it("ignores with 200 an authorization whose expiry the database cannot store (past year 9999), storing nothing", async () => {
    for (const expires of [253402300800, 8640000000001, 9007199254740991]) {
      const body = salla.event("app.store.authorize", 991, { ...salla.install(991), expires });
      const signed = salla.signed(body);
      expect((await postDelivery(webhookUrl, signed.body, signed.headers)).status).toBe(200);
    }
    expect(await server.app.services.database.prisma.sallaPendingInstall.count({ where: { sallaMerchantId: "991" } })).toBe(0);
  });

  it("a reused, unknown or missing code links nothing; a code may arrive before the tokens", async () => {
    const other = await server.merchant("Other Salla Shop");
    const otherAdmin = await consoleSession(server, other.id);
    const code = await linkCode(otherAdmin);
    // Settings first, tokens second: linked when both are there.
    expect((await salla.deliver(webhookUrl, salla.event("app.settings.updated", 4242, { settings: { link_code: code } }))).status).toBe(200);
    expect(await connections(otherAdmin.graphql)).toEqual([]);
    expect((await salla.deliver(webhookUrl, salla.event("app.store.authorize", 4242, salla.install(4242)))).status).toBe(200);
    expect((await connections(otherAdmin.graphql)).map((connection: any) => connection.shop)).toEqual(["4242"]);
    // The same code again, from another store: nothing.
    await installAndLink(5353, code);
    await installAndLink(6464, "ZZZZ-ZZZZ-ZZZZ");
    expect((await salla.deliver(webhookUrl, salla.event("app.settings.updated", 7575, { settings: {} }))).status).toBe(200);
    expect((await connections(otherAdmin.graphql)).map((connection: any) => connection.shop)).toEqual(["4242"]);
    expect((await connections(admin.graphql)).map((connection: any) => connection.shop)).toEqual([String(STORE)]);
    // Isolation: neither merchant sees or changes the other's store.
    const foreign = await otherAdmin.graphql.query(DISCONNECT_STORE, { id: connectionId });
    expect(foreign.body.data.disconnectStore.connection).toBeNull();
  });
});

describe("Salla orders", () => {
  it("creates a COD order (store order id = data.id), and not a second one for a redelivery", async () => {
    const data = salla.orderData();
    const event = salla.event("order.created", STORE, data);
    expect((await salla.deliver(webhookUrl, event)).status).toBe(200);
    const externalOrderId = `salla:${data.id}`;
    await expect.poll(() => ordersByExternalId(server, shop.keys.test, externalOrderId)).toHaveLength(1);
    const [order] = await ordersByExternalId(server, shop.keys.test, externalOrderId);
    expect(order).toMatchObject({ customerName: "Mohammed Ali", customerPhone: "966501234567", subtotal: 186, shippingCost: 15, totalCost: 196, currency: "SAR" });
    // The same bytes again (Salla's retry), and the same order in a new envelope: one order.
    expect((await salla.deliver(webhookUrl, event)).status).toBe(200);
    expect((await salla.deliver(webhookUrl, { ...event, created_at: "later" })).status).toBe(200);
    await expect
      .poll(async () => (await activityOf(admin.graphql, connectionId)).filter((entry) => entry.storeOrderId === String(data.id)).map((entry) => entry.kind))
      .toEqual(["order_skipped", "order_created"]);
    expect(await ordersByExternalId(server, shop.keys.test, externalOrderId)).toHaveLength(1);
  });

  it("records deliveries arriving together in one statement, each once: the same delivery twice is fresh once", async () => {
    const { stores, database } = server.app.services;
    const webhookId = `sha256:${randomBytes(32).toString("hex")}`;
    const other = `sha256:${randomBytes(32).toString("hex")}`;
    // Same tick: one statement for all four (the group commit), with the same delivery three times in it.
    const results = await Promise.all([
      stores.receive("salla", webhookId, "order.created", "31337", "{}"),
      stores.receive("salla", webhookId, "order.created", "31337", "{}"),
      stores.receive("salla", other, "order.created", "31337", "{}"),
      stores.receive("salla", webhookId, "order.created", "31337", "{}"),
    ]);
    expect(results).toEqual([true, false, true, false]);
    expect(await stores.receive("salla", other, "order.created", "31337", "{}")).toBe(false);
    expect(await database.prisma.storeDelivery.count({ where: { platform: "salla", webhookId: { in: [webhookId, other] } } })).toBe(2);
  });

  it("skips other payment methods and drafts", async () => {
    const bank = salla.orderData({ payment_method: "bank" });
    const draft = salla.orderData({ draft: true });
    await salla.deliver(webhookUrl, salla.event("order.created", STORE, bank));
    await salla.deliver(webhookUrl, salla.event("order.created", STORE, draft));
    await expect
      .poll(async () => (await activityOf(admin.graphql, connectionId)).find((entry) => entry.storeOrderId === String(bank.id))?.detail)
      .toEqual({ reason: "not_cod", detail: "bank" });
    expect(await ordersByExternalId(server, shop.keys.test, `salla:${bank.id}`)).toEqual([]);
    expect(await ordersByExternalId(server, shop.keys.test, `salla:${draft.id}`)).toEqual([]);
    expect((await activityOf(admin.graphql, connectionId)).filter((entry) => entry.storeOrderId === String(draft.id))).toEqual([]);
  });
});

describe("Salla write-back", () => {
  async function newOrder() {
    const data = salla.orderData();
    await salla.deliver(webhookUrl, salla.event("order.created", STORE, data));
    await expect.poll(() => ordersByExternalId(server, shop.keys.test, `salla:${data.id}`)).toHaveLength(1);
    const [order] = await ordersByExternalId(server, shop.keys.test, `salla:${data.id}`);
    return { storeOrderId: String(data.id), orderId: order.id as string };
  }
  const notesOf = (storeOrderId: string) => salla.notes.filter((note) => note.orderId === storeOrderId).map((note) => note.note);
  const statusesOf = (storeOrderId: string) => salla.statusUpdates.filter((update) => update.orderId === storeOrderId);
  /** The outcome went back as its tag's note and nothing else (no status change), as the activity says too. */
  async function expectNoteOnly(storeOrderId: string, outcome: string, tag: string) {
    await expect.poll(() => notesOf(storeOrderId)).toEqual([`${tag} (order confirmation over WhatsApp)`]);
    await expect.poll(() => succeededWith(storeOrderId)).toEqual({ outcome, effects: [`tag:${tag}`] });
    expect(statusesOf(storeOrderId)).toEqual([]);
  }
  /** What the main store's activity says a succeeded write-back of that store order did. */
  const succeededWith = async (storeOrderId: string) =>
    (await activityOf(admin.graphql, connectionId)).find((entry) => entry.kind === "writeback_succeeded" && entry.storeOrderId === storeOrderId)?.detail;

  it("confirmed → a history note; canceled → a note and the status slug canceled", async () => {
    const confirmed = await newOrder();
    await shop.test.post(`/api/v1/test/orders/${confirmed.orderId}/customer-action`, { action: "approve" });
    await expect.poll(() => notesOf(confirmed.storeOrderId)).toEqual([
      "cod-confirmed (order confirmation over WhatsApp)",
    ]);
    expect(statusesOf(confirmed.storeOrderId)).toEqual([]);

    await admin.graphql.query(UPDATE_STORE, { id: connectionId, input: { cancelOnCustomerCancel: true } });
    const canceled = await newOrder();
    await shop.test.post(`/api/v1/test/orders/${canceled.orderId}/customer-action`, { action: "cancel" });
    await expect.poll(() => statusesOf(canceled.storeOrderId)).toEqual([
      { merchantId: String(STORE), orderId: canceled.storeOrderId, slug: "canceled", note: "Canceled by the customer over WhatsApp" },
    ]);
    expect(notesOf(canceled.storeOrderId)).toEqual(["cod-canceled (order confirmation over WhatsApp)"]);
  });

  it("expired → a history note; with cancelOnExpiry also the status slug canceled", async () => {
    const kept = await newOrder();
    await server.app.services.orderService.expire(kept.orderId);
    await expectNoteOnly(kept.storeOrderId, "expired", "cod-unconfirmed");

    const updated = await admin.graphql.query(UPDATE_STORE, { id: connectionId, input: { cancelOnExpiry: true } });
    expect(updated.body.data.updateStoreConnection.userErrors).toEqual([]);
    const canceled = await newOrder();
    await server.app.services.orderService.expire(canceled.orderId);
    await expect.poll(() => statusesOf(canceled.storeOrderId)).toEqual([
      { merchantId: String(STORE), orderId: canceled.storeOrderId, slug: "canceled", note: "Not confirmed by the customer in time" },
    ]);
    expect(notesOf(canceled.storeOrderId)).toEqual(["cod-unconfirmed (order confirmation over WhatsApp)"]);
    // The note first, then the status (the order in which the effects are applied).
    const calls = salla.requests.filter((request) => new RegExp(`^/admin/v2/orders/${canceled.storeOrderId}/`).test(request.path));
    expect(calls.map((request) => request.path.split("/").at(-1))).toEqual(["histories", "status"]);
    await admin.graphql.query(UPDATE_STORE, { id: connectionId, input: { cancelOnExpiry: false } });
  });

  it("canceled without cancelOnCustomerCancel → only the note; failed delivery → the undeliverable note", async () => {
    await admin.graphql.query(UPDATE_STORE, { id: connectionId, input: { cancelOnCustomerCancel: false } });
    const canceled = await newOrder();
    await shop.test.post(`/api/v1/test/orders/${canceled.orderId}/customer-action`, { action: "cancel" });
    await expectNoteOnly(canceled.storeOrderId, "canceled", "cod-canceled");

    const failed = await newOrder();
    await shop.test.post(`/api/v1/test/orders/${failed.orderId}/delivery`, { status: "failed" });
    await expectNoteOnly(failed.storeOrderId, "failed", "cod-undeliverable");
  });

  it("waits out Salla's rate limit (429 with Retry-After) without losing or repeating the write-back", async () => {
    const { storeOrderId, orderId } = await newOrder();
    salla.next(storeReply.rateLimited(1));
    await shop.test.post(`/api/v1/test/orders/${orderId}/customer-action`, { action: "approve" });
    await expect.poll(() => salla.notes.filter((note) => note.orderId === storeOrderId), { timeout: 15_000 }).toHaveLength(1);
    const attempts = salla.requests.filter((request) => request.path === `/admin/v2/orders/${storeOrderId}/histories`);
    expect(attempts.map((request) => request.status)).toEqual([429, 200]);
    expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(1000);
  });

  it("refreshes an expiring token once, with the single-use refresh token, before writing", async () => {
    const code = await linkCode();
    await installAndLink(8080, code, { expiresInSeconds: 60 });
    const connection = (await connections(admin.graphql)).find((entry: any) => entry.shop === "8080");
    const data = salla.orderData();
    await salla.deliver(webhookUrl, salla.event("order.created", 8080, data));
    await expect.poll(() => ordersByExternalId(server, shop.keys.test, `salla:${data.id}`)).toHaveLength(1);
    const [order] = await ordersByExternalId(server, shop.keys.test, `salla:${data.id}`);
    const before = salla.refreshRequests.length;
    await shop.test.post(`/api/v1/test/orders/${order.id}/customer-action`, { action: "approve" });
    await expect.poll(() => salla.notes.filter((note) => note.orderId === String(data.id))).toHaveLength(1);
    expect(salla.refreshRequests.length - before).toBe(1);
    expect(salla.isRevoked(8080)).toBe(false);
    const activity = await activityOf(admin.graphql, connection.id);
    expect(activity.map((entry) => entry.kind)).toContain("token_refreshed");
    const row = await server.app.services.database.prisma.storeConnection.findUniqueOrThrow({ where: { id: connection.id } });
    expect(row.tokenExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 24 * 3600 * 1000);
  });

  it("refreshes once when two instances race for the same store (a reused refresh token would revoke the chain)", async () => {
    const code = await linkCode();
    await installAndLink(9090, code, { expiresInSeconds: 60 });
    const connection = (await connections(admin.graphql)).find((entry: any) => entry.shop === "9090");
    const services = server.app.services;
    const other = secondInstance();
    salla.tokenDelayMs = 300;
    const before = salla.refreshRequests.length;
    try {
      const [a, b] = await Promise.all([services.stores.freshCredentials(connection.id), other.freshCredentials(connection.id)]);
      expect(a?.accessToken).toBeTruthy();
      expect(b?.accessToken).toBe(a?.accessToken);
    } finally {
      salla.tokenDelayMs = 0;
    }
    expect(salla.refreshRequests.length - before).toBe(1);
    expect(salla.isRevoked(9090)).toBe(false);
  });

  /** A store linked to the test merchant with a COD order of ours: its connection id and the order. */
  async function linkedStoreWithOrder(merchant: number) {
    await installAndLink(merchant, await linkCode());
    const connection = (await connections(admin.graphql)).find((entry: any) => entry.shop === String(merchant));
    const data = salla.orderData();
    await salla.deliver(webhookUrl, salla.event("order.created", merchant, data));
    await expect.poll(() => ordersByExternalId(server, shop.keys.test, `salla:${data.id}`)).toHaveLength(1);
    const [order] = await ordersByExternalId(server, shop.keys.test, `salla:${data.id}`);
    return { connectionId: connection.id as string, storeOrderId: String(data.id), orderId: order.id as string };
  }
  const historyCalls = (storeOrderId: string) => salla.requests.filter((request) => request.path === `/admin/v2/orders/${storeOrderId}/histories`);

  it("refreshes once and writes when Salla refuses a token before its stored expiry (401)", async () => {
    const { connectionId: id, storeOrderId, orderId } = await linkedStoreWithOrder(6060);
    // Salla expired (or revoked) the access token early: we still think it is good for 14 days.
    salla.expireAccessTokens(6060);
    const before = salla.refreshRequests.length;
    await shop.test.post(`/api/v1/test/orders/${orderId}/customer-action`, { action: "approve" });
    await expect.poll(() => salla.notes.filter((note) => note.orderId === storeOrderId)).toHaveLength(1);
    const calls = historyCalls(storeOrderId);
    expect(calls.map((request) => request.status)).toEqual([401, 200]);
    expect(calls[1].headers.authorization).not.toBe(calls[0].headers.authorization);
    expect(salla.refreshRequests.length - before).toBe(1);
    expect(salla.isRevoked(6060)).toBe(false);
    const activity = await activityOf(admin.graphql, id);
    expect(activity.find((entry) => entry.kind === "token_refreshed")?.detail).toEqual({ reason: "token refused" });
    expect(activity.find((entry) => entry.kind === "writeback_succeeded")?.detail).toEqual({ outcome: "confirmed", effects: ["tag:cod-confirmed"] });
    expect((await connections(admin.graphql)).find((entry: any) => entry.id === id)?.status).toBe("ACTIVE");
  });

  it("answers a 401 seen by two instances with one refresh: the second uses the first's new token", async () => {
    const { connectionId: id } = await linkedStoreWithOrder(6161);
    const services = server.app.services;
    const other = secondInstance();
    const refused = (await services.stores.freshCredentials(id))!.accessToken;
    salla.expireAccessTokens(6161);
    salla.tokenDelayMs = 300;
    const before = salla.refreshRequests.length;
    try {
      const [a, b] = await Promise.all([services.stores.credentialsAfterRefusal(id, refused), other.credentialsAfterRefusal(id, refused)]);
      expect(a?.accessToken).toBeTruthy();
      expect(a?.accessToken).not.toBe(refused);
      expect(b?.accessToken).toBe(a?.accessToken);
      // A write-back that was still holding the old token later: the stored new one, no second refresh.
      expect((await other.credentialsAfterRefusal(id, refused))?.accessToken).toBe(a?.accessToken);
    } finally {
      salla.tokenDelayMs = 0;
    }
    expect(salla.refreshRequests.length - before).toBe(1);
    expect(salla.isRevoked(6161)).toBe(false);
  });

  it("marks the connection ERROR when the refresh after a 401 is refused, or the new token is refused too", async () => {
    // The chain was revoked (someone presented its refresh token twice): the access token is refused, and so is
    // the refresh.
    const revoked = await linkedStoreWithOrder(6262);
    const row = await server.app.services.database.prisma.storeConnection.findUniqueOrThrow({ where: { id: revoked.connectionId } });
    expect(row.status).toBe("active");
    const stored = (await server.app.services.stores.freshCredentials(revoked.connectionId))!;
    await presentTwice(stored.refreshToken!);
    expect(salla.isRevoked(6262)).toBe(true);
    let before = salla.refreshRequests.length;
    await shop.test.post(`/api/v1/test/orders/${revoked.orderId}/customer-action`, { action: "approve" });
    await expect.poll(async () => (await connections(admin.graphql)).find((entry: any) => entry.id === revoked.connectionId)?.status).toBe("ERROR");
    expect(historyCalls(revoked.storeOrderId).map((request) => request.status)).toEqual([401]);
    expect(salla.refreshRequests.length - before).toBe(1);
    await expect
      .poll(async () => (await activityOf(admin.graphql, revoked.connectionId)).find((entry) => entry.kind === "writeback_failed")?.detail)
      .toEqual({ outcome: "confirmed", error: "token refresh refused" });

    // The refresh works but Salla refuses the new token as well (the app lost its access): one refresh, no loop.
    const refusedAgain = await linkedStoreWithOrder(6363);
    const unauthorized = { status: 401, success: false, error: { code: "Unauthorized", message: "The access token is invalid or expired." } };
    before = salla.refreshRequests.length;
    salla.next(storeReply.status(401, unauthorized), storeReply.status(401, unauthorized));
    await shop.test.post(`/api/v1/test/orders/${refusedAgain.orderId}/customer-action`, { action: "approve" });
    await expect.poll(async () => (await connections(admin.graphql)).find((entry: any) => entry.id === refusedAgain.connectionId)?.status).toBe("ERROR");
    expect(historyCalls(refusedAgain.storeOrderId).map((request) => request.status)).toEqual([401, 401]);
    expect(salla.refreshRequests.length - before).toBe(1);
    expect(salla.isRevoked(6363)).toBe(false);
  });

  it("marks the connection ERROR when Salla refuses the refresh (the chain was revoked)", async () => {
    const code = await linkCode();
    const tokens = salla.install(7070, { expiresInSeconds: 60 });
    await salla.deliver(webhookUrl, salla.event("app.store.authorize", 7070, tokens));
    await salla.deliver(webhookUrl, salla.event("app.settings.updated", 7070, { settings: { link_code: code } }));
    const data = salla.orderData();
    await salla.deliver(webhookUrl, salla.event("order.created", 7070, data));
    await expect.poll(() => ordersByExternalId(server, shop.keys.test, `salla:${data.id}`)).toHaveLength(1);
    // Someone used the refresh token twice: Salla revoked the chain.
    await presentTwice(tokens.refresh_token);
    expect(salla.isRevoked(7070)).toBe(true);
    const [order] = await ordersByExternalId(server, shop.keys.test, `salla:${data.id}`);
    await shop.test.post(`/api/v1/test/orders/${order.id}/customer-action`, { action: "approve" });
    await expect.poll(async () => (await connections(admin.graphql)).find((entry: any) => entry.shop === "7070")?.status).toBe("ERROR");
  });
});

describe("Salla uninstall and disconnect", () => {
  it("app.uninstalled disconnects; later orders are answered 200 and ignored", async () => {
    expect((await salla.deliver(webhookUrl, salla.event("app.uninstalled", STORE, {}))).status).toBe(200);
    await expect.poll(async () => (await connections(admin.graphql)).find((entry: any) => entry.id === connectionId)?.status).toBe("DISCONNECTED");
    const data = salla.orderData();
    expect((await salla.deliver(webhookUrl, salla.event("order.created", STORE, data))).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await ordersByExternalId(server, shop.keys.test, `salla:${data.id}`)).toEqual([]);
  });

  it("disconnectStore from the console stops a store the same way", async () => {
    const connection = (await connections(admin.graphql)).find((entry: any) => entry.shop === "8080");
    const response = await admin.graphql.query(DISCONNECT_STORE, { id: connection.id });
    expect(response.body.data.disconnectStore.connection).toEqual({ id: connection.id, status: "DISCONNECTED" });
    // In the audit log (written in the disconnect's own transaction), by the signed-in user; the store's own
    // uninstall above has no actor of the audit log's kinds and is only in the connection's activity.
    const entries = await server.app.services.database.prisma.auditEntry.findMany({
      where: { merchantId: shop.id, action: "store.disconnected" },
      select: { actorKind: true, target: true },
    });
    expect(entries).toEqual([{ actorKind: "user", target: connection.id }]);
    const data = salla.orderData();
    expect((await salla.deliver(webhookUrl, salla.event("order.created", 8080, data))).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await ordersByExternalId(server, shop.keys.test, `salla:${data.id}`)).toEqual([]);
  });
});

describe.skipIf(!usingPostgres)("two service instances on one PostgreSQL", () => {
  let second: RunningApp | null = null;
  afterAll(async () => {
    await second?.close();
  });

  it("refresh a store's token once between them", async () => {
    const config = loadConfig({ HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "silent", ...env });
    config.database = { kind: "postgres", url: server.app.services.database.url! };
    second = await createApp(config, { logger: pino({ level: "silent" }) });
    const code = await linkCode();
    await installAndLink(1111, code, { expiresInSeconds: 60 });
    const connection = (await connections(admin.graphql)).find((entry: any) => entry.shop === "1111");
    salla.tokenDelayMs = 300;
    const before = salla.refreshRequests.length;
    try {
      const [a, b] = await Promise.all([
        server.app.services.stores.freshCredentials(connection.id),
        second.services.stores.freshCredentials(connection.id),
      ]);
      expect(b?.accessToken).toBe(a?.accessToken);
    } finally {
      salla.tokenDelayMs = 0;
    }
    expect(salla.refreshRequests.length - before).toBe(1);
    expect(salla.isRevoked(1111)).toBe(false);
  });

  it("answer a token Salla refused (401) with one refresh between them", async () => {
    const code = await linkCode();
    await installAndLink(1212, code);
    const connection = (await connections(admin.graphql)).find((entry: any) => entry.shop === "1212");
    const refused = (await server.app.services.stores.freshCredentials(connection.id))!.accessToken;
    salla.expireAccessTokens(1212);
    salla.tokenDelayMs = 300;
    const before = salla.refreshRequests.length;
    try {
      const [a, b] = await Promise.all([
        server.app.services.stores.credentialsAfterRefusal(connection.id, refused),
        second!.services.stores.credentialsAfterRefusal(connection.id, refused),
      ]);
      expect(a?.accessToken).not.toBe(refused);
      expect(b?.accessToken).toBe(a?.accessToken);
    } finally {
      salla.tokenDelayMs = 0;
    }
    expect(salla.refreshRequests.length - before).toBe(1);
    expect(salla.isRevoked(1212)).toBe(false);
  });
});
