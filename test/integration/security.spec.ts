import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { BUTTON_PAYLOAD, type MessagingProvider } from "../../src/domain/messaging/messaging-provider.ts";
import { SecretBox } from "../../src/domain/secrets/secret-box.ts";
import { announceEndedSessions } from "../../src/cli/security-commands.ts";
import { hashSessionToken } from "../../src/domain/users/session-token.ts";
import { consoleSession, createConsoleUser, PASSWORD, signIn, signOut, type ConsoleSession } from "../support/console.ts";
import { orderInput } from "../support/fixtures.ts";
import { GraphQLClient } from "../support/graphql.ts";
import { wsUrl } from "../support/graphql-ws.ts";
import { quickReplyCallback, sendCallback, TEST_APP_SECRET } from "../support/meta-callbacks.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { createEndpoint, eventually } from "../support/webhooks.ts";

/**
 * SPEC §14, the review's findings: each test below failed on the main branch before the fix (the finding's number
 * is in the test's name). Findings 1 (first start) and 9 (cookie name) are in start.spec.ts and
 * console-session.spec.ts, 3's configuration in config.spec.ts, 13 in webhook-delivery.spec.ts, 14 in fuzz.spec.ts.
 */
// Sign-ins verify scrypt hashes (deliberately slow): a dozen of them take a while on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

let counter = 0;
const acceptingLiveProvider: MessagingProvider = {
  name: "accepting-stub",
  sendOrderConfirmation: async (message) => ({ outcome: "accepted", providerMessageId: `wamid.SEC${message.orderId}${++counter}` }),
};

let server: TestServer;
let shop: TestMerchant;
let admin: ConsoleSession;
let receiver: WebhookReceiver;

beforeAll(async () => {
  server = await startTestServer(
    {
      WHATSAPP_APP_SECRET: TEST_APP_SECRET,
      WEBHOOK_ALLOW_PRIVATE_URLS: "true",
      TRUST_PROXY: "127.0.0.1",
      SIGN_IN_RATE_LIMIT_MAX: "3",
      SIGN_IN_RATE_LIMIT_MAX_PER_EMAIL: "8",
      METRICS_TOKEN: "metrics-token-for-tests-0123456789",
      PUBLIC_BASE_URL: "https://confirm.example.com",
    },
    { liveProvider: acceptingLiveProvider },
  );
  shop = await server.merchant("Security Shop");
  admin = await consoleSession(server, shop.id, "admin");
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

const keyClient = (key: string) => new GraphQLClient(server.baseUrl, key);

describe("2: API keys cannot mint or revoke keys", () => {
  it("createApiKey and revokeApiKey with an API key are FORBIDDEN and change nothing; an admin session may", async () => {
    const before = await server.app.services.merchantService.listKeys(shop.id);
    const created = await keyClient(shop.keys.test).query("mutation { createApiKey(mode: TEST) { key } }");
    expect(created.status).toBe(403);
    expect(created.body.errors![0].extensions!.code).toBe("FORBIDDEN");
    expect(created.body.errors![0].message).toMatch(/API keys cannot create or revoke API keys/);
    expect(created.text).not.toMatch(/ek_test_/);
    const other = before.find((key) => key.mode === "test")!;
    const revoked = await keyClient(shop.keys.test).query(`mutation { revokeApiKey(id: "${other.id}") { apiKey { revokedAt } } }`);
    expect(revoked.status).toBe(403);
    expect(revoked.body.errors![0].extensions!.code).toBe("FORBIDDEN");
    const after = await server.app.services.merchantService.listKeys(shop.id);
    expect(after.map((key) => [key.id, key.revokedAt])).toEqual(before.map((key) => [key.id, key.revokedAt]));

    const bySession = await admin.graphql.query("mutation { createApiKey(mode: TEST) { key userErrors { code } } }");
    expect(bySession.body.data.createApiKey.key).toMatch(/^ek_test_/);
  });
});

describe("3: TRUST_PROXY names the proxy; the client's own X-Forwarded-For entries are not believed", () => {
  it("the audit address is the one the trusted proxy saw (right-most), not a left-most value the client chose", async () => {
    const user = await createConsoleUser(server, shop.id);
    const result = await signIn(server.baseUrl, user.email, user.password, { "x-forwarded-for": "6.6.6.6, 203.0.113.9" });
    expect(result.status).toBe(200);
    const entries = await server.app.services.auditLog.page(shop.id, { first: 5, filter: { action: "sign_in.succeeded" } });
    const mine = entries.entries.find((entry) => entry.target === user.id)!;
    expect(mine.address).toBe("203.0.113.9");
  });
});

describe("4: a tab left open does not keep its session alive, and sign-out closes its sockets at once", () => {
  function openSocket(target: TestServer, cookie: string, payload: Record<string, unknown> = { mode: "test" }): Promise<{ socket: WebSocket; closed: Promise<number> }> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(wsUrl(target), "graphql-transport-ws", { headers: { ...(cookie ? { cookie } : {}), origin: target.baseUrl } });
      const closed = new Promise<number>((done) => socket.once("close", (code) => done(code)));
      socket.once("open", () => socket.send(JSON.stringify({ type: "connection_init", payload })));
      socket.once("message", (data) => {
        const message = JSON.parse(String(data));
        if (message.type === "connection_ack") resolve({ socket, closed });
        else reject(new Error(`no ack: ${String(data)}`));
      });
      socket.once("error", reject);
    });
  }

  it("sign-out closes the session's socket with 4403 long before the periodic re-check (30 s)", async () => {
    const session = await consoleSession(server, shop.id);
    const { closed } = await openSocket(server, session.cookie);
    const started = Date.now();
    expect((await signOut(server.baseUrl, session.cookie)).status).toBe(204);
    expect(await closed).toBe(4403);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("an API key revoked in the console closes that key's sockets with 4403 at once", async () => {
    const created = await admin.graphql.query("mutation { createApiKey(mode: TEST) { key apiKey { id } } }");
    const { key, apiKey } = created.body.data.createApiKey;
    const { closed } = await openSocket(server, "", { apiKey: key });
    const started = Date.now();
    await admin.graphql.query(`mutation { revokeApiKey(id: "${apiKey.id}") { apiKey { revokedAt } } }`);
    expect(await closed).toBe(4403);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it.skipIf(!process.env.TEST_REDIS_URL)("a session ended elsewhere (the CLI, another instance) closes its sockets through Redis", async () => {
    const shared = await startTestServer({ REDIS_URL: process.env.TEST_REDIS_URL! });
    try {
      const other = await shared.merchant();
      const session = await consoleSession(shared, other.id);
      const { closed } = await openSocket(shared, session.cookie);
      const token = session.cookie.slice(session.cookie.indexOf("=") + 1);
      await announceEndedSessions(process.env.TEST_REDIS_URL!, [hashSessionToken(token)]);
      expect(await closed).toBe(4403);
    } finally {
      await shared.close();
    }
  });

  it("a new password (ocs users reset-password) closes the user's sockets with 4403", async () => {
    const session = await consoleSession(server, shop.id);
    const { closed } = await openSocket(server, session.cookie);
    await server.app.services.users.resetPassword(session.user.id, "another correct horse battery");
    expect(await closed).toBe(4403);
  });

  it("the sockets' re-check never moves lastSeenAt: the idle timeout ends the session with the tab open (4403)", async () => {
    const quick = await startTestServer({ SESSION_IDLE_TIMEOUT: "4s" }, { subscriptions: { recheckKeysEveryMs: 200 } });
    try {
      const other = await quick.merchant();
      const session = await consoleSession(quick, other.id);
      const { closed } = await openSocket(quick, session.cookie);
      const [row] = await quick.app.services.database.prisma.session.findMany({ where: { userId: session.user.id } });
      expect(await closed).toBe(4403);
      const after = await quick.app.services.database.prisma.session.findMany({ where: { userId: session.user.id } });
      // Deleted on sight once idle, and never touched by the re-checks before that.
      expect(after.every((left) => left.lastSeenAt.getTime() === row.lastSeenAt.getTime())).toBe(true);
      expect((await session.graphql.query("{ viewer { mode } }")).status).toBe(401);
    } finally {
      await quick.close();
    }
  });
});

describe("5: no automatic persisted queries; sessions POST only, trusted documents whatever the extensions", () => {
  const hash = "ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38";
  it("an API key cannot register a hash (PERSISTED_QUERY_NOT_SUPPORTED), and a session cannot run one by GET", async () => {
    const register = await keyClient(shop.keys.test).post({
      query: "{ __typename }",
      extensions: { persistedQuery: { version: 1, sha256Hash: hash } },
    });
    expect(register.text).not.toMatch(/"__typename":"Query"/);
    const hashOnly = await keyClient(shop.keys.test).post({ extensions: { persistedQuery: { version: 1, sha256Hash: hash } } });
    expect(hashOnly.body.errors![0].extensions!.code).toBe("PERSISTED_QUERY_NOT_SUPPORTED");
    expect(hashOnly.body.data ?? null).toBeNull();

    const extensions = encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hash } }));
    const byGet = await admin.graphql.raw("GET", undefined, { "apollo-require-preflight": "true" }, `?extensions=${extensions}`);
    expect(byGet.status).toBe(405);
    const byPost = await admin.graphql.post({ extensions: { persistedQuery: { version: 1, sha256Hash: hash } } });
    expect(byPost.body.errors![0].extensions!.code).toBe("PERSISTED_QUERY_NOT_FOUND");
  });
});

describe("6: sign-in throttling per (e-mail, address), a higher per-e-mail ceiling, growing delays", () => {
  it("failures from one address do not lock the user out from another; a success resets its address", async () => {
    const user = await createConsoleUser(server, shop.id);
    const from = (address: string) => ({ "x-forwarded-for": address });
    const attacker = from("198.51.100.7");
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await signIn(server.baseUrl, user.email, "wrong password!", attacker)).status);
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    // After 3 failures a delay applies (and the pair's ceiling, 3, is reached).
    const throttled = await signIn(server.baseUrl, user.email, "wrong password!", attacker);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await signIn(server.baseUrl, user.email, PASSWORD, attacker)).status).toBe(429);
    // The user, from their own address, is not locked out.
    expect((await signIn(server.baseUrl, user.email, PASSWORD, from("192.0.2.10"))).status).toBe(200);
  });

  it("the per-e-mail ceiling holds across addresses; a success from an address resets only that address", async () => {
    const user = await createConsoleUser(server, shop.id);
    const home = { "x-forwarded-for": "192.0.2.20" };
    expect((await signIn(server.baseUrl, user.email, "wrong password!", home)).status).toBe(401);
    expect((await signIn(server.baseUrl, user.email, "wrong password!", home)).status).toBe(401);
    expect((await signIn(server.baseUrl, user.email, PASSWORD, home)).status).toBe(200);
    // Reset: two more failures from home do not reach the pair's ceiling of 3.
    expect((await signIn(server.baseUrl, user.email, "wrong password!", home)).status).toBe(401);
    expect((await signIn(server.baseUrl, user.email, "wrong password!", home)).status).toBe(401);
    expect((await signIn(server.baseUrl, user.email, PASSWORD, home)).status).toBe(200);
    // Many addresses, one e-mail: 8 failures in all (the per-e-mail ceiling; 4 so far) lock every address.
    for (let i = 0; i < 4; i++) {
      expect((await signIn(server.baseUrl, user.email, "wrong password!", { "x-forwarded-for": `198.51.100.${100 + i}` })).status).toBe(401);
    }
    expect((await signIn(server.baseUrl, user.email, PASSWORD, { "x-forwarded-for": "198.51.100.200" })).status).toBe(429);
  });
});

describe("7: webhook signing secrets are sealed at rest", () => {
  it("the stored secret is an AES-GCM envelope that names no part of the secret, and deliveries verify", async () => {
    const endpoint = await createEndpoint(shop.test, { url: receiver.url() });
    receiver.secret = endpoint.secret;
    const row = await server.app.services.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(row.secret).toMatch(/^ocs1\.[A-Za-z0-9_-]{8}\./);
    expect(row.secret).not.toContain(endpoint.secret.slice("whsec_".length, 20));
    expect(server.app.services.secrets.open(row.secret, `webhook-endpoint:${endpoint.id}`)).toBe(endpoint.secret);
    // A sealed value copied into another endpoint's row does not open there.
    expect(() => server.app.services.secrets.open(row.secret, "webhook-endpoint:00000000-0000-0000-0000-000000000000")).toThrow();

    const order = (await shop.test.post("/api/v1/orders", orderInput())).body;
    const [request] = await receiver.waitFor(1, (received) => received.body?.data?.id === order.id);
    expect(request.verified).toBe(true);

    const rotated = await shop.test.post(`/api/v1/webhook-endpoints/${endpoint.id}/rotate-secret`);
    expect(rotated.status, rotated.text).toBe(200);
    const after = await server.app.services.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(SecretBox.isSealed(after.secret) && SecretBox.isSealed(after.previousSecret!)).toBe(true);
    expect(after.previousSecret).toBe(row.secret);
  });
});

describe("8: security headers", () => {
  it("nosniff everywhere, no-store on /api and /graphql (errors too), HSTS with an https PUBLIC_BASE_URL", async () => {
    for (const path of ["/api/v1/orders", "/api/v1/nothing-here", "/graphql?query=%7B__typename%7D", "/healthz", "/docs"]) {
      const response = await fetch(new URL(path, server.baseUrl), { headers: { "apollo-require-preflight": "1" } });
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(response.headers.get("strict-transport-security"), path).toBe("max-age=31536000");
      if (path.startsWith("/api") || path.startsWith("/graphql")) expect(response.headers.get("cache-control"), path).toBe("no-store");
    }
    const created = await shop.test.post("/api/v1/webhook-endpoints", { url: receiver.url() });
    expect(created.headers.get("cache-control")).toBe("no-store");
  });

  it("/docs has a CSP with frame-ancestors 'none'; without https there is no HSTS", async () => {
    const docs = await fetch(new URL("/docs/", server.baseUrl));
    const csp = docs.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/script-src 'self'/);
    const plain = await startTestServer();
    try {
      const response = await fetch(new URL("/api/v1/orders", plain.baseUrl));
      expect(response.headers.get("strict-transport-security")).toBeNull();
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      const plainDocs = await fetch(new URL("/docs/", plain.baseUrl));
      expect(plainDocs.headers.get("content-security-policy")).not.toContain("upgrade-insecure-requests");
    } finally {
      await plain.close();
    }
  });
});

describe("10: /metrics behind METRICS_TOKEN", () => {
  it("401 without or with a wrong bearer token; 200 with it", async () => {
    expect((await fetch(new URL("/metrics", server.baseUrl))).status).toBe(401);
    const wrong = await fetch(new URL("/metrics", server.baseUrl), { headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toMatch(/^Bearer/);
    const right = await fetch(new URL("/metrics", server.baseUrl), { headers: { authorization: "Bearer metrics-token-for-tests-0123456789" } });
    expect(right.status).toBe(200);
    expect(await right.text()).toContain("webhook_deliveries_due");
  });
});

describe("11: a callback without a well-formed signature header is refused before its body is read", () => {
  it("answers 401 while the announced 3 MB body has not been sent", async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL("/webhooks/whatsapp", server.baseUrl);
      const request = httpRequest(url, { method: "POST", headers: { "content-type": "application/json", "content-length": String(3_000_000) } });
      request.on("response", (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
        request.destroy();
      });
      request.on("error", (error) => (String(error).includes("socket hang up") ? undefined : reject(error)));
      request.flushHeaders(); // headers only: not a byte of the body
    });
    expect(status).toBe(401);
    const malformed = await sendCallback(server.baseUrl, { object: "whatsapp_business_account" }, { signature: "sha1=abc" });
    expect(malformed.status).toBe(401);
  });
});

describe("12: a tap applies only from the order's customer, on a live order", () => {
  async function liveOrder(phone: string) {
    const created = await shop.live.post("/api/v1/orders", orderInput({ customerPhone: phone }));
    expect(created.status, created.text).toBe(201);
    const row = await server.app.services.database.prisma.order.findUniqueOrThrow({ where: { id: created.body.id } });
    return { id: created.body.id as string, wamid: row.providerMessageId! };
  }

  it("a tap from another number, or naming a test-mode order, changes nothing; the customer's own tap applies", async () => {
    const order = await liveOrder("966500000111");
    const fromStranger = quickReplyCallback({ wamid: order.wamid, payload: BUTTON_PAYLOAD.approve(order.id), from: "966500000999" });
    expect((await sendCallback(server.baseUrl, fromStranger)).status).toBe(200);
    expect((await shop.live.get(`/api/v1/orders/${order.id}`)).body.status).toBe("pending");

    const testOrder = (await shop.test.post("/api/v1/orders", orderInput({ customerPhone: "966500000111" }))).body;
    const onTest = quickReplyCallback({ wamid: null, payload: BUTTON_PAYLOAD.cancel(testOrder.id), from: "966500000111" });
    expect((await sendCallback(server.baseUrl, onTest)).status).toBe(200);
    expect((await shop.test.get(`/api/v1/orders/${testOrder.id}`)).body.status).toBe("pending");

    const own = quickReplyCallback({ wamid: order.wamid, payload: BUTTON_PAYLOAD.approve(order.id), from: "966500000111" });
    expect((await sendCallback(server.baseUrl, own)).status).toBe(200);
    await eventually(
      async () => (await shop.live.get(`/api/v1/orders/${order.id}`)).body.status,
      (status) => status === "confirmed",
    );
  });
});
