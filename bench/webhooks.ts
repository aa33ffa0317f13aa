/**
 * Webhook delivery benchmark: the real dispatcher (outbox → fan-out → claim → signed POST → outcome recorded)
 * against a bare loop that POSTs the same bodies to the same local receiver, in the same run, on embedded
 * PGlite and on PostgreSQL. See bench/README.md.
 *
 *   npm run bench:webhooks
 *   BENCH_EVENTS=300 BENCH_DATABASES=pglite npm run bench:webhooks      # quick check
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
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

const settings = {
  /** Events in the backlog drained by the throughput scenario. */
  events: numberEnv("BENCH_EVENTS", 2000),
  /** Endpoints the backlog fans out to (each gets every event). */
  endpoints: numberEnv("BENCH_ENDPOINTS", 1),
  /** Orders created one after another, at this rate, for the latency scenario. */
  latencyOrders: numberEnv("BENCH_LATENCY_ORDERS", 200),
  latencyRate: numberEnv("BENCH_LATENCY_RATE", 50),
  databases: listEnv<DatabaseKind>("BENCH_DATABASES", ["pglite", "postgres"]),
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

/** POSTs one body with a fresh connection, like the dispatcher (agent: false), and nothing else. */
function barePost(url: string, id: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: "POST",
      agent: false,
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

async function startService(db: ProvisionedDatabase, receiverUrl: string): Promise<Service> {
  const { app, config, database, logger } = await startBenchService(db, { WEBHOOK_ALLOW_PRIVATE_URLS: "true" });
  // The service's own dispatcher is stopped: each scenario starts a fresh one on a known backlog.
  await app.services.webhookDispatcher.stop();
  const { merchant } = await app.services.merchantService.createMerchant("Bench Shop");
  const scope = { merchantId: merchant.id, mode: "test" as const };
  const endpointUrls: string[] = [];
  for (let i = 0; i < settings.endpoints; i++) {
    const endpoint = await app.services.webhookEndpoints.create(scope, { url: `${receiverUrl}/hook/${i}` });
    endpointUrls.push(endpoint.url);
  }
  const repository = new WebhookDeliveryRepository(database.prisma, database.pool);
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
  const started = Date.now();
  dispatcher.start();
  await receiver.until(deliveries);
  const seconds = (Date.now() - started) / 1000;
  await dispatcher.stop();
  // Time from the start of the drain until each delivery arrived is not a latency; the per-attempt cost is.
  const { rows } = await service.app.services.database.pool.query<{ ms: number }>(
    "SELECT duration_ms AS ms FROM webhook_attempts",
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
  for (let i = 0; i < settings.latencyOrders; i++) {
    const tick = performance.now();
    await service.app.services.orderService.create(service.scope, createOrderInput.parse(benchOrderBody(`${prefix}-${i}`)), "en");
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
  log(
    `Webhook benchmark: ${settings.events} events × ${settings.endpoints} endpoint(s) drained; ${settings.latencyOrders} orders at ` +
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
      const service = await startService(db, receiverUrl);
      rows.push(...(await throughput(service, receiver, kind)));
      rows.push(...(await latency(service, receiver, kind)));
      while (cleanups.length > mark) await cleanUp(cleanups.pop()!);
    }
  } finally {
    await runCleanups();
  }
  process.stdout.write(
    `\n${table(rows)}\n\nService = the dispatcher as in production (claim with a lease, sign, POST on a fresh connection, record the ` +
      `attempt) at ${PER_ENDPOINT_IN_FLIGHT} attempts in flight per endpoint; baseline = bare POSTs of the same bodies with the same ` +
      `concurrency and fresh connections. Drain p50/p99 = attempt durations; latency = event timestamp → arrival.\n`,
  );
}

await main();
