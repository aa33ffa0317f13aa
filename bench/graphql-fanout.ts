/**
 * GraphQL subscription fan-out benchmark: N websocket subscribers, one committed event, time until every
 * subscriber has it, and the server's memory per subscriber; against a bare `ws` server broadcasting the very
 * same message text to the same sockets, measured in the same run. See bench/README.md.
 *
 *   npm run bench:graphql-fanout
 *   BENCH_FANOUT_N=1000 BENCH_FANOUT_EVENTS=5 npm run bench:graphql-fanout     # quick check
 */
import { fork, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";
import type { FromServer, ServerRole, ToServer } from "./graphql-fanout-server.ts";

// ---------------------------------------------------------------------------------------------- settings

function listOfNumbers(name: string, fallback: number[]): number[] {
  const text = process.env[name];
  if (!text) return fallback;
  const values = text.split(",").map((part) => Number(part.trim()));
  if (values.some((value) => !Number.isInteger(value) || value < 1)) throw new Error(`${name}=${text}: expected integers ≥ 1`);
  return values.sort((a, b) => a - b);
}

const settings = {
  /** Subscriber counts, measured in increasing order on the same server (sockets are added, never closed). */
  counts: listOfNumbers("BENCH_FANOUT_N", [1000, 5000]),
  /** Merchants the subscribers are spread over; the event belongs to the first, so it reaches N / merchants. */
  merchants: listOfNumbers("BENCH_FANOUT_MERCHANTS", [1, 10]),
  /** Measured events per cell (after two warm-up events). */
  events: listOfNumbers("BENCH_FANOUT_EVENTS", [10])[0],
  /** Sockets opened at once while connecting. */
  connectBatch: 100,
  jsonFile: process.env.BENCH_JSON || null,
};

const SUBSCRIPTION = `subscription { orderStatusChanged { event timestamp order { id externalOrderId status
  customerAction deliveryStatus customerName customerPhone customerAddress subtotal shippingCost totalCost currency
  failureReason errorCode items { id productName variantName quantity unitPrice totalPrice } createdAt updatedAt } } }`;

const log = (message: string) => process.stderr.write(`${message}\n`);

// ------------------------------------------------------------------------------------ the server process

interface ServerProcess {
  role: ServerRole;
  child: ChildProcess;
  url: string;
  apiKeys: string[];
  request<T extends FromServer["type"]>(message: ToServer, reply: T): Promise<Extract<FromServer, { type: T }>>;
}

async function startServer(role: ServerRole, merchants: number): Promise<ServerProcess> {
  const child = fork(fileURLToPath(new URL("./graphql-fanout-server.ts", import.meta.url)), [role, String(merchants)], {
    execArgv: ["--import", "tsx", "--expose-gc"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const waiting: { type: string; resolve: (message: any) => void }[] = [];
  child.on("message", (message: FromServer) => {
    const index = waiting.findIndex((entry) => entry.type === message.type);
    if (index >= 0) waiting.splice(index, 1)[0].resolve(message);
  });
  const next = <T extends FromServer["type"]>(type: T) =>
    new Promise<Extract<FromServer, { type: T }>>((resolve) => waiting.push({ type, resolve }));
  const exited = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`${role} server exited (${code})`))));
  const ready = await Promise.race([next("ready"), exited]);
  return {
    role,
    child,
    url: ready.url,
    apiKeys: ready.apiKeys,
    request(message, reply) {
      const answer = next(reply);
      child.send(message);
      return Promise.race([answer, exited]);
    },
  };
}

async function stopServer(server: ServerProcess) {
  const exited = new Promise((resolve) => server.child.once("exit", resolve));
  server.child.send({ type: "stop" } satisfies ToServer);
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  server.child.kill("SIGKILL");
}

// ------------------------------------------------------------------------------------------ subscribers

interface Subscriber {
  socket: WebSocket;
  group: number;
  /** Arrival time of the current event (performance.now()), or null. */
  receivedAt: number | null;
  lastText: string;
}

/** Opens one socket and subscribes: graphql-transport-ws for the service, "send your group" for the baseline. */
function openSubscriber(server: ServerProcess, group: number): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const url = `${server.url.replace(/^http/, "ws")}/graphql`;
    const socket = server.role === "service" ? new WebSocket(url, "graphql-transport-ws") : new WebSocket(url);
    const subscriber: Subscriber = { socket, group, receivedAt: null, lastText: "" };
    let subscribed = false;
    socket.once("error", reject);
    socket.once("close", (code) => {
      if (!subscribed) reject(new Error(`socket closed during set-up (${code})`));
    });
    socket.on("open", () => {
      if (server.role === "service") socket.send(JSON.stringify({ type: "connection_init", payload: { apiKey: server.apiKeys[group] } }));
      else socket.send(String(group));
    });
    socket.on("message", (data) => {
      if (!subscribed) {
        const text = String(data);
        if (server.role === "service" && JSON.parse(text).type === "connection_ack") {
          socket.send(JSON.stringify({ id: "1", type: "subscribe", payload: { query: SUBSCRIPTION } }));
        }
        subscribed = true;
        return resolve(subscriber);
      }
      if (subscriber.receivedAt === null) {
        subscriber.receivedAt = performance.now();
        if (subscriber.group === 0) arrival.received();
      }
      subscriber.lastText = String(data);
    });
  });
}

async function connectUpTo(server: ServerProcess, subscribers: Subscriber[], count: number, merchants: number) {
  while (subscribers.length < count) {
    const batch = Math.min(settings.connectBatch, count - subscribers.length);
    const first = subscribers.length;
    subscribers.push(...(await Promise.all(Array.from({ length: batch }, (_, i) => openSubscriber(server, (first + i) % merchants)))));
  }
  // Subscribed on the server side (the subscribe message is processed after the ack was read here).
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { count: active } = await server.request({ type: "subscribers" }, "subscribers");
    if (active === count) return;
    if (Date.now() > deadline) throw new Error(`${server.role}: ${active} of ${count} subscribers active after 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// ------------------------------------------------------------------------------------------- measuring

/** Counts first arrivals of the current event; resolves once `expected` recipients have it. */
const arrival = {
  remaining: 0,
  done: null as (() => void) | null,
  expect(count: number): Promise<void> {
    this.remaining = count;
    return new Promise((resolve) => (this.done = resolve));
  },
  received() {
    if (--this.remaining === 0) this.done?.();
  },
};

interface Cell {
  merchants: number;
  subscribers: number;
  recipients: number;
  server: ServerRole;
  p50: number;
  p99: number;
  max: number;
  /** Median over events of the time until the last recipient had it. */
  allReceived: number;
  heapPerSubscriberKb: number;
  rssPerSubscriberKb: number;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** Fires events of merchant 0 one at a time; latency = arrival − the moment the server was told to fire. */
async function measureEvents(server: ServerProcess, recipients: Subscriber[], text: string) {
  const latencies: number[] = [];
  const lasts: number[] = [];
  for (let round = -2; round < settings.events; round++) {
    for (const subscriber of recipients) subscriber.receivedAt = null;
    const allArrived = arrival.expect(recipients.length);
    const firedAt = performance.now();
    server.child.send({ type: "fire", group: 0, text } satisfies ToServer);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${server.role}: an event did not reach every subscriber within 30 s`)), 30_000);
    });
    await Promise.race([allArrived, timeout]).finally(() => clearTimeout(timer));
    if (round < 0) continue; // warm-up
    const times = recipients.map((subscriber) => subscriber.receivedAt! - firedAt);
    latencies.push(...times);
    lasts.push(Math.max(...times));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  latencies.sort((a, b) => a - b);
  lasts.sort((a, b) => a - b);
  return { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), max: latencies.at(-1)!, allReceived: quantile(lasts, 0.5) };
}

/** Runs every subscriber count for one server and merchant spread; `text` is the baseline's message. */
async function runServer(role: ServerRole, merchants: number, baselineText: string | null): Promise<{ cells: Cell[]; text: string }> {
  const server = await startServer(role, merchants);
  const subscribers: Subscriber[] = [];
  const cells: Cell[] = [];
  let text = baselineText ?? "";
  try {
    const before = await server.request({ type: "memory" }, "memory");
    for (const count of settings.counts) {
      log(`  ${role}: ${count} subscribers over ${merchants} merchant(s)…`);
      await connectUpTo(server, subscribers, count, merchants);
      const after = await server.request({ type: "memory" }, "memory");
      const recipients = subscribers.filter((subscriber) => subscriber.group === 0);
      const timing = await measureEvents(server, recipients, text);
      if (role === "service") {
        text = recipients[0].lastText;
        const message = JSON.parse(text);
        if (message.type !== "next" || message.payload.data?.orderStatusChanged?.event !== "order.created") {
          throw new Error(`service sent an unexpected message: ${text.slice(0, 200)}`);
        }
      }
      cells.push({
        merchants,
        subscribers: count,
        recipients: recipients.length,
        server: role,
        ...timing,
        heapPerSubscriberKb: (after.heapUsed - before.heapUsed) / count / 1024,
        rssPerSubscriberKb: (after.rss - before.rss) / count / 1024,
      });
    }
  } finally {
    for (const subscriber of subscribers) subscriber.socket.terminate();
    await stopServer(server);
  }
  return { cells, text };
}

// ---------------------------------------------------------------------------------------------- output

function table(cells: Cell[]): string {
  const header = [
    "merchants", "subscribers", "recipients", "server", "p50 ms", "p99 ms", "max ms", "all received ms",
    "heap/sub KB", "RSS/sub KB", "all received vs base", "heap/sub vs base",
  ];
  const rows = cells.map((cell) => {
    const base = cells.find((other) => other.server === "baseline" && other.merchants === cell.merchants && other.subscribers === cell.subscribers);
    const ratio = (value: number, baseValue: number | undefined) =>
      cell.server === "service" && baseValue ? `${(value / baseValue).toFixed(1)}×` : "";
    return [
      String(cell.merchants), String(cell.subscribers), String(cell.recipients), cell.server,
      cell.p50.toFixed(1), cell.p99.toFixed(1), cell.max.toFixed(1), cell.allReceived.toFixed(1),
      cell.heapPerSubscriberKb.toFixed(1), cell.rssPerSubscriberKb.toFixed(1),
      ratio(cell.allReceived, base?.allReceived), ratio(cell.heapPerSubscriberKb, base?.heapPerSubscriberKb),
    ];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (values: string[]) => `| ${values.map((value, column) => value.padStart(widths[column])).join(" | ")} |`;
  return [line(header), `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`, ...rows.map(line)].join("\n");
}

const cells: Cell[] = [];
for (const merchants of settings.merchants) {
  log(`${merchants} merchant(s):`);
  // The service first: its message text is what the baseline then sends, byte for byte.
  const service = await runServer("service", merchants, null);
  const baseline = await runServer("baseline", merchants, service.text);
  for (const count of settings.counts) {
    cells.push(...baseline.cells.filter((cell) => cell.subscribers === count));
    cells.push(...service.cells.filter((cell) => cell.subscribers === count));
  }
}
process.stdout.write(`${table(cells)}\n`);
if (settings.jsonFile) writeFileSync(settings.jsonFile, JSON.stringify({ settings, cells }, null, 2));
