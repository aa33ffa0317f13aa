import type { Client } from "graphql-ws";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { connectWithCookie, consoleSession, createConsoleUser, signedIn, signIn, type ConsoleSession } from "../support/console.ts";
import { orderInput } from "../support/fixtures.ts";
import { subscribe, wsUrl, type Collector } from "../support/graphql-ws.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import type { MessagingProvider } from "../../src/domain/messaging/messaging-provider.ts";

/**
 * SPEC §10 on the websocket: the session cookie authenticates only from an allowed Origin (cross-site websocket
 * hijacking), the mode comes from connection_init, tenancy is that of API keys, and sessions that end
 * (sign-out, password reset, user removal, expiry) lose their sockets. Also: password resets and user removals
 * revoke sessions over HTTP.
 */
const CONSOLE_ORIGIN = "https://console.example.com";
const acceptingLiveProvider: MessagingProvider = {
  name: "accepting-stub",
  sendOrderConfirmation: async (message) => ({ outcome: "accepted", providerMessageId: `wamid.STUB${message.orderId}` }),
};

let server: TestServer;
let shopA: TestMerchant;
let shopB: TestMerchant;
let adminA: ConsoleSession;
let viewerB: ConsoleSession;
const clients = new Set<Client>();

beforeAll(async () => {
  server = await startTestServer({ CONSOLE_ORIGINS: CONSOLE_ORIGIN }, { liveProvider: acceptingLiveProvider, subscriptions: { recheckKeysEveryMs: 200 } });
  shopA = await server.merchant("WS Shop A");
  shopB = await server.merchant("WS Shop B");
  adminA = await consoleSession(server, shopA.id, "admin");
  viewerB = await consoleSession(server, shopB.id, "viewer");
});
afterEach(async () => {
  for (const client of clients) await client.dispose();
  clients.clear();
});
afterAll(() => server?.close());

function connect(cookie: string, options: Parameters<typeof connectWithCookie>[2] = {}): Client {
  const client = connectWithCookie(wsUrl(server), cookie, options);
  clients.add(client);
  return client;
}

async function waitForError(collector: Collector): Promise<{ code: number; reason: string }> {
  await vi.waitFor(() => expect(collector.error).toBeTruthy(), { timeout: 5_000 });
  return collector.error as { code: number; reason: string };
}

async function active(count: number) {
  await vi.waitFor(() => expect(server.app.services.liveEvents.size).toBe(count), { timeout: 5_000 });
}

/** A raw upgrade with the given headers: the connection_init answer or the close. */
async function rawInit(headers: Record<string, string>, payload: Record<string, unknown> = {}) {
  const socket = new WebSocket(wsUrl(server), "graphql-transport-ws", { headers });
  const messages: any[] = [];
  socket.on("message", (data) => messages.push(JSON.parse(String(data))));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on("close", (code, reason) => resolve({ code, reason: String(reason) })));
  await new Promise<void>((resolve, reject) => (socket.once("open", () => resolve()), socket.once("error", reject)));
  socket.send(JSON.stringify({ type: "connection_init", payload }));
  return { socket, messages, closed };
}

describe("cookie authentication on the websocket", () => {
  it("from the server's own origin or a CONSOLE_ORIGINS one, the session subscribes to its merchant's test-mode events only", async () => {
    for (const origin of [server.baseUrl, CONSOLE_ORIGIN]) {
      const collector = subscribe(connect(adminA.cookie, { origin }));
      await active(1);
      const own = (await shopA.test.post("/api/v1/orders", orderInput())).body;
      await shopA.live.post("/api/v1/orders", orderInput()); // other mode
      await shopB.test.post("/api/v1/orders", orderInput()); // other merchant
      const marker = (await shopA.test.post("/api/v1/orders", orderInput())).body;
      await vi.waitFor(() => expect(collector.results.length).toBe(2), { timeout: 5_000 });
      expect(collector.events().map((event) => event.order.id)).toEqual([own.id, marker.id]);
      collector.unsubscribe();
      await active(0);
    }
  });

  it("mode from connection_init: live sees live events only", async () => {
    const collector = subscribe(connect(adminA.cookie, { origin: server.baseUrl, connectionParams: { mode: "live" } }));
    await active(1);
    await shopA.test.post("/api/v1/orders", orderInput());
    const live = (await shopA.live.post("/api/v1/orders", orderInput())).body;
    await vi.waitFor(() => expect(collector.results.length).toBe(1), { timeout: 5_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(collector.events().map((event) => event.order.id)).toEqual([live.id]);
  });

  it("an orderId of another merchant is NOT_FOUND for a session too", async () => {
    const foreign = (await shopA.test.post("/api/v1/orders", orderInput())).body;
    const collector = subscribe(connect(viewerB.cookie, { origin: server.baseUrl }), { orderId: foreign.id });
    await vi.waitFor(() => expect(collector.results.length + (collector.error ? 1 : 0)).toBeGreaterThan(0), { timeout: 5_000 });
    expect(collector.results[0]?.errors?.[0]?.extensions?.code ?? (collector.error as any)?.[0]?.extensions?.code).toBe("NOT_FOUND");
  });

  it("cross-site websocket hijacking: a foreign Origin with a valid cookie is refused (4403), nothing is subscribed", async () => {
    for (const origin of ["https://evil.example", "null", CONSOLE_ORIGIN.replace("https", "http")]) {
      const raw = await rawInit({ cookie: adminA.cookie, origin });
      expect(await raw.closed, origin).toEqual({ code: 4403, reason: "Forbidden" });
      expect(raw.messages).toEqual([]);
    }
    const collector = subscribe(connect(adminA.cookie, { origin: "https://evil.example" }));
    expect((await waitForError(collector)).code).toBe(4403);
    expect(server.app.services.liveEvents.size).toBe(0);
  });

  it("no cookie and no key: 4401; an unknown cookie: 4403; a bad mode: 4400", async () => {
    expect((await (await rawInit({ origin: server.baseUrl })).closed).code).toBe(4401);
    const unknown = await rawInit({ origin: server.baseUrl, cookie: "__Host-ocs_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" });
    expect((await unknown.closed).code).toBe(4403);
    const badMode = await rawInit({ origin: server.baseUrl, cookie: adminA.cookie }, { mode: "production" });
    expect((await badMode.closed).code).toBe(4400);
  });

  it("the socket serves subscriptions only: the merchant surface (keys, endpoints) is not readable over it", async () => {
    const raw = await rawInit({ cookie: adminA.cookie, origin: server.baseUrl });
    await vi.waitFor(() => expect(raw.messages).toContainEqual({ type: "connection_ack" }), { timeout: 5_000 });
    raw.socket.send(JSON.stringify({ id: "1", type: "subscribe", payload: { query: "{ apiKeys { id prefix } webhookEndpoints { id } }" } }));
    await vi.waitFor(() => expect(raw.messages.some((message) => message.type === "error")).toBe(true), { timeout: 5_000 });
    const error = raw.messages.find((message) => message.type === "error");
    expect(error.payload[0].extensions.code).toBe("BAD_REQUEST");
    expect(JSON.stringify(raw.messages)).not.toMatch(/ek_(test|live)_|"prefix"/);
    raw.socket.close();
  });

  it("an API key in connection_init still works beside a foreign-origin cookie (the key decides, not the cookie)", async () => {
    const raw = await rawInit({ cookie: adminA.cookie, origin: "https://evil.example" }, { apiKey: shopB.keys.test });
    await vi.waitFor(() => expect(raw.messages).toContainEqual({ type: "connection_ack" }), { timeout: 5_000 });
    raw.socket.close();
  });
});

describe("sessions that end lose their access", () => {
  it("sign-out closes the session's open sockets (4403) at the next check", async () => {
    const session = await consoleSession(server, shopA.id);
    const collector = subscribe(connect(session.cookie, { origin: server.baseUrl }));
    await active(1);
    const response = await fetch(new URL("/api/v1/session", server.baseUrl), { method: "DELETE", headers: { cookie: session.cookie } });
    expect(response.status).toBe(204);
    expect((await waitForError(collector)).code).toBe(4403);
  });

  it("a password reset ends every session of the user (HTTP 401, sockets closed); the new password signs in, the old does not", async () => {
    const user = await createConsoleUser(server, shopA.id);
    const first = await signedIn(server, user);
    const second = await signedIn(server, user);
    const other = await consoleSession(server, shopA.id); // another user of the same merchant is untouched
    const collector = subscribe(connect(first.cookie, { origin: server.baseUrl }));
    await active(1);

    const reset = await server.app.services.users.resetPassword(user.id, "a brand new passphrase");
    expect(reset.generatedPassword).toBeNull();

    for (const session of [first, second]) {
      const response = await session.graphql.query("{ viewer { mode } }");
      expect(response.status).toBe(401);
      expect(response.body.errors![0].extensions!.code).toBe("UNAUTHENTICATED");
    }
    expect((await waitForError(collector)).code).toBe(4403);
    expect((await other.graphql.query("{ viewer { mode } }")).status).toBe(200);
    expect((await signIn(server.baseUrl, user.email, user.password)).status).toBe(401);
    expect((await signIn(server.baseUrl, user.email, "a brand new passphrase")).status).toBe(200);
  });

  it("removing a user ends its sessions at once", async () => {
    const session = await consoleSession(server, shopB.id);
    const collector = subscribe(connect(session.cookie, { origin: server.baseUrl }));
    await active(1);
    await server.app.services.users.remove(session.user.id);
    expect((await session.graphql.query("{ viewer { mode } }")).status).toBe(401);
    expect((await waitForError(collector)).code).toBe(4403);
    expect(await server.app.services.database.prisma.session.count({ where: { userId: session.user.id } })).toBe(0);
    expect((await signIn(server.baseUrl, session.user.email, session.user.password)).status).toBe(401);
  });
});
