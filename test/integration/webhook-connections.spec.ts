import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { WebhookConnections } from "../../src/workers/webhook-connections.ts";
import { postWebhook, type SenderOptions } from "../../src/workers/webhook-sender.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";

/**
 * Keep-alive connections to endpoints (src/workers/webhook-connections.ts), through the real sender on loopback:
 * deliveries reuse a socket, an endpoint never has more sockets than its bound, a reused socket stays on the
 * address that was checked when it was opened, and a new socket resolves and checks the name again.
 */
interface CountingServer {
  server: Server;
  port: number;
  /** Connections accepted so far. */
  connections: number;
  /** Requests being answered right now, and the most at once. */
  active: number;
  maxActive: number;
  requests: number;
  close(): Promise<void>;
}

async function countingServer(
  handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(204).end(),
  host = "127.0.0.1",
  port = 0,
): Promise<CountingServer> {
  const counting: CountingServer = {
    server: createServer((req, res) => {
      counting.requests++;
      counting.active++;
      counting.maxActive = Math.max(counting.maxActive, counting.active);
      res.on("finish", () => counting.active--);
      req.resume();
      req.on("end", () => handle(req, res));
    }),
    port: 0,
    connections: 0,
    active: 0,
    maxActive: 0,
    requests: 0,
    close: async () => {
      counting.server.closeAllConnections();
      await new Promise<void>((resolve) => counting.server.close(() => resolve()));
    },
  };
  counting.server.on("connection", () => counting.connections++);
  await new Promise<void>((resolve) => counting.server.listen(port, host, resolve));
  counting.port = (counting.server.address() as net.AddressInfo).port;
  return counting;
}

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

function connections(options: Partial<ConstructorParameters<typeof WebhookConnections>[0]> = {}): WebhookConnections {
  const pool = new WebhookConnections({ maxSocketsPerEndpoint: 4, idleTimeoutMs: 4_000, maxSocketAgeMs: 60_000, maxEndpoints: 16, ...options });
  closers.push(() => pool.destroy());
  return pool;
}

const post = (url: string, options: Partial<SenderOptions>) =>
  postWebhook({ url, body: '{"event":"order.created"}', headers: { "content-type": "application/json" } }, {
    timeoutMs: 3_000,
    allowPrivateUrls: true,
    ...options,
  });

describe("keep-alive connections per endpoint", () => {
  it("reuses one socket for deliveries one after another", async () => {
    const receiver = await countingServer();
    closers.push(() => receiver.close());
    const pool = connections();
    const url = `http://127.0.0.1:${receiver.port}/hook`;
    for (let i = 0; i < 10; i++) {
      expect(await post(url, { agent: pool.agentFor("ep-1", new URL(url)) })).toMatchObject({ statusCode: 204, error: null });
    }
    expect(receiver.requests).toBe(10);
    expect(receiver.connections).toBe(1);
    expect(pool.socketsOf("ep-1")).toBe(1);
  });

  it("opens at most maxSocketsPerEndpoint sockets to an endpoint however many deliveries are sent at once", async () => {
    const receiver = await countingServer((_req, res) => setTimeout(() => res.writeHead(200).end("ok"), 30));
    closers.push(() => receiver.close());
    const pool = connections({ maxSocketsPerEndpoint: 3 });
    const url = `http://127.0.0.1:${receiver.port}/hook`;
    const results = await Promise.all(Array.from({ length: 12 }, () => post(url, { agent: pool.agentFor("ep-2", new URL(url)) })));
    expect(results.every((result) => result.statusCode === 200)).toBe(true);
    expect(receiver.requests).toBe(12);
    expect(receiver.connections).toBe(3);
    expect(receiver.maxActive).toBe(3);
    // Another endpoint (same origin) has its own sockets and its own bound.
    await post(url, { agent: pool.agentFor("ep-3", new URL(url)) });
    expect(receiver.connections).toBe(4);
    expect(pool.socketsOf("ep-2")).toBe(3);
    expect(pool.socketsOf("ep-3")).toBe(1);
  });

  it("sends again on a new socket when the receiver had closed the idle one (nothing reached it)", async () => {
    // A raw server: answers the first request of each connection with keep-alive, then resets the connection
    // when the next request arrives on it, as a receiver does that closed its idle socket meanwhile.
    let accepted = 0;
    const server = net.createServer((socket) => {
      accepted++;
      let answered = false;
      socket.on("data", () => {
        if (answered) return socket.resetAndDestroy();
        answered = true;
        socket.write("HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n");
      });
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`;
    const pool = connections();
    expect(await post(url, { agent: pool.agentFor("ep-4", new URL(url)) })).toMatchObject({ statusCode: 204 });
    expect(await post(url, { agent: pool.agentFor("ep-4", new URL(url)) })).toMatchObject({ statusCode: 204, error: null });
    expect(accepted).toBe(2);
  });
});

describe("a reused socket stays on the address checked when it was opened", () => {
  let dns: TestDnsServer;
  let receiver: CountingServer;
  /** On 127.0.0.2, the same port: a connection here means a blocked address was connected to. */
  let trap: CountingServer;

  beforeAll(async () => {
    dns = await startDnsServer();
    receiver = await countingServer();
    trap = await countingServer(undefined, "127.0.0.2", receiver.port);
  });
  afterAll(async () => {
    await receiver?.close();
    await trap?.close();
    await dns?.close();
  });

  it("a name whose answer changes to a blocked address is refused on the next new socket, never connected to", async () => {
    const name = "rebinding.example.test";
    dns.set(name, ["127.0.0.1"]);
    const url = `http://${name}:${receiver.port}/hook`;
    const pool = connections({ maxSocketAgeMs: 400 });
    // The guard as in production (private addresses refused), except 127.0.0.1 stands for a public address.
    const options: Partial<SenderOptions> = {
      allowPrivateUrls: false,
      dnsServers: [dns.address],
      exemptAddresses: ["127.0.0.1"],
      agent: pool.agentFor("ep-5", new URL(url)),
    };
    const queries = () => dns.queries.filter((query) => query.startsWith(`${name}/`)).length;

    expect(await post(url, options)).toMatchObject({ statusCode: 204, error: null });
    const asked = queries();
    expect(asked).toBeGreaterThan(0);

    // The name now points at a blocked address. The open socket was checked when it connected: it is reused,
    // without a lookup, and still leads to the checked address.
    dns.set(name, ["127.0.0.2"]);
    expect(await post(url, options)).toMatchObject({ statusCode: 204, error: null });
    expect(queries()).toBe(asked);
    expect(receiver.connections).toBe(1);

    // Once the socket is past its age, the next delivery opens a new one: resolved and checked again, refused.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const refused = await post(url, options);
    expect(refused.statusCode).toBeNull();
    expect(refused.error).toContain(`blocked address 127.0.0.2 (${name})`);
    expect(queries()).toBeGreaterThan(asked);
    expect(trap.connections).toBe(0);
    expect(receiver.requests).toBe(2);

    // And back to an allowed address: delivered again, on a new socket.
    dns.set(name, ["127.0.0.1"]);
    expect(await post(url, options)).toMatchObject({ statusCode: 204, error: null });
    expect(receiver.connections).toBe(2);
  });
});
