import { randomUUID } from "node:crypto";
import { buildSchema } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCHEMA_SDL } from "../../src/graphql/schema.ts";
import { consoleSession, type ConsoleSession } from "../support/console.ts";
import { orderInput } from "../support/fixtures.ts";
import { GraphQLClient, type GraphQLResponse } from "../support/graphql.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { eventually } from "../support/webhooks.ts";

/**
 * SPEC §10 over GraphQL HTTP: session cookies (X-OCS-Mode), CSRF and Origin rules, viewers, and the merchant
 * surface (viewer, API keys, webhook endpoints and deliveries) scoped by merchant and mode for sessions and keys.
 */
const CONSOLE_ORIGIN = "https://console.example.com";
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KEY_FIELDS = "id prefix mode createdAt lastUsedAt revokedAt";
const ENDPOINT_FIELDS = "id url description events enabled disabledReason previousSecretExpiresAt createdAt updatedAt";
const DELIVERY_FIELDS = "id eventId event orderId endpointId status attempts { at statusCode durationMs error } createdAt";

let server: TestServer;
let shopA: TestMerchant;
let shopB: TestMerchant;
let adminA: ConsoleSession;
let viewerA: ConsoleSession;
let adminB: ConsoleSession;
let receiver: WebhookReceiver;

beforeAll(async () => {
  server = await startTestServer({ CONSOLE_ORIGINS: CONSOLE_ORIGIN, WEBHOOK_ALLOW_PRIVATE_URLS: "true", WEBHOOK_RETRY_SCHEDULE: "100ms" });
  shopA = await server.merchant("Shop A");
  shopB = await server.merchant("Shop B");
  [adminA, viewerA, adminB] = await Promise.all([
    consoleSession(server, shopA.id, "admin"),
    consoleSession(server, shopA.id, "viewer"),
    consoleSession(server, shopB.id, "admin"),
  ]);
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

const keyClient = (key: string) => new GraphQLClient(server.baseUrl, key);

function data(response: GraphQLResponse) {
  expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
  expect(response.status).toBe(200);
  return response.body.data;
}

describe("session authentication on /graphql", () => {
  it("viewer: the console user, merchant and mode (X-OCS-Mode, default test)", async () => {
    const query = "{ viewer { user { id email role } merchant { id name } mode } }";
    expect(data(await adminA.graphql.query(query)).viewer).toEqual({
      user: { id: adminA.user.id, email: adminA.user.email, role: "ADMIN" },
      merchant: { id: shopA.id, name: "Shop A" },
      mode: "TEST",
    });
    expect(data(await viewerA.live.query(query)).viewer).toMatchObject({ user: { role: "VIEWER" }, mode: "LIVE" });
    expect(data(await adminA.graphql.withHeaders({ "x-ocs-mode": "test" }).query(query)).viewer.mode).toBe("TEST");
  });

  it("viewer for an API key: user null; the key decides the mode (X-OCS-Mode does not change it)", async () => {
    const query = "{ viewer { user { id } merchant { id name } mode } }";
    expect(data(await keyClient(shopB.keys.live).withHeaders({ "x-ocs-mode": "test" }).query(query)).viewer).toEqual({
      user: null,
      merchant: { id: shopB.id, name: "Shop B" },
      mode: "LIVE",
    });
  });

  it("an X-OCS-Mode other than test or live is a clear 400, in English or Arabic", async () => {
    for (const [language, pattern] of [["en", /X-OCS-Mode must be test or live/], ["ar", /[\u0600-\u06FF]/]] as const) {
      const response = await adminA.graphql.withHeaders({ "x-ocs-mode": "production", "accept-language": language }).query("{ viewer { mode } }");
      expect(response.status).toBe(400);
      expect(response.body.data).toBeUndefined();
      expect(response.body.errors).toHaveLength(1);
      expect(response.body.errors![0].extensions!.code).toBe("BAD_REQUEST");
      expect(response.body.errors![0].message).toMatch(pattern);
    }
  });

  it("an unknown, malformed or signed-out cookie is 401 UNAUTHENTICATED with no data", async () => {
    for (const cookie of ["__Host-ocs_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "__Host-ocs_session=bad", "__Host-ocs_session="]) {
      const response = await new GraphQLClient(server.baseUrl).withHeaders({ cookie }).query("{ apiKeys { id } }");
      expect(response.status, cookie).toBe(401);
      expect(response.body.data).toBeUndefined();
      expect(response.body.errors![0].extensions!.code).toBe("UNAUTHENTICATED");
    }
  });

  it("CSRF: cookie requests run over POST only (SPEC §14: a GET is 405, preflighted or not); a form POST is refused", async () => {
    const search = `?query=${encodeURIComponent("{ viewer { mode } }")}`;
    for (const headers of [{}, { "apollo-require-preflight": "true" }] as Record<string, string>[]) {
      const get = await adminA.graphql.raw("GET", undefined, headers, search);
      expect(get.status).toBe(405);
      expect(get.headers.get("allow")).toBe("POST");
      expect(get.body.errors![0].extensions!.code).toBe("METHOD_NOT_ALLOWED");
      expect(get.text).not.toContain('"viewer"');
    }
    // An API key may still use GET for queries (GraphQL over HTTP).
    const byKey = await keyClient(shopA.keys.test).raw("GET", undefined, { "apollo-require-preflight": "true" }, search);
    expect(byKey.status).toBe(200);
    expect(byKey.body.data.viewer.mode).toBe("TEST");
    // A cross-site form's text/plain POST is not a GraphQL request at all.
    const form = await adminA.graphql.raw("POST", JSON.stringify({ query: "mutation { createApiKey(mode: TEST) { key } }" }), {
      "content-type": "text/plain",
    });
    expect(form.status).toBeGreaterThanOrEqual(400);
    expect(form.text).not.toContain("ek_test_");
  });

  it("Origin: another site's page cannot use the cookie (403 FORBIDDEN); the own origin and CONSOLE_ORIGINS can", async () => {
    const before = (await server.app.services.merchantService.listKeys(shopA.id)).length;
    const foreign = await adminA.graphql.withHeaders({ origin: "https://evil.example" }).query("mutation { createApiKey(mode: TEST) { key } }");
    expect(foreign.status).toBe(403);
    expect(foreign.body.data).toBeUndefined();
    expect(foreign.body.errors![0].extensions!.code).toBe("FORBIDDEN");
    expect((await server.app.services.merchantService.listKeys(shopA.id)).length).toBe(before);
    for (const origin of [server.baseUrl, CONSOLE_ORIGIN]) {
      expect(data(await adminA.graphql.withHeaders({ origin }).query("{ viewer { mode } }")).viewer.mode).toBe("TEST");
    }
  });
});

/** One valid document per mutation of the schema; `covers every mutation` keeps the list complete. */
function mutationDocuments(ids: { order: string; key: string; endpoint: string; delivery: string }): Record<string, string> {
  return {
    createOrder: `mutation { createOrder(input: { externalOrderId: "V-${randomUUID().slice(0, 8)}", customerName: "V", customerPhone: "966501234567",
      subtotal: 1, shippingCost: 0, totalCost: 1, currency: "SAR", items: [{ productName: "Tea", quantity: 1, unitPrice: 1, totalPrice: 1 }] }) { order { id } } }`,
    cancelOrder: `mutation { cancelOrder(id: "${ids.order}") { order { id status } } }`,
    createApiKey: "mutation { createApiKey(mode: TEST) { key apiKey { id } } }",
    revokeApiKey: `mutation { revokeApiKey(id: "${ids.key}") { apiKey { revokedAt } } }`,
    createWebhookEndpoint: `mutation { createWebhookEndpoint(input: { url: "${receiver.url("/viewer")}" }) { secret endpoint { id } } }`,
    updateWebhookEndpoint: `mutation { updateWebhookEndpoint(id: "${ids.endpoint}", input: { enabled: false }) { endpoint { enabled } } }`,
    deleteWebhookEndpoint: `mutation { deleteWebhookEndpoint(id: "${ids.endpoint}") { deletedId } }`,
    rotateWebhookEndpointSecret: `mutation { rotateWebhookEndpointSecret(id: "${ids.endpoint}") { secret } }`,
    retryWebhookDelivery: `mutation { retryWebhookDelivery(id: "${ids.delivery}") { delivery { id } } }`,
    updateConfirmationPolicy: `mutation { updateConfirmationPolicy(input: { reminders: ["1h"] }) { policy { reminders } } }`,
    recordCustomerAnswer: `mutation { recordCustomerAnswer(orderId: "${ids.order}", action: APPROVE, channel: PHONE) { order { id status } } }`,
    sendOrderMessage: `mutation { sendOrderMessage(orderId: "${ids.order}", text: "Hello") { message { id } } }`,
    // Store connections (SPEC §13): the viewer is refused before the id is even looked up.
    updateStoreConnection: `mutation { updateStoreConnection(id: "${ids.order}", input: { codOnly: false }) { connection { id } } }`,
    disconnectStore: `mutation { disconnectStore(id: "${ids.order}") { connection { id } } }`,
    connectWooCommerceStore: `mutation { connectWooCommerceStore(input: { url: "https://shop.example.com", consumerKey: "ck_x", consumerSecret: "cs_x", mode: TEST }) { connection { id } } }`,
    createSallaLinkCode: "mutation { createSallaLinkCode(mode: TEST) { code } }",
  };
}

describe("viewers read only and never see a secret", () => {
  let ids: { order: string; key: string; endpoint: string; delivery: string };

  beforeAll(async () => {
    const endpoint = await shopA.test.post("/api/v1/webhook-endpoints", { url: receiver.url("/a") });
    const order = await shopA.test.post("/api/v1/orders", orderInput());
    // Delivered, not merely fanned out: "changes nothing" compares snapshots of a state nothing else is changing.
    const deliveries = await eventually(
      () => shopA.test.get(`/api/v1/webhook-deliveries?orderId=${order.body.id}`),
      (response) => response.body.data[0]?.status === "succeeded",
    );
    const keys = await server.app.services.merchantService.listKeys(shopA.id);
    ids = { order: order.body.id, key: keys.find((key) => key.mode === "test")!.id, endpoint: endpoint.body.id, delivery: deliveries.body.data[0].id };
  });

  it("covers every mutation of the schema", () => {
    const mutations = Object.keys(buildSchema(SCHEMA_SDL).getMutationType()!.getFields()).sort();
    expect(Object.keys(mutationDocuments(ids)).sort(), "add the new mutation to mutationDocuments").toEqual(mutations);
  });

  it("every mutation is refused with 403 FORBIDDEN (en and ar) and changes nothing", async () => {
    const snapshot = async () => ({
      keys: await server.app.services.merchantService.listKeys(shopA.id),
      endpoints: await server.app.services.webhookEndpoints.list({ merchantId: shopA.id, mode: "test" }),
      order: (await shopA.test.get(`/api/v1/orders/${ids.order}`)).body,
      orders: (await shopA.test.get("/api/v1/orders?limit=100")).body.data.length,
      delivery: (await shopA.test.get(`/api/v1/webhook-deliveries/${ids.delivery}`)).body,
      policy: (await shopA.test.get("/api/v1/confirmation-policy")).body,
    });
    const before = await snapshot();
    for (const [name, document] of Object.entries(mutationDocuments(ids))) {
      for (const language of ["en", "ar"]) {
        const response = await viewerA.graphql.withHeaders({ "accept-language": language }).query(document);
        expect(response.status, name).toBe(403);
        expect(response.body.data, name).toBeUndefined();
        expect(response.body.errors, name).toHaveLength(1);
        expect(response.body.errors![0].extensions!.code, name).toBe("FORBIDDEN");
        expect(response.body.errors![0].message).toMatch(language === "ar" ? /[\u0600-\u06FF]/ : /viewer.*may only read/);
        expect(response.text).not.toMatch(/whsec_|ek_(test|live)_[0-9A-Za-z]{8}/);
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it("queries work for a viewer, and no readable type carries a secret", async () => {
    const response = await viewerA.graphql.query(`{
      apiKeys { ${KEY_FIELDS} } webhookEndpoints { ${ENDPOINT_FIELDS} }
      webhookDeliveries(first: 5) { edges { node { ${DELIVERY_FIELDS} } } }
      order(id: "${ids.order}") { id webhookDeliveries { id } }
    }`);
    const result = data(response);
    expect(result.apiKeys.length).toBeGreaterThan(0);
    expect(result.webhookEndpoints.length).toBeGreaterThan(0);
    expect(result.order.webhookDeliveries.length).toBeGreaterThan(0);
    expect(response.text).not.toMatch(/whsec_|ek_(test|live)_[0-9A-Za-z]{8}/);
    // Secrets are fields of the create/rotate payloads only, which viewers cannot run.
    const schema = buildSchema(SCHEMA_SDL);
    for (const type of ["ApiKey", "WebhookEndpoint", "WebhookDelivery", "Viewer", "User", "Merchant", "Order"]) {
      const fields = Object.keys((schema.getType(type) as any).getFields());
      expect(fields.filter((field) => /^(secret|key|password|passwordHash|hash)$/i.test(field) || /Secret$/.test(field)), type).toEqual([]);
    }
  });
});

describe("API keys through GraphQL", () => {
  it("a session creates a key of its mode, the key works over REST, and once revoked it is refused (401)", async () => {
    const created = data(
      await adminA.live.query(`mutation { createApiKey(mode: LIVE) { key apiKey { ${KEY_FIELDS} } userErrors { code message field } } }`),
    ).createApiKey;
    expect(created.userErrors).toEqual([]);
    expect(created.key).toMatch(/^ek_live_[0-9A-Za-z]{32,}$/);
    expect(created.apiKey).toMatchObject({ mode: "LIVE", lastUsedAt: null, revokedAt: null });
    expect(created.apiKey.id).toMatch(UUID);
    expect(created.apiKey.createdAt).toMatch(ISO);
    expect(created.key.startsWith(created.apiKey.prefix)).toBe(true);

    const rest = server.api.withKey(created.key);
    expect((await rest.get("/api/v1/orders")).status).toBe(200);
    // Listed afterwards without the key itself.
    const listed = await adminA.live.query(`{ apiKeys { ${KEY_FIELDS} } }`);
    expect(data(listed).apiKeys.map((key: any) => key.id)).toContain(created.apiKey.id);
    expect(listed.text).not.toContain(created.key);

    const revoked = data(await adminA.live.query(`mutation { revokeApiKey(id: "${created.apiKey.id}") { apiKey { id revokedAt } userErrors { code } } }`)).revokeApiKey;
    expect(revoked.userErrors).toEqual([]);
    expect(revoked.apiKey.revokedAt).toMatch(ISO);
    const refused = await rest.get("/api/v1/orders");
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe("UNAUTHORIZED");
  });

  it("a session creates keys of its own mode only (FORBIDDEN userError on [mode]) and sees only its mode's keys", async () => {
    const before = (await server.app.services.merchantService.listKeys(shopA.id)).length;
    const refused = data(await adminA.graphql.query("mutation { createApiKey(mode: LIVE) { key apiKey { id } userErrors { code message field } } }")).createApiKey;
    expect(refused).toEqual({ key: null, apiKey: null, userErrors: [{ code: "FORBIDDEN", message: expect.stringMatching(/test mode.*live/), field: ["mode"] }] });
    expect((await server.app.services.merchantService.listKeys(shopA.id)).length).toBe(before);

    const fromSession = data(await adminA.graphql.query("mutation { createApiKey(mode: TEST) { key userErrors { code } } }")).createApiKey;
    expect(fromSession.key).toMatch(/^ek_test_/);

    const testKeys = data(await adminA.graphql.query("{ apiKeys { mode } }")).apiKeys;
    const liveKeys = data(await keyClient(shopA.keys.live).query("{ apiKeys { mode } }")).apiKeys;
    expect(testKeys.length).toBeGreaterThan(1);
    expect(testKeys.every((key: any) => key.mode === "TEST")).toBe(true);
    expect(liveKeys.every((key: any) => key.mode === "LIVE")).toBe(true);
  });

  it("isolation: another merchant's key, or one of the other mode, is NOT_FOUND and keeps working", async () => {
    const keysOfB = await server.app.services.merchantService.listKeys(shopB.id);
    const liveOfA = (await server.app.services.merchantService.listKeys(shopA.id)).find((key) => key.mode === "live" && !key.revokedAt)!;
    const attempts: [GraphQLClient, string][] = [
      [adminA.graphql, keysOfB[0].id],
      [adminA.live, keysOfB.find((key) => key.mode === "live")!.id],
      [adminA.graphql, liveOfA.id], // A's own live key from a test session
      [adminA.graphql, "not-a-uuid"],
      [adminA.graphql, randomUUID()],
    ];
    for (const [client, id] of attempts) {
      const result = data(await client.query(`mutation { revokeApiKey(id: "${id}") { apiKey { id } userErrors { code message field } } }`)).revokeApiKey;
      expect(result).toEqual({ apiKey: null, userErrors: [{ code: "NOT_FOUND", message: "API key not found", field: ["id"] }] });
    }
    expect((await shopB.live.get("/api/v1/orders")).status).toBe(200);
    expect((await server.api.withKey(shopA.keys.live).get("/api/v1/orders")).status).toBe(200);
    const listedByB = data(await adminB.graphql.query("{ apiKeys { id } }")).apiKeys.map((key: any) => key.id);
    const keysOfA = (await server.app.services.merchantService.listKeys(shopA.id)).map((key) => key.id);
    expect(listedByB.filter((id: string) => keysOfA.includes(id))).toEqual([]);
  });
});

describe("webhook endpoints and deliveries through GraphQL", () => {
  it("create (secret once), update, rotate (new secret), list, delete; all scoped to merchant and mode", async () => {
    const created = data(
      await adminA.graphql.query(
        `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret endpoint { ${ENDPOINT_FIELDS} } userErrors { code field } } }`,
        { input: { url: receiver.url("/crud"), events: ["order.confirmed"], description: "CRUD" } },
      ),
    ).createWebhookEndpoint;
    expect(created.userErrors).toEqual([]);
    expect(created.secret).toMatch(/^whsec_/);
    expect(created.endpoint).toMatchObject({ url: receiver.url("/crud"), events: ["order.confirmed"], description: "CRUD", enabled: true, disabledReason: null });
    const id = created.endpoint.id;

    // Visible to A in test mode only: not to A's live mode, not to B (session or key).
    for (const [client, visible] of [
      [adminA.graphql, true],
      [viewerA.graphql, true],
      [keyClient(shopA.keys.test), true],
      [adminA.live, false],
      [keyClient(shopA.keys.live), false],
      [adminB.graphql, false],
      [keyClient(shopB.keys.test), false],
    ] as const) {
      const ids = data(await client.query("{ webhookEndpoints { id } }")).webhookEndpoints.map((endpoint: any) => endpoint.id);
      expect(ids.includes(id)).toBe(visible);
    }
    // Changes from another merchant or mode: NOT_FOUND, nothing changes.
    for (const client of [adminB.graphql, adminA.live, keyClient(shopB.keys.test)]) {
      const changes = data(
        await client.query(`mutation {
          u: updateWebhookEndpoint(id: "${id}", input: { enabled: false }) { endpoint { id } userErrors { code } }
          r: rotateWebhookEndpointSecret(id: "${id}") { secret endpoint { id } userErrors { code } }
          d: deleteWebhookEndpoint(id: "${id}") { deletedId userErrors { code } }
        }`),
      );
      expect(changes.u).toEqual({ endpoint: null, userErrors: [{ code: "NOT_FOUND" }] });
      expect(changes.r).toEqual({ secret: null, endpoint: null, userErrors: [{ code: "NOT_FOUND" }] });
      expect(changes.d).toEqual({ deletedId: null, userErrors: [{ code: "NOT_FOUND" }] });
    }

    const updated = data(
      await adminA.graphql.query(
        `mutation { updateWebhookEndpoint(id: "${id}", input: { enabled: false, events: ["order.created", "order.canceled"], description: null }) { endpoint { ${ENDPOINT_FIELDS} } userErrors { code } } }`,
      ),
    ).updateWebhookEndpoint;
    expect(updated.endpoint).toMatchObject({ enabled: false, events: ["order.created", "order.canceled"], description: null, url: receiver.url("/crud") });

    const rotated = data(await adminA.graphql.query(`mutation { rotateWebhookEndpointSecret(id: "${id}") { secret endpoint { previousSecretExpiresAt } userErrors { code } } }`))
      .rotateWebhookEndpointSecret;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(Date.parse(rotated.endpoint.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23 * 3600_000);

    const deleted = data(await adminA.graphql.query(`mutation { deleteWebhookEndpoint(id: "${id}") { deletedId userErrors { code } } }`)).deleteWebhookEndpoint;
    expect(deleted).toEqual({ deletedId: id, userErrors: [] });
    expect((await shopA.test.get(`/api/v1/webhook-endpoints/${id}`)).status).toBe(404);
  });

  it("refusals are userErrors with REST's codes and the input path", async () => {
    const bad = data(
      await adminA.graphql.query(
        `mutation { createWebhookEndpoint(input: { url: "ftp://example.com/x", events: ["order.nope"] }) { secret endpoint { id } userErrors { code field message } } }`,
      ),
    ).createWebhookEndpoint;
    expect(bad.secret).toBeNull();
    expect(bad.endpoint).toBeNull();
    expect(bad.userErrors.map((error: any) => error.code)).toEqual(["VALIDATION_ERROR", "VALIDATION_ERROR"]);
    expect(bad.userErrors.map((error: any) => error.field)).toEqual(expect.arrayContaining([["input", "url"], ["input", "events", "0"]]));
  });

  it("the delivery log as a Relay connection and on the order; retry redelivers; other merchants and modes see nothing", async () => {
    const endpoint = data(
      await adminB.graphql.query(`mutation { createWebhookEndpoint(input: { url: "${receiver.url("/b")}" }) { secret endpoint { id } } }`),
    ).createWebhookEndpoint.endpoint;
    const orders = [];
    for (let i = 0; i < 2; i++) orders.push((await shopB.test.post("/api/v1/orders", orderInput())).body);
    await receiver.waitFor(2, (request) => request.path === "/b");

    const query = `query($first: Int, $after: String, $filter: WebhookDeliveryFilter) {
      webhookDeliveries(first: $first, after: $after, filter: $filter) {
        edges { cursor node { ${DELIVERY_FIELDS} } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
    const filter = { endpointId: endpoint.id };
    const all = await eventually(
      async () => data(await adminB.graphql.query(query, { first: 10, filter })).webhookDeliveries,
      (page) => page.edges.length === 2 && page.edges.every((edge: any) => edge.node.status === "SUCCEEDED"),
    );
    // Newest first, the same entries as REST's log.
    const rest = (await shopB.test.get(`/api/v1/webhook-deliveries?endpointId=${endpoint.id}`)).body.data;
    expect(all.edges.map((edge: any) => edge.node)).toEqual(rest.map((entry: any) => ({ ...entry, status: entry.status.toUpperCase() })));
    expect(all.edges[0].node).toMatchObject({ event: "order.created", orderId: orders[1].id, endpointId: endpoint.id });
    expect(all.edges[0].node.attempts[0]).toMatchObject({ statusCode: 204, error: null });

    const first = data(await adminB.graphql.query(query, { first: 1, filter })).webhookDeliveries;
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const second = data(await adminB.graphql.query(query, { first: 1, after: first.pageInfo.endCursor, filter })).webhookDeliveries;
    expect(second.edges.map((edge: any) => edge.node.id)).toEqual([all.edges[1].node.id]);
    expect(second.pageInfo.hasNextPage).toBe(false);

    const byOrder = data(await adminB.graphql.query(query, { filter: { orderId: orders[0].id, status: ["SUCCEEDED"] } })).webhookDeliveries;
    expect(byOrder.edges.map((edge: any) => edge.node.id)).toEqual([all.edges[1].node.id]);
    const onOrder = data(await adminB.graphql.query(`{ order(id: "${orders[0].id}") { webhookDeliveries { ${DELIVERY_FIELDS} } } }`)).order;
    expect(onOrder.webhookDeliveries).toEqual([all.edges[1].node]);

    // Another merchant, the other mode: nothing, and no retry.
    for (const client of [adminA.graphql, adminB.live, keyClient(shopA.keys.test)]) {
      expect(data(await client.query(query, { filter })).webhookDeliveries.edges).toEqual([]);
      expect(data(await client.query(query, { filter: { orderId: orders[0].id } })).webhookDeliveries.edges).toEqual([]);
      const retry = data(await client.query(`mutation { retryWebhookDelivery(id: "${all.edges[0].node.id}") { delivery { id } userErrors { code message } } }`));
      expect(retry.retryWebhookDelivery).toEqual({ delivery: null, userErrors: [{ code: "NOT_FOUND", message: "Webhook delivery not found" }] });
    }
    expect(data(await adminB.live.query(`{ order(id: "${orders[0].id}") { id } }`)).order).toBeNull();

    const before = receiver.requests.filter((request) => request.path === "/b").length;
    const retried = data(await adminB.graphql.query(`mutation { retryWebhookDelivery(id: "${all.edges[0].node.id}") { delivery { id status } userErrors { code } } }`))
      .retryWebhookDelivery;
    expect(retried).toEqual({ delivery: { id: all.edges[0].node.id, status: "PENDING" }, userErrors: [] });
    const again = await receiver.waitFor(before + 1, (request) => request.path === "/b");
    expect(again.at(-1)!.headers["webhook-id"]).toBe(all.edges[0].node.eventId);
  });

  it("bad page arguments are BAD_USER_INPUT naming the argument", async () => {
    const response = await adminA.graphql.query('{ webhookDeliveries(first: 0, after: "nope") { edges { cursor } } }');
    expect(response.body.data).toBeNull();
    expect(response.body.errors![0].extensions!.code).toBe("BAD_USER_INPUT");
    expect(response.body.errors![0].extensions!.details.map((detail: any) => detail.field)).toEqual([["first"], ["after"]]);
  });
});
