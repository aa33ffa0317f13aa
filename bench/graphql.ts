/**
 * GraphQL benchmark. Section "order(id) vs REST": the same order read through GraphQL (`POST /graphql`,
 * `query { order(id) { …every field… } }`) and through REST (`GET /api/v1/orders/{id}`) on the same running
 * service, same database, same run, alternating which goes first; printed as a ratio (goal: GraphQL ≥ 0.8× of
 * REST's throughput). On embedded PGlite and on PostgreSQL, like bench/rest.ts (see bench/README.md for the
 * harness and its settings: BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS, BENCH_ROUNDS, BENCH_ORDERS,
 * BENCH_DATABASES, BENCH_PG_URL).
 *
 *   npm run bench:graphql
 *   BENCH_DURATION=2 BENCH_WARMUP=1 BENCH_ROUNDS=1 npm run bench:graphql     # quick check
 */
import { mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { drain, type InFlight } from "../src/http/in-flight.ts";
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
import type { LoadResult, LoadScenario } from "./load-worker.ts";
import { cpuPerRequest, cpuSnapshot, formatCpu, medianCpu, type CpuPerRequest } from "./cpu-cost.ts";
import { profiled } from "./cpu-profile.ts";

const settings = {
  duration: numberEnv("BENCH_DURATION", 8),
  warmup: numberEnv("BENCH_WARMUP", 2, { min: 0 }),
  connections: numberEnv("BENCH_CONNECTIONS", 10),
  rounds: numberEnv("BENCH_ROUNDS", 2),
  orders: numberEnv("BENCH_ORDERS", 300),
  databases: listEnv<DatabaseKind>("BENCH_DATABASES", ["pglite", "postgres"]),
  /** Write a CPU profile of the service's thread for every measured run into this directory. */
  profileDir: process.env.BENCH_CPU_PROFILE || null,
};

const fmt = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** The service as production runs it (see startBenchService), with orders to read. */
async function startService(db: ProvisionedDatabase) {
  const { app, url, inFlight } = await startBenchService(db);
  const { merchant, keys } = await app.services.merchantService.createMerchant("Bench Shop");
  const ids = await seedOrders(app, { merchantId: merchant.id, mode: "test" }, settings.orders);
  return { url, inFlight, apiKey: keys.test, ids };
}

interface Row {
  section: string;
  database: DatabaseKind;
  target: string;
  rps: number;
  p50: number;
  p99: number;
  failed: number;
  /** Against the section's reference target (REST for "order(id) vs REST"). */
  rpsRatio?: number;
  p99Ratio?: number;
  /** CPU time per answered request, median over runs (cpu-cost.ts); null off Linux. */
  cpu: CpuPerRequest | null;
  cpuRatio?: number;
}

// ------------------------------------------------------------------------------- order(id) vs REST

/**
 * One service, one database: REST `GET /api/v1/orders/{id}` and GraphQL `order(id)` with every field, each
 * measured `rounds` times after a warm-up, alternating which goes first; medians, and GraphQL ÷ REST.
 */
async function orderByIdVsRest(worker: LoadWorker, db: ProvisionedDatabase, service: Awaited<ReturnType<typeof startService>>): Promise<Row[]> {
  const targets: { name: string; scenario: LoadScenario }[] = [
    { name: "REST GET /api/v1/orders/{id}", scenario: "get" },
    { name: "GraphQL order(id)", scenario: "graphql-order" },
  ];
  const results = new Map<string, { runs: LoadResult[]; cpu: CpuPerRequest[]; stuck: number }>(
    targets.map((t) => [t.name, { runs: [], cpu: [], stuck: 0 }]),
  );
  for (let round = 1; round <= settings.rounds; round++) {
    const order = round % 2 === 1 ? targets : [...targets].reverse();
    for (const target of order) {
      const spec = (seconds: number) => ({
        url: service.url,
        scenario: target.scenario,
        apiKey: service.apiKey,
        ids: service.ids,
        connections: settings.connections,
        seconds,
        tag: `${target.scenario}-${round}`,
      });
      const entry = results.get(target.name)!;
      if (settings.warmup > 0) {
        const warm = await worker.run(spec(settings.warmup));
        entry.stuck += await drain(`${target.name} (warm-up)`, service.inFlight as InFlight);
        if (warm.ok === 0) throw new Error(`${target.name} answered nothing during warm-up: ${JSON.stringify(warm.statusCodes)}`);
      }
      const profile = settings.profileDir
        ? path.join(settings.profileDir, `${db.kind}-${target.scenario}-r${round}.cpuprofile`)
        : null;
      const before = cpuSnapshot();
      const result = await profiled(profile, () => worker.run(spec(settings.duration)));
      const cpu = cpuPerRequest(before, cpuSnapshot(), result.ok);
      entry.stuck += await drain(target.name, service.inFlight);
      entry.runs.push(result);
      if (cpu) entry.cpu.push(cpu);
      const problems = result.non2xx + result.errors + result.mismatches;
      log(
        `  round ${round} ${target.name.padEnd(30)} ${fmt(result.rps, 0).padStart(6)} req/s  p50 ${fmt(result.p50)} ms  p99 ${fmt(result.p99)} ms  CPU/request: ${formatCpu(cpu)}` +
          (problems ? `  !! non-2xx ${result.non2xx} ${JSON.stringify(result.statusCodes)}, errors ${result.errors}, mismatches ${result.mismatches}` : ""),
      );
    }
  }
  const rows = targets.map(({ name }): Row => {
    const { runs, cpu, stuck } = results.get(name)!;
    return {
      section: "order(id) vs REST",
      database: db.kind,
      target: name,
      rps: median(runs.map((run) => run.rps)),
      p50: median(runs.map((run) => run.p50)),
      p99: median(runs.map((run) => run.p99)),
      failed: runs.reduce((sum, run) => sum + run.non2xx + run.errors + run.mismatches, 0) + stuck,
      cpu: medianCpu(cpu),
    };
  });
  const [rest, graphql] = rows;
  graphql.rpsRatio = graphql.rps / rest.rps;
  graphql.p99Ratio = graphql.p99 / rest.p99;
  if (graphql.cpu && rest.cpu) graphql.cpuRatio = graphql.cpu.mainThreadUs / rest.cpu.mainThreadUs;
  return rows;
}

// ------------------------------------------------------------------------------------------------ table

function table(rows: Row[]): string {
  const header = [
    "section", "database", "target", "req/s", "p50 ms", "p99 ms", "failed", "req/s vs ref", "p99 vs ref", "main thread µs/req", "main vs ref",
  ];
  const cells = rows.map((row) => [
    row.section,
    row.database,
    row.target,
    fmt(row.rps, 0),
    fmt(row.p50),
    fmt(row.p99),
    String(row.failed),
    row.rpsRatio === undefined ? "" : `${fmt(row.rpsRatio)}×`,
    row.p99Ratio === undefined ? "" : `${fmt(row.p99Ratio)}×`,
    row.cpu ? fmt(row.cpu.mainThreadUs, 0) : "n/a",
    row.cpuRatio === undefined ? "" : `${fmt(row.cpuRatio)}×`,
  ]);
  return markdownTable(header, cells, new Set([3, 4, 5, 6, 7, 8, 9, 10]));
}

// ------------------------------------------------------------------------------------------------- main

async function main(): Promise<void> {
  log(
    `GraphQL benchmark: ${settings.connections} connections, ${settings.warmup} s warm-up + ${settings.duration} s measured per run, ` +
      `${settings.rounds} round(s) per target; ${os.cpus().length} CPU(s), Node ${process.version}`,
  );
  if (process.env.NODE_ENV !== "production") {
    // graphql-js reads it once, when loaded: outside production it type-checks every value it touches.
    log("NODE_ENV is not production (npm run bench:graphql sets it): graphql-js runs its development checks.");
  }
  if (settings.profileDir) mkdirSync(settings.profileDir, { recursive: true });
  const worker = new LoadWorker();
  cleanups.push(() => worker.close());
  const rows: Row[] = [];
  const labels: string[] = [];
  try {
    for (const kind of settings.databases) {
      const db = await provision(kind);
      if (!db) continue;
      labels.push(`  ${kind}: ${db.label}`);
      log(`\n${db.label}`);
      const mark = cleanups.length;
      cleanups.push(() => db.drop());
      const service = await startService(db);
      rows.push(...(await orderByIdVsRest(worker, db, service)));
      while (cleanups.length > mark) await cleanUp(cleanups.pop()!);
    }
  } finally {
    await runCleanups();
  }
  if (rows.length === 0) {
    log("\nNothing was measured.");
    process.exitCode = 1;
    return;
  }
  process.stdout.write(
    [
      "",
      `Median of ${settings.rounds} run(s) of ${settings.duration} s per target, ${settings.connections} connections, loopback, ` +
        `one service (NODE_ENV=production). "vs ref" = target ÷ the section's first row (req/s: higher is better; p99: lower is better).`,
      ...labels,
      "",
      table(rows),
      "",
    ].join("\n"),
  );
  if (rows.some((row) => row.failed > 0)) {
    log('Some requests failed, returned the wrong body or never finished (column "failed").');
    process.exitCode = 1;
  }
}

await main();
process.exit();
