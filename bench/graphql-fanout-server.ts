/**
 * The server side of bench/graphql-fanout.ts, run in its own process so that its memory can be measured on
 * its own. `service`: the real app (createApp, embedded PGlite in memory, graphql-ws on /graphql). `baseline`:
 * a bare `ws` server on /graphql that sends one prepared text to the sockets of a group. Driven over IPC.
 */
import { WebSocketServer, type WebSocket } from "ws";
import { createApp, type RunningApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { createOrderInput } from "../src/domain/orders/order.schemas.ts";
import type { StoredEvent } from "../src/domain/orders/order.repository.ts";
import { createLogger } from "../src/logger.ts";
import { benchOrderBody } from "./order-body.ts";

export type ServerRole = "service" | "baseline";

export type ToServer =
  | { type: "memory" }
  | { type: "subscribers" }
  /** Publish one event of merchant `group` (service) or send `text` to group `group`'s sockets (baseline). */
  | { type: "fire"; group: number; text?: string }
  | { type: "stop" };

export type FromServer =
  | { type: "ready"; url: string; apiKeys: string[] }
  | { type: "memory"; heapUsed: number; rss: number }
  | { type: "subscribers"; count: number }
  | { type: "fired" };

const role = process.argv[2] as ServerRole;
const groups = Number(process.argv[3] ?? 1);
const send = (message: FromServer) => process.send!(message);

function memory(): FromServer {
  // Twice: the first pass can leave finalisable objects for the second.
  global.gc?.();
  global.gc?.();
  const usage = process.memoryUsage();
  return { type: "memory", heapUsed: usage.heapUsed, rss: usage.rss };
}

async function startService() {
  const config = loadConfig({ HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "silent", RATE_LIMIT_MAX: "1000000000" });
  config.database = { kind: "embedded", dataDir: null };
  // One key per merchant holds every subscriber of its group: lift the per-key connection cap for the benchmark.
  const app: RunningApp = await createApp(config, { logger: createLogger("silent"), subscriptions: { maxConnectionsPerKey: 1_000_000 } });
  const url = await app.http.listen({ host: "127.0.0.1", port: 0 });
  const apiKeys: string[] = [];
  const events: StoredEvent[] = [];
  for (let group = 0; group < groups; group++) {
    const { merchant, keys } = await app.services.merchantService.createMerchant(`Fan-out Shop ${group}`);
    apiKeys.push(keys.test);
    // A real order and the envelope stored for it: what is fanned out is exactly a committed event.
    const scope = { merchantId: merchant.id, mode: "test" as const };
    const order = await app.services.orderService.create(scope, createOrderInput.parse(benchOrderBody(`FAN-${group}`)), "en");
    const row = await app.services.database.prisma.orderEvent.findFirstOrThrow({ where: { orderId: order.id } });
    events.push({ id: row.id, merchantId: merchant.id, mode: "test", orderId: order.id, envelope: row.payload as any });
  }
  return {
    url,
    apiKeys,
    subscribers: () => app.services.liveEvents.size,
    // A new object per firing, as each commit makes (the GraphQL view is cached per event object).
    fire: (group: number) => app.services.bus.publish({ ...events[group] }),
    close: () => app.close(),
  };
}

async function startBaseline() {
  const { createServer } = await import("node:http");
  const http = createServer((_request, response) => response.writeHead(404).end());
  const wss = new WebSocketServer({ server: http, path: "/graphql" });
  const byGroup = new Map<number, Set<WebSocket>>();
  // The client's first message names its group (the stand-in for connection_init); then it is "subscribed".
  wss.on("connection", (socket) => {
    socket.once("message", (data) => {
      const group = Number(String(data));
      const set = byGroup.get(group) ?? new Set();
      byGroup.set(group, set);
      set.add(socket);
      socket.on("close", () => set.delete(socket));
      socket.send("ok");
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const address = http.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    apiKeys: Array.from({ length: groups }, (_, group) => String(group)),
    subscribers: () => [...byGroup.values()].reduce((sum, set) => sum + set.size, 0),
    fire: (group: number, text: string) => {
      for (const socket of byGroup.get(group) ?? []) socket.send(text);
    },
    close: async () => {
      for (const socket of wss.clients) socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

const server = role === "service" ? await startService() : await startBaseline();
process.on("message", async (message: ToServer) => {
  switch (message.type) {
    case "memory":
      return send(memory());
    case "subscribers":
      return send({ type: "subscribers", count: server.subscribers() });
    case "fire":
      server.fire(message.group, message.text ?? "");
      return send({ type: "fired" });
    case "stop":
      await server.close();
      process.exit(0);
  }
});
send({ type: "ready", url: server.url, apiKeys: server.apiKeys });
