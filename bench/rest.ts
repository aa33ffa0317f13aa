/**
 * REST benchmark: the real service against a bare Fastify + `pg` baseline, on embedded PGlite and on
 * PostgreSQL, measured with autocannon over loopback. See bench/README.md.
 *
 *   npm run bench:rest
 *   BENCH_DURATION=2 BENCH_WARMUP=1 BENCH_ROUNDS=1 npm run bench:rest     # quick check
 */
import pg from "pg";
import { cliSource } from "../src/domain/audit/audit-log.ts";
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import os from "node:os";
import type { RunningApp } from "../src/app.ts";
import type { Database } from "../src/db/database.ts";
import { drain, type InFlight } from "../src/http/in-flight.ts";
import { startBaseline, type Baseline } from "./baseline.ts";
import { profiled } from "./cpu-profile.ts";
import { cpuPerRequest, cpuSnapshot, formatCpu, medianCpu, type CpuPerRequest } from "./cpu-cost.ts";
import {
  cleanUp,
  cleanups,
  listEnv,
  LoadWorker,
  log,
  numberEnv,
  POOL_SIZE,
  provision,
  runCleanups,
  seedOrders,
  startBenchService,
  type DatabaseKind,
  type ProvisionedDatabase,
  markdownTable,
} from "./harness.ts";
import type { LoadResult, LoadSpec, Scenario } from "./load-worker.ts";

// ---------------------------------------------------------------------------------------------- settings

/** `service-nostats`: the same service with the order statistics switched off in the database (BENCH_STATS_AB=1). */
type Target = "baseline" | "service" | "service-nostats";

const settings = {
  /** Measured seconds per run. */
  duration: numberEnv("BENCH_DURATION", 8),
  /** Warm-up seconds before every measured run (same target, same load, results discarded). */
  warmup: numberEnv("BENCH_WARMUP", 2, { min: 0 }),
  connections: numberEnv("BENCH_CONNECTIONS", 10),
  /** Baseline and service are measured this many times each, alternating which goes first. */
  rounds: numberEnv("BENCH_ROUNDS", 2),
  /** Orders seeded for the GET scenario. */
  orders: numberEnv("BENCH_ORDERS", 300),
  databases: listEnv<DatabaseKind>("BENCH_DATABASES", ["pglite", "postgres"]),
  scenarios: listEnv<Scenario>("BENCH_SCENARIOS", ["get", "post"]),
  /** Also write every run and the summary as JSON here. */
  jsonFile: process.env.BENCH_JSON || null,
  /** The baseline also prepares its statements (PostgreSQL only: PGlite's connections share one session). */
  baselinePrepared: process.env.BENCH_BASELINE_PREPARED === "1",
  /** Write a CPU profile of the servers' thread for every measured run into this directory. */
  profileDir: process.env.BENCH_CPU_PROFILE || null,
  /**
   * Give the bench shop this many webhook endpoints wanting order.created (a bare receiver on loopback): the POST
   * runs then pay for the deliveries too, as a shop that integrates over webhooks does. The baseline has none.
   */
  webhookEndpoints: numberEnv("BENCH_WEBHOOK_ENDPOINTS", 0, { min: 0 }),
  /**
   * PostgreSQL: also measure the service with the order statistics switched off (issue 25), alternating with it in
   * the same run: the statistics triggers on orders disabled, and the create path's upsert of its bucket rows dropped
   * by a BEFORE INSERT trigger on order_stat_buckets (whose own small cost stays with the "off" side, so the
   * difference reported is, if anything, smaller than the real one by that trigger's cost).
   */
  statsAb: process.env.BENCH_STATS_AB === "1",
};

const STATS_OFF_SQL = `
  CREATE OR REPLACE FUNCTION bench_drop_stat_rows() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
  DROP TRIGGER IF EXISTS bench_drop_stat_rows ON order_stat_buckets;
  CREATE TRIGGER bench_drop_stat_rows BEFORE INSERT ON order_stat_buckets FOR EACH ROW EXECUTE FUNCTION bench_drop_stat_rows();
  ALTER TABLE orders DISABLE TRIGGER order_stats_insert, DISABLE TRIGGER order_stats_update;`;
const STATS_ON_SQL = `
  DROP TRIGGER IF EXISTS bench_drop_stat_rows ON order_stat_buckets;
  ALTER TABLE orders ENABLE TRIGGER order_stats_insert, ENABLE TRIGGER order_stats_update;`;

async function switchStats(db: ProvisionedDatabase, on: boolean): Promise<void> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await client.query(on ? STATS_ON_SQL : STATS_OFF_SQL);
  } finally {
    await client.end();
  }
}

const SCENARIO_LABEL: Record<Scenario, string> = { get: "GET /api/v1/orders/{id}", post: "POST /api/v1/orders" };
const MERCHANT_MODE = "test" as const;


// --------------------------------------------------------------------------------------------- servers

interface Servers {
  service: { url: string; app: RunningApp; database: Database; inFlight: InFlight };
  baseline: Baseline;
  apiKey: string;
  ids: string[];
  merchantId: string;
  receiver: { url: string; received: Set<string> } | null;
}

/** A merchant's receiver at its fastest: answers 204 and counts the distinct webhook-ids it was sent. */
async function startReceiver(): Promise<{ url: string; received: Set<string> }> {
  const received = new Set<string>();
  const server = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      received.add(String(request.headers["webhook-id"]));
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

async function startServers(db: ProvisionedDatabase): Promise<Servers> {
  const { app, database, url, inFlight } = await startBenchService(
    db,
    settings.webhookEndpoints > 0 ? { WEBHOOK_ALLOW_PRIVATE_URLS: "true" } : {},
  );
  const { merchant, keys } = await app.services.merchantService.createMerchant("Bench Shop");
  let receiver: Servers["receiver"] = null;
  if (settings.webhookEndpoints > 0) {
    receiver = await startReceiver();
    for (let i = 0; i < settings.webhookEndpoints; i++) {
      const scope = { merchantId: merchant.id, mode: MERCHANT_MODE };
      await app.services.webhookEndpoints.create(scope, { url: `${receiver.url}/hook/${i}`, events: ["order.created"] }, cliSource("bench"));
    }
  }
  const started = performance.now();
  const ids = await seedOrders(app, { merchantId: merchant.id, mode: MERCHANT_MODE }, settings.orders);
  log(`  seeded ${ids.length} orders in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const baseline = await startBaseline({
    url: db.url,
    poolSize: database.pool.options.max ?? POOL_SIZE[db.kind],
    merchantId: merchant.id,
    mode: MERCHANT_MODE,
    prepared: settings.baselinePrepared && db.kind === "postgres",
  });
  cleanups.push(() => baseline.close());
  return { service: { url, app, database, inFlight }, baseline, apiKey: keys.test, ids, merchantId: merchant.id, receiver };
}

/**
 * With webhook endpoints: waits until every delivery of the bench shop has succeeded, and checks that the receiver
 * got each exactly as many as were written (one per order created while an endpoint existed, per endpoint).
 */
async function checkDeliveries(servers: Servers): Promise<void> {
  if (!servers.receiver) return;
  const { pool } = servers.service.database;
  const started = Date.now();
  const deadline = started + 300_000;
  for (;;) {
    const { rows } = await pool.query<{ total: number; done: number }>(
      `SELECT count(*)::int AS total, count(*) FILTER (WHERE status = 'succeeded')::int AS done
       FROM webhook_deliveries WHERE merchant_id = $1`,
      [servers.merchantId],
    );
    const { total, done } = rows[0];
    if (total === done && servers.receiver.received.size === total) {
      log(`  webhooks: ${total} deliveries, all succeeded and received once; the last ${((Date.now() - started) / 1000).toFixed(1)} s after the load ended`);
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`webhooks: ${done} of ${total} deliveries succeeded, ${servers.receiver.received.size} received`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// ----------------------------------------------------------------------------------------- measurement

interface Run {
  database: DatabaseKind;
  scenario: Scenario;
  target: Target;
  round: number;
  result: LoadResult;
  /** Handlers (of this run or its warm-up) still running 30 s after the load stopped. */
  stuck: number;
  /** CPU time per answered request of the measured run (cpu-cost.ts); null off Linux. */
  cpu: CpuPerRequest | null;
}

const fmt = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");

async function measure(worker: LoadWorker, db: ProvisionedDatabase, servers: Servers, scenario: Scenario): Promise<Run[]> {
  const runs: Run[] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    // Alternate which target goes first, so drift over time (thermal, GC, table growth) hits both alike.
    const targets: Target[] = settings.statsAb && db.kind === "postgres" ? ["baseline", "service", "service-nostats"] : ["baseline", "service"];
    const order: Target[] = round % 2 === 1 ? targets : [...targets].reverse();
    for (const target of order) {
      const { url, inFlight } = target === "baseline" ? servers.baseline : servers.service;
      if (target !== "baseline" && settings.statsAb && db.kind === "postgres") await switchStats(db, target === "service");
      const spec = (seconds: number, phase: string): LoadSpec => ({
        url,
        scenario,
        apiKey: servers.apiKey,
        ids: servers.ids,
        connections: settings.connections,
        seconds,
        tag: `${target}-${db.kind}-${round}-${phase}-${randomBytes(3).toString("hex")}`,
      });
      let stuck = 0;
      if (settings.warmup > 0) {
        const warm = await worker.run(spec(settings.warmup, "warm"));
        stuck += await drain(`${target} (warm-up)`, inFlight);
        if (warm.ok === 0) throw new Error(`${target} answered nothing during warm-up: ${JSON.stringify(warm.statusCodes)}`);
      }
      const profile = settings.profileDir ? path.join(settings.profileDir, `${db.kind}-${scenario}-${target}-r${round}.cpuprofile`) : null;
      let cpu: CpuPerRequest | null = null;
      const result = await profiled(profile, async () => {
        const before = cpuSnapshot();
        const measured = await worker.run(spec(settings.duration, "run"));
        // Read before the drain: only the measured seconds count (the handlers still running are a few requests).
        cpu = cpuPerRequest(before, cpuSnapshot(), measured.ok);
        stuck += await drain(target, inFlight);
        return measured;
      });
      runs.push({ database: db.kind, scenario, target, round, result, stuck, cpu });
      const problems = result.non2xx + result.errors + result.mismatches + stuck;
      log(
        `  ${scenario.padEnd(4)} round ${round} ${target.padEnd(8)} ${fmt(result.rps, 0).padStart(6)} req/s  ` +
          `p50 ${fmt(result.p50)} ms  p99 ${fmt(result.p99)} ms  CPU/request: ${formatCpu(cpu)}` +
          (problems
            ? `  !! non-2xx ${result.non2xx} ${JSON.stringify(result.statusCodes)}, errors ${result.errors}, ` +
              `mismatches ${result.mismatches}, never finished ${stuck}`
            : ""),
      );
    }
  }
  return runs;
}

interface Summary {
  scenario: Scenario;
  database: DatabaseKind;
  target: Target;
  rps: number;
  p50: number;
  p99: number;
  problems: number;
  /** Medians over the runs; null off Linux. */
  cpu: CpuPerRequest | null;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

function summarise(runs: Run[]): Summary[] {
  const groups = new Map<string, Run[]>();
  for (const run of runs) {
    const key = `${run.scenario}|${run.database}|${run.target}`;
    groups.set(key, [...(groups.get(key) ?? []), run]);
  }
  return [...groups.values()].map((group) => ({
    scenario: group[0].scenario,
    database: group[0].database,
    target: group[0].target,
    rps: median(group.map((run) => run.result.rps)),
    p50: median(group.map((run) => run.result.p50)),
    p99: median(group.map((run) => run.result.p99)),
    problems: group.reduce((sum, run) => sum + run.result.non2xx + run.result.errors + run.result.mismatches + run.stuck, 0),
    cpu: medianCpu(group.map((run) => run.cpu)),
  }));
}

/** Each (scenario, database) measured on both servers, in the table's order: the baseline, then the service. */
function pairs(summaries: Summary[]): { scenario: Scenario; database: DatabaseKind; base: Summary; service: Summary }[] {
  const found = [];
  for (const scenario of settings.scenarios) {
    for (const database of settings.databases) {
      const base = summaries.find((s) => s.scenario === scenario && s.database === database && s.target === "baseline");
      const service = summaries.find((s) => s.scenario === scenario && s.database === database && s.target === "service");
      if (base && service) found.push({ scenario, database, base, service });
    }
  }
  return found;
}

/** Every pair as two rows (baseline, then service): the scenario, database and server, then `cells` of that server. */
function pairRows(summaries: Summary[], cells: (entry: Summary, pair: { database: DatabaseKind; base: Summary; service: Summary }) => string[]) {
  return pairs(summaries).flatMap((pair) =>
    [pair.base, pair.service].map((entry) => [SCENARIO_LABEL[pair.scenario], pair.database, entry.target, ...cells(entry, pair)]),
  );
}

/**
 * CPU time per request (median over runs): the servers' thread and PostgreSQL's processes, and service ÷ baseline.
 * Steadier than req/s on a shared machine, and it tells where a gap is.
 */
function cpuTable(summaries: Summary[]): string {
  const header = ["scenario", "database", "server", "main thread µs/req", "postgres µs/req", "main vs base", "postgres vs base"];
  const us = (value: number | undefined) => (value === undefined ? "n/a" : fmt(value, 0));
  const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b ? `${fmt(a / b)}×` : "");
  const rows = pairRows(summaries, (entry, { database, base, service }) => {
    const isService = entry === service;
    return [
      us(entry.cpu?.mainThreadUs),
      database === "pglite" ? "–" : us(entry.cpu?.postgresUs),
      isService ? ratio(service.cpu?.mainThreadUs, base.cpu?.mainThreadUs) : "",
      isService && database !== "pglite" ? ratio(service.cpu?.postgresUs, base.cpu?.postgresUs) : "",
    ];
  });
  return markdownTable(header, rows, new Set([3, 4, 5, 6]));
}

/** BENCH_STATS_AB=1: the service with the order statistics against the same service without them, same run. */
function statsAbLines(summaries: Summary[]): string[] {
  const lines: string[] = [];
  for (const scenario of settings.scenarios) {
    const on = summaries.find((s) => s.scenario === scenario && s.database === "postgres" && s.target === "service");
    const off = summaries.find((s) => s.scenario === scenario && s.database === "postgres" && s.target === "service-nostats");
    if (!on || !off) continue;
    const cpu = (entry: Summary) => (entry.cpu ? entry.cpu.mainThreadUs + (entry.cpu.postgresUs ?? 0) : NaN);
    lines.push(
      `Order statistics on ÷ off, ${SCENARIO_LABEL[scenario]} on PostgreSQL (same run): req/s ${fmt(on.rps, 0)} ÷ ${fmt(off.rps, 0)} = ` +
        `${fmt(on.rps / off.rps, 3)}×; p99 ${fmt(on.p99)} ÷ ${fmt(off.p99)} ms; CPU per request (main thread + PostgreSQL) ` +
        `${fmt(cpu(on), 0)} ÷ ${fmt(cpu(off), 0)} µs = ${fmt(cpu(on) / cpu(off), 3)}× (PostgreSQL ${fmt(on.cpu?.postgresUs ?? NaN, 0)} ÷ ` +
        `${fmt(off.cpu?.postgresUs ?? NaN, 0)} µs)`,
      "",
    );
  }
  return lines;
}

function table(summaries: Summary[]): string {
  const header = ["scenario", "database", "server", "req/s", "p50 ms", "p99 ms", "failed", "req/s vs base", "p99 vs base"];
  const rows = pairRows(summaries, (entry, { base, service }) => {
    const isService = entry === service;
    return [
      fmt(entry.rps, 0),
      fmt(entry.p50),
      fmt(entry.p99),
      String(entry.problems),
      isService ? `${fmt(service.rps / base.rps)}×` : "",
      isService ? `${fmt(service.p99 / base.p99)}×` : "",
    ];
  });
  return markdownTable(header, rows, new Set([3, 4, 5, 6, 7, 8]));
}

// -------------------------------------------------------------------------------------------------- main

async function main(): Promise<void> {
  const perTarget = settings.warmup + settings.duration;
  const estimate = settings.databases.length * settings.scenarios.length * settings.rounds * 2 * perTarget;
  log(
    `REST benchmark: ${settings.connections} connections, ${settings.warmup} s warm-up + ${settings.duration} s measured per run, ` +
      `${settings.rounds} round(s) per server; ${os.cpus().length} CPU(s), Node ${process.version}; ~${Math.ceil(estimate / 60)} min of load`,
  );
  if (settings.profileDir) mkdirSync(settings.profileDir, { recursive: true });
  const worker = new LoadWorker();
  cleanups.push(() => worker.close());
  const runs: Run[] = [];
  const labels: Partial<Record<DatabaseKind, string>> = {};
  try {
    for (const kind of settings.databases) {
      const db = await provision(kind);
      if (!db) continue;
      labels[kind] = db.label;
      log(`\n${db.label}`);
      const mark = cleanups.length;
      cleanups.push(() => db.drop());
      const servers = await startServers(db);
      for (const scenario of settings.scenarios) runs.push(...(await measure(worker, db, servers, scenario)));
      await checkDeliveries(servers);
      // Close this database's servers and drop it before moving on to the next.
      while (cleanups.length > mark) await cleanUp(cleanups.pop()!);
    }
  } finally {
    await runCleanups();
  }

  if (runs.length === 0) {
    log("\nNothing was measured.");
    process.exitCode = 1;
    return;
  }
  const summaries = summarise(runs);
  const out = [
    "",
    `Median of ${settings.rounds} run(s) of ${settings.duration} s per server, ${settings.connections} connections, loopback. ` +
      `"vs base" = service ÷ baseline (req/s: higher is better; p99: lower is better).`,
    ...Object.entries(labels).map(([kind, label]) => `  ${kind}: ${label}`),
    "",
    table(summaries),
    "",
    "CPU time per answered request, median of the runs (Linux /proc; on PGlite the database runs on the main thread):",
    "",
    cpuTable(summaries),
    "",
    ...statsAbLines(summaries),
  ].join("\n");
  process.stdout.write(out);
  if (summaries.some((summary) => summary.problems > 0)) {
    log("Some requests failed, returned the wrong body or never finished (column \"failed\"): see the per-run lines above.");
    process.exitCode = 1;
  }
  if (settings.jsonFile) {
    writeFileSync(settings.jsonFile, `${JSON.stringify({ settings, labels, runs, summaries }, null, 2)}\n`);
    log(`Results written to ${settings.jsonFile}`);
  }
}

await main();
// Anything left open (only after a cleanup gave up) must not keep the process alive.
process.exit();
