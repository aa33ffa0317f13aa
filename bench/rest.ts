/**
 * REST benchmark: the real service against a bare Fastify + `pg` baseline, on embedded PGlite and on
 * PostgreSQL, measured with autocannon over loopback. See bench/README.md.
 *
 *   npm run bench:rest
 *   BENCH_DURATION=2 BENCH_WARMUP=1 BENCH_ROUNDS=1 npm run bench:rest     # quick check
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import path from "node:path";
import os from "node:os";
import { Worker } from "node:worker_threads";
import pg from "pg";
import { createApp, type RunningApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { openDatabase, type Database } from "../src/db/database.ts";
import { startEmbeddedPostgres } from "../src/db/embedded-postgres.ts";
import { migrate } from "../src/db/migrator.ts";
import { createOrderInput } from "../src/domain/orders/order.schemas.ts";
import { createLogger } from "../src/logger.ts";
import { startBaseline, type Baseline } from "./baseline.ts";
import { drain, trackInFlight, type InFlight } from "../src/http/in-flight.ts";
import type { LoadResult, LoadSpec, Scenario } from "./load-worker.ts";
import { benchOrderBody } from "./order-body.ts";

// ---------------------------------------------------------------------------------------------- settings

type DatabaseKind = "pglite" | "postgres";
type Target = "baseline" | "service";

function numberEnv(name: string, fallback: number, { min = 1, integer = true } = {}): number {
  const text = process.env[name];
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new Error(`${name}=${text}: expected ${integer ? "an integer" : "a number"} ≥ ${min}`);
  }
  return value;
}

function listEnv<T extends string>(name: string, allowed: readonly T[]): T[] {
  const text = process.env[name];
  if (!text) return [...allowed];
  const values = text.split(",").map((part) => part.trim()).filter(Boolean);
  const unknown = values.filter((value) => !allowed.includes(value as T));
  if (unknown.length) throw new Error(`${name}: unknown ${unknown.join(", ")} (expected some of ${allowed.join(", ")})`);
  return values as T[];
}

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
  postgresUrl: process.env.BENCH_PG_URL || "postgresql://postgres@127.0.0.1:5432/postgres",
  /** Also write every run and the summary as JSON here. */
  jsonFile: process.env.BENCH_JSON || null,
  /** Write a CPU profile of the servers' thread for every measured run into this directory. */
  profileDir: process.env.BENCH_CPU_PROFILE || null,
};

const SCENARIO_LABEL: Record<Scenario, string> = { get: "GET /api/v1/orders/{id}", post: "POST /api/v1/orders" };
/**
 * openDatabase()'s own pool sizes (src/db/database.ts). The service reaches PGlite through a postgres:// socket
 * URL, from which openDatabase() cannot tell that the embedded engine is behind, so the size is passed in.
 */
const POOL_SIZE: Record<DatabaseKind, number> = { pglite: 4, postgres: 20 };
const MERCHANT_MODE = "test" as const;

const log = (message: string) => process.stderr.write(`${message}\n`);

// ------------------------------------------------------------------------------------ cleanup on exit

const cleanups: (() => Promise<unknown>)[] = [];
/** Runs one cleanup, bounded: a close that never returns (see "never finished" requests) must not hang the run. */
async function cleanUp(cleanup: () => Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      log(`cleanup did not finish within 30 s, going on: ${cleanup.toString().replace(/\s+/g, " ").slice(0, 80)}`);
      resolve();
    }, 30_000);
  });
  await Promise.race([cleanup().catch((error: unknown) => log(`cleanup failed: ${(error as Error).message}`)), limit]);
  clearTimeout(timer);
}
async function runCleanups(): Promise<void> {
  while (cleanups.length) await cleanUp(cleanups.pop()!);
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    log(`\n${signal}: cleaning up…`);
    void runCleanups().finally(() => process.exit(130));
  });
}

// ----------------------------------------------------------------------------------------- load worker

class LoadWorker {
  // Node 20 does not apply the main thread's `--import tsx` hooks to workers: register tsx in the worker first.
  private readonly worker = new Worker(
    `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))})
       .then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL("./load-worker.ts", import.meta.url).href)}); })`,
    { eval: true },
  );

  run(spec: LoadSpec): Promise<LoadResult> {
    return new Promise((resolve, reject) => {
      const onMessage = (message: { result?: LoadResult; error?: string }) => {
        this.worker.off("error", onError);
        if (message.error) reject(new Error(`load worker: ${message.error}`));
        else resolve(message.result!);
      };
      const onError = (error: Error) => {
        this.worker.off("message", onMessage);
        reject(error);
      };
      this.worker.once("message", onMessage);
      this.worker.once("error", onError);
      this.worker.postMessage(spec);
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

// ------------------------------------------------------------------------------------------- databases

interface ProvisionedDatabase {
  kind: DatabaseKind;
  /** A postgresql:// URL (for PGlite, its unix socket). */
  url: string;
  label: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString();
}

async function provision(kind: DatabaseKind): Promise<ProvisionedDatabase | null> {
  if (kind === "pglite") {
    const embedded = await startEmbeddedPostgres({ dataDir: null });
    await migrate(embedded.url);
    return { kind, url: embedded.url, label: "PGlite (in memory, unix socket)", drop: () => embedded.stop() };
  }
  const admin = new pg.Client({ connectionString: settings.postgresUrl, connectionTimeoutMillis: 3_000 });
  try {
    await admin.connect();
  } catch (error) {
    log(`\nPostgreSQL is not reachable at ${redact(settings.postgresUrl)} (${(error as Error).message}): skipping it.`);
    log("Set BENCH_PG_URL to a server where this user may CREATE DATABASE, or BENCH_DATABASES=pglite to silence this.");
    await admin.end().catch(() => undefined);
    return null;
  }
  const name = `ocs_bench_${randomBytes(6).toString("hex")}`;
  try {
    const { rows } = await admin.query<{ server_version: string }>("SHOW server_version");
    await admin.query(`CREATE DATABASE ${name}`);
    const url = withDatabase(settings.postgresUrl, name);
    const drop = async () => {
      const client = new pg.Client({ connectionString: settings.postgresUrl });
      await client.connect();
      try {
        // pg's pool.end() resolves before its connections have closed; FORCE would kill those mid-goodbye and
        // their pools (no longer listening for errors) would crash the process. Give them a moment first.
        for (let attempt = 0; attempt < 50; attempt++) {
          const { rows: [{ count }] } = await client.query<{ count: number }>(
            "SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = $1",
            [name],
          );
          if (count === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    };
    try {
      await migrate(url);
    } catch (error) {
      await drop();
      throw error;
    }
    return { kind, url, label: `PostgreSQL ${rows[0].server_version.split(" ")[0]} (${name}, TCP loopback)`, drop };
  } finally {
    await admin.end();
  }
}

// --------------------------------------------------------------------------------------------- servers

interface Servers {
  service: { url: string; app: RunningApp; database: Database; inFlight: InFlight };
  baseline: Baseline;
  apiKey: string;
  ids: string[];
}

async function startServers(db: ProvisionedDatabase): Promise<Servers> {
  const config = loadConfig({
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "silent",
    // High enough that the limiter never answers 429, but it still runs on every request as in production.
    RATE_LIMIT_MAX: "1000000000",
  });
  config.database = { kind: "postgres", url: db.url };
  // Opened here (not by createApp) only to give it the pool size it uses for the embedded engine (see POOL_SIZE).
  const database = await openDatabase(config.database, { migrate: false, poolSize: POOL_SIZE[db.kind] });
  cleanups.push(() => database.close());
  const app = await createApp(config, { logger: createLogger(config.logLevel), database });
  const inFlight = trackInFlight(app.http);
  cleanups.push(async () => {
    await drain("service", inFlight);
    await app.close();
  });
  const url = await app.http.listen({ host: "127.0.0.1", port: 0 });

  const { merchant, keys } = await app.services.merchantService.createMerchant("Bench Shop");
  const scope = { merchantId: merchant.id, mode: MERCHANT_MODE };
  const ids: string[] = [];
  const started = performance.now();
  // A few at a time, as clients would; the service path (validation included) so the rows are exactly its own.
  const batch = 8;
  for (let first = 0; first < settings.orders; first += batch) {
    const created = await Promise.all(
      Array.from({ length: Math.min(batch, settings.orders - first) }, (_, i) =>
        app.services.orderService.create(scope, createOrderInput.parse(benchOrderBody(`SEED-${first + i}`)), "en"),
      ),
    );
    ids.push(...created.map((order) => order.id));
  }
  log(`  seeded ${ids.length} orders in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const baseline = await startBaseline({
    url: db.url,
    poolSize: database.pool.options.max ?? POOL_SIZE[db.kind],
    merchantId: merchant.id,
    mode: MERCHANT_MODE,
  });
  cleanups.push(() => baseline.close());
  return { service: { url, app, database, inFlight }, baseline, apiKey: keys.test, ids };
}

// ------------------------------------------------------------------------------------------- profiling

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * Self time by where the code lives: a package, a Node.js internal, our src/, or a native function.
 * WebAssembly is charged to the package that called into it (Prisma's query compiler, PGlite).
 */
function selfTimeByOrigin(profile: Profile): [string, number][] {
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, index) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  const parent = new Map<number, ProfileNode>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
  const originOfUrl = (url: string) =>
    /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ??
    (url.startsWith("node:")
      ? `node:${url.slice(5).split("/")[0]}`
      : path.relative(process.cwd(), url.replace(/^file:\/\//, "")).split(path.sep).slice(0, 2).join("/"));
  const byOrigin = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    const { url, functionName } = node.callFrame;
    // The inspector's own work while the profile is being collected.
    if (!url && functionName === "dispatch") continue;
    total += us;
    let origin: string;
    if (url.startsWith("wasm://")) {
      let caller = parent.get(node.id);
      while (caller && (caller.callFrame.url.startsWith("wasm://") || !caller.callFrame.url)) caller = parent.get(caller.id);
      origin = `${caller ? originOfUrl(caller.callFrame.url) : "?"} (wasm)`;
    } else {
      origin = url ? originOfUrl(url) : functionName || "(native)";
    }
    byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + us);
  }
  return [...byOrigin.entries()].map(([origin, us]): [string, number] => [origin, us / total]).sort((a, b) => b[1] - a[1]);
}

async function profiled<T>(file: string | null, run: () => Promise<T>): Promise<T> {
  if (!file) return run();
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  try {
    return await run();
  } finally {
    const { profile } = (await session.post("Profiler.stop")) as unknown as { profile: Profile };
    session.disconnect();
    writeFileSync(file, JSON.stringify(profile));
    const top = selfTimeByOrigin(profile).slice(0, 8);
    log(`    profile ${path.relative(process.cwd(), file)}: ${top.map(([origin, share]) => `${origin} ${(share * 100).toFixed(0)}%`).join(", ")}`);
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
}

const fmt = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");

async function measure(worker: LoadWorker, db: ProvisionedDatabase, servers: Servers, scenario: Scenario): Promise<Run[]> {
  const runs: Run[] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    // Alternate which target goes first, so drift over time (thermal, GC, table growth) hits both alike.
    const order: Target[] = round % 2 === 1 ? ["baseline", "service"] : ["service", "baseline"];
    for (const target of order) {
      const { url, inFlight } = target === "service" ? servers.service : servers.baseline;
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
      const result = await profiled(profile, async () => {
        const measured = await worker.run(spec(settings.duration, "run"));
        stuck += await drain(target, inFlight);
        return measured;
      });
      runs.push({ database: db.kind, scenario, target, round, result, stuck });
      const problems = result.non2xx + result.errors + result.mismatches + stuck;
      log(
        `  ${scenario.padEnd(4)} round ${round} ${target.padEnd(8)} ${fmt(result.rps, 0).padStart(6)} req/s  ` +
          `p50 ${fmt(result.p50)} ms  p99 ${fmt(result.p99)} ms` +
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
  }));
}

function table(summaries: Summary[]): string {
  const header = ["scenario", "database", "server", "req/s", "p50 ms", "p99 ms", "failed", "req/s vs base", "p99 vs base"];
  const rows: string[][] = [];
  for (const scenario of settings.scenarios) {
    for (const database of settings.databases) {
      const base = summaries.find((s) => s.scenario === scenario && s.database === database && s.target === "baseline");
      const service = summaries.find((s) => s.scenario === scenario && s.database === database && s.target === "service");
      if (!base || !service) continue;
      for (const entry of [base, service]) {
        const isService = entry === service;
        rows.push([
          SCENARIO_LABEL[scenario],
          database,
          entry.target,
          fmt(entry.rps, 0),
          fmt(entry.p50),
          fmt(entry.p99),
          String(entry.problems),
          isService ? `${fmt(service.rps / base.rps)}×` : "",
          isService ? `${fmt(service.p99 / base.p99)}×` : "",
        ]);
      }
    }
  }
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const numeric = new Set([3, 4, 5, 6, 7, 8]);
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => (numeric.has(column) ? cell.padStart(widths[column]) : cell.padEnd(widths[column]))).join(" | ")} |`;
  const separator = `|${widths.map((width, column) => (numeric.has(column) ? `${"-".repeat(width + 1)}:` : "-".repeat(width + 2))).join("|")}|`;
  return [line(header), separator, ...rows.map(line)].join("\n");
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
