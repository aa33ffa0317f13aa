/**
 * Webhook delivery benchmark: the real dispatcher (outbox → fan-out → claim → signed POST → outcome recorded)
 * against a bare loop that POSTs the same bodies to the same local receiver, in the same run, on embedded
 * PGlite and on PostgreSQL. See bench/README.md.
 *
 *   npm run bench:webhooks
 *   BENCH_EVENTS=300 BENCH_ENDPOINTS=1 BENCH_DATABASES=pglite npm run bench:webhooks      # quick check
 */
import { cliSource } from "../src/domain/audit/audit-log.ts";
import { mkdirSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { RunningApp } from "../src/app.ts";
import type { Config } from "../src/config.ts";
import { createOrderInput } from "../src/domain/orders/order.schemas.ts";
import { WebhookDeliveryRepository } from "../src/domain/webhooks/webhook-delivery.repository.ts";
import { WebhookDispatcher } from "../src/workers/webhook-dispatcher.ts";
import {
  cleanUp,
  cleanups,
  listEnv,
  log,
  numberEnv,
  provision,
  runCleanups,
  seedOrders,
  startBenchService,
  type DatabaseKind,
  type ProvisionedDatabase,
} from "./harness.ts";
import { benchOrderBody } from "./order-body.ts";
import { profiled } from "./cpu-profile.ts";

const settings = {
  /** Events in the backlog drained by the throughput scenario. */
  events: numberEnv("BENCH_EVENTS", 2000),
  /** Endpoint counts: each is a scenario whose backlog fans out to that many endpoints (each gets every event). */
  endpoints: (process.env.BENCH_ENDPOINTS || "1,8").split(",").map((text) => {
    const count = Number(text.trim());
    if (!Number.isInteger(count) || count < 1) throw new Error(`BENCH_ENDPOINTS=${process.env.BENCH_ENDPOINTS}: expected counts ≥ 1`);
    return count;
  }),
  /**
   * Orders created one after another, at this rate, for the latency scenario. 500 (10 s at 50/s): with 200 the p99
   * was the second-slowest sample, so one stall of the machine decided it.
   */
  latencyOrders: numberEnv("BENCH_LATENCY_ORDERS", 500),
  latencyRate: numberEnv("BENCH_LATENCY_RATE", 50),
  databases: listEnv<DatabaseKind>("BENCH_DATABASES", ["pglite", "postgres"]),
  /** Write a .cpuprofile of each drain by the service here (and print where its time went). */
  profileDir: process.env.BENCH_CPU_PROFILE || null,
};

/** The dispatcher's own bounds (src/workers/webhook-dispatcher.ts); the baseline gets the same concurrency. */
const PER_ENDPOINT_IN_FLIGHT = 4;
const MAX_IN_FLIGHT = 256;

// -------------------------------------------------------------------------------------------- receiver

/** A merchant's receiver at its fastest: reads the body, answers 204, notes when each webhook-id arrived. */
class Receiver {
  readonly arrivals = new Map<string, number>();
  private waiters: { count: number; resolve: () => void }[] = [];
  private readonly server = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const id = String(request.headers["webhook-id"] ?? request.headers["x-bench-id"]);
      const key = `${id} ${request.url}`;
      if (!this.arrivals.has(key)) this.arrivals.set(key, Date.now());
      response.writeHead(204).end();
      this.waiters = this.waiters.filter((waiter) => (this.arrivals.size >= waiter.count ? (waiter.resolve(), false) : true));
    });
  });

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  until(count: number): Promise<void> {
    if (this.arrivals.size >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  reset(): void {
    this.arrivals.clear();
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

// -------------------------------------------------------------------------------------------- baseline

/**
 * Keep-alive agents, one per endpoint URL with as many sockets as the dispatcher may use per endpoint: what the
 * dispatcher does (src/workers/webhook-connections.ts), minus the SSRF lookup and the age limit.
 */
const baselineAgents = new Map<string, http.Agent>();
function baselineAgent(url: string): http.Agent {
  let agent = baselineAgents.get(url);
  if (!agent) {
    agent = new http.Agent({ keepAlive: true, maxSockets: PER_ENDPOINT_IN_FLIGHT, maxFreeSockets: PER_ENDPOINT_IN_FLIGHT });
    baselineAgents.set(url, agent);
  }
  return agent;
}

/** POSTs one body on the endpoint's keep-alive connections, and nothing else. */
function barePost(url: string, id: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: "POST",
      agent: baselineAgent(url),
      headers: { "content-type": "application/json", "x-bench-id": id, "content-length": Buffer.byteLength(body) },
    });
    request.on("response", (response) => {
      response.resume();
      response.on("end", () => (response.statusCode! < 300 ? resolve() : reject(new Error(`HTTP ${response.statusCode}`))));
    });
    request.on("error", reject);
    request.end(body);
  });
}

/** `concurrency` loops POSTing the bodies in turn: the most a sender can do with no queue behind it. */
async function baselineRun(urls: string[], bodies: { id: string; body: string }[], concurrency: number): Promise<{ seconds: number; latencies: number[] }> {
  const work = urls.flatMap((url) => bodies.map((body) => ({ url, ...body })));
  let next = 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < work.length) {
        const item = work[next++];
        const sent = performance.now();
        await barePost(item.url, item.id, item.body);
        latencies.push(performance.now() - sent);
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, latencies };
}

// -------------------------------------------------------------------------------------------- service

interface Service {
  app: RunningApp;
  config: Config;
  scope: { merchantId: string; mode: "test" };
  endpointUrls: string[];
  newDispatcher(): WebhookDispatcher;
}

/** The service, and a new merchant with `endpoints` endpoints on the receiver (paths unique to this merchant). */
async function startService(db: ProvisionedDatabase, receiverUrl: string, endpoints: number): Promise<Service> {
  const { app, config, database, logger } = await startBenchService(db, { WEBHOOK_ALLOW_PRIVATE_URLS: "true" });
  // The service's own dispatcher is stopped: each scenario starts a fresh one on a known backlog.
  await app.services.webhookDispatcher.stop();
  const { merchant } = await app.services.merchantService.createMerchant("Bench Shop");
  const scope = { merchantId: merchant.id, mode: "test" as const };
  const endpointUrls: string[] = [];
  for (let i = 0; i < endpoints; i++) {
    const endpoint = await app.services.webhookEndpoints.create(scope, { url: `${receiverUrl}/hook/${endpoints}-${i}` }, cliSource("bench"));
    endpointUrls.push(endpoint.url);
  }
  const repository = new WebhookDeliveryRepository(database.prisma, database.pool, database.prepareStatements);
  return {
    app,
    config,
    scope,
    endpointUrls,
    newDispatcher: () =>
      new WebhookDispatcher({ deliveries: repository, bus: app.services.bus, logger, metrics: app.services.metrics }, config.webhooks),
  };
}

/** The outbox rows not yet delivered: their ids and exact payload text (what both sides POST). */
async function undispatchedBodies(service: Service): Promise<{ id: string; body: string }[]> {
  const { rows } = await service.app.services.database.pool.query<{ id: string; body: string }>(
    "SELECT id, payload::text AS body FROM order_events WHERE dispatched_at IS NULL ORDER BY sequence",
  );
  return rows;
}

// -------------------------------------------------------------------------------------------- scenarios

/** Every delivery succeeded with exactly one attempt recorded (stop() writes the outcomes still queued). */
async function checkDrained(service: Service, expected: number): Promise<void> {
  const { rows } = await service.app.services.database.pool.query<{ status: string; attempts: number; n: number }>(
    `SELECT d.status, (SELECT count(*) FROM webhook_attempts a WHERE a.delivery_id = d.id)::int AS attempts, count(*)::int AS n
     FROM webhook_deliveries d JOIN webhook_endpoints ep ON ep.id = d.endpoint_id
     WHERE ep.merchant_id = $1 GROUP BY 1, 2`,
    [service.scope.merchantId],
  );
  const good = rows.find((row) => row.status === "succeeded" && row.attempts === 1)?.n ?? 0;
  if (good !== expected || rows.length !== 1) {
    throw new Error(`drain check: expected ${expected} deliveries succeeded at their first attempt, got ${JSON.stringify(rows)}`);
  }
}

interface Row {
  scenario: string;
  database: DatabaseKind;
  server: "baseline" | "service";
  perSecond: number | null;
  p50: number;
  p99: number;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

/** A backlog of events drained by a fresh dispatcher vs the same bodies POSTed by a bare loop. */
async function throughput(service: Service, receiver: Receiver, kind: DatabaseKind): Promise<Row[]> {
  log(`  throughput: seeding ${settings.events} events…`);
  await seedOrders(service.app, service.scope, settings.events, `T${Date.now()}`);
  const bodies = await undispatchedBodies(service);
  const deliveries = bodies.length * service.endpointUrls.length;
  const concurrency = Math.min(MAX_IN_FLIGHT, PER_ENDPOINT_IN_FLIGHT * service.endpointUrls.length);

  receiver.reset();
  const base = await baselineRun(service.endpointUrls, bodies, concurrency);
  log(`  baseline: ${deliveries} POSTs in ${base.seconds.toFixed(2)} s`);

  receiver.reset();
  const dispatcher = service.newDispatcher();
  const profile = settings.profileDir
    ? path.join(settings.profileDir, `webhooks-${kind}-${service.endpointUrls.length}ep.cpuprofile`)
    : null;
  const started = Date.now();
  const seconds = await profiled(profile, async () => {
    dispatcher.start();
    await receiver.until(deliveries);
    return (Date.now() - started) / 1000;
  });
  await dispatcher.stop();
  await checkDrained(service, deliveries);
  // Time from the start of the drain until each delivery arrived is not a latency; the per-attempt cost is.
  const { rows } = await service.app.services.database.pool.query<{ ms: number }>(
    `SELECT a.duration_ms AS ms FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
     JOIN webhook_endpoints ep ON ep.id = d.endpoint_id WHERE ep.merchant_id = $1`,
    [service.scope.merchantId],
  );
  log(`  service: ${deliveries} deliveries in ${seconds.toFixed(2)} s`);
  const label = `drain ${bodies.length} events × ${service.endpointUrls.length} endpoint(s), ${concurrency} in flight`;
  return [
    { scenario: label, database: kind, server: "baseline", perSecond: deliveries / base.seconds, p50: percentile(base.latencies, 50), p99: percentile(base.latencies, 99) },
    { scenario: label, database: kind, server: "service", perSecond: deliveries / seconds, p50: percentile(rows.map((r) => r.ms), 50), p99: percentile(rows.map((r) => r.ms), 99) },
  ];
}

/**
 * Orders created one by one at a steady rate while the dispatcher runs: event timestamp (written in the
 * transaction of the change) → arrival at the receiver. Baseline: the same bodies POSTed at the same rate,
 * send → arrival.
 */
async function latency(service: Service, receiver: Receiver, kind: DatabaseKind): Promise<Row[]> {
  const gapMs = 1000 / settings.latencyRate;
  const dispatcher = service.newDispatcher();
  receiver.reset();
  dispatcher.start();
  const before = (await service.app.services.database.pool.query("SELECT count(*)::int AS n FROM order_events")).rows[0].n as number;
  const prefix = `L${Date.now()}`;
  /** How long each create took (its statements, commits and the simulated send): tells a slow commit from a late delivery. */
  const createMs: number[] = [];
  for (let i = 0; i < settings.latencyOrders; i++) {
    const tick = performance.now();
    await service.app.services.orderService.create(service.scope, createOrderInput.parse(benchOrderBody(`${prefix}-${i}`)), "en");
    createMs.push(performance.now() - tick);
    const rest = gapMs - (performance.now() - tick);
    if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
  }
  const expected = settings.latencyOrders * service.endpointUrls.length;
  await receiver.until(expected);
  await dispatcher.stop();
  const { rows } = await service.app.services.database.pool.query<{ id: string; body: string; created: Date }>(
    "SELECT id, payload::text AS body, created_at AS created FROM order_events ORDER BY sequence OFFSET $1",
    [before],
  );
  const serviceLatencies = rows.flatMap((row) =>
    service.endpointUrls.map((url) => receiver.arrivals.get(`${row.id} ${new URL(url).pathname}`)! - row.created.getTime()),
  );

  logSlowest(serviceLatencies, (index) => createMs[Math.floor(index / service.endpointUrls.length)]);

  receiver.reset();
  const baseLatencies: number[] = [];
  for (const row of rows) {
    const tick = performance.now();
    const sent = Date.now();
    await Promise.all(service.endpointUrls.map((url) => barePost(url, row.id, row.body)));
    for (const url of service.endpointUrls) baseLatencies.push(receiver.arrivals.get(`${row.id} ${new URL(url).pathname}`)! - sent);
    const rest = gapMs - (performance.now() - tick);
    if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
  }
  const label = `event → delivery, ${settings.latencyRate} orders/s`;
  return [
    { scenario: label, database: kind, server: "baseline", perSecond: null, p50: percentile(baseLatencies, 50), p99: percentile(baseLatencies, 99) },
    { scenario: label, database: kind, server: "service", perSecond: null, p50: percentile(serviceLatencies, 50), p99: percentile(serviceLatencies, 99) },
  ];
}

/** The five slowest event → delivery samples, each with the time its order's create took (stderr). */
function logSlowest(latencies: number[], createMsOf: (index: number) => number): void {
  const slowest = latencies
    .map((ms, index) => ({ ms, index }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 5)
    .map(({ ms, index }) => `${ms} ms (create ${createMsOf(index).toFixed(1)} ms)`);
  log(`  slowest event → delivery: ${slowest.join(", ")}`);
}

// -------------------------------------------------------------------------------------------- report

function table(rows: Row[]): string {
  const header = ["scenario", "database", "server", "deliveries/s", "p50 ms", "p99 ms", "/s vs base", "p50 vs base", "p99 vs base"];
  const lines = rows.map((row, index) => {
    const base = row.server === "service" ? rows[index - 1] : null;
    const ratio = (a: number | null, b: number | null | undefined) => (base && a !== null && b ? `${(a / b).toFixed(2)}×` : "");
    return [
      row.scenario,
      row.database,
      row.server,
      row.perSecond === null ? "–" : row.perSecond.toFixed(0),
      row.p50.toFixed(1),
      row.p99.toFixed(1),
      ratio(row.perSecond, base?.perSecond),
      ratio(row.p50, base?.p50),
      ratio(row.p99, base?.p99),
    ];
  });
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((line) => line[i].length)));
  const format = (cells: string[]) => `| ${cells.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(" | ")} |`;
  return [format(header), `|${widths.map((w, i) => (i < 3 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`, ...lines.map(format)].join("\n");
}

async function main(): Promise<void> {
  if (settings.profileDir) mkdirSync(settings.profileDir, { recursive: true });
  log(
    `Webhook benchmark: ${settings.events} events × ${settings.endpoints.join(" and ")} endpoint(s) drained; ${settings.latencyOrders} orders at ` +
      `${settings.latencyRate}/s for latency; ${os.cpus().length} CPU(s), Node ${process.version}`,
  );
  const rows: Row[] = [];
  const receiver = new Receiver();
  const receiverUrl = await receiver.listen();
  cleanups.push(() => receiver.close());
  try {
    for (const kind of settings.databases) {
      const db = await provision(kind);
      if (!db) continue;
      log(`\n${db.label}`);
      const mark = cleanups.length;
      cleanups.push(() => db.drop());
      for (const endpoints of settings.endpoints) {
        // A service per endpoint count, on the same database: the table's rows stay independent.
        const serviceMark = cleanups.length;
        const service = await startService(db, receiverUrl, endpoints);
        rows.push(...(await throughput(service, receiver, kind)));
        rows.push(...(await latency(service, receiver, kind)));
        while (cleanups.length > serviceMark) await cleanUp(cleanups.pop()!);
      }
      while (cleanups.length > mark) await cleanUp(cleanups.pop()!);
    }
  } finally {
    await runCleanups();
  }
  process.stdout.write(
    `\n${table(rows)}\n\nService = the dispatcher as in production (claim with a lease, sign, POST on a keep-alive connection ` +
      `pinned to the checked address, record the attempt) at ${PER_ENDPOINT_IN_FLIGHT} attempts in flight per endpoint; baseline = ` +
      `bare POSTs of the same bodies with the same concurrency on keep-alive connections (${PER_ENDPOINT_IN_FLIGHT} per endpoint). ` +
      `Drain p50/p99 = attempt durations; latency = event timestamp → arrival.\n`,
  );
}

await main();
