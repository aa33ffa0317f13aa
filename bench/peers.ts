/**
 * Peer benchmark: our service (REST and GraphQL, NODE_ENV=production) against PostGraphile 4.14 serving the very
 * same PostgreSQL tables, in the same run, with the same pool size and connections. Two reads: one order with its
 * items by id, and a merchant's newest 50 orders (one mode) with their items. Every answer is parsed and checked
 * (the right orders, newest first, each with its items). See bench/README.md.
 *
 *   npm run bench:peers
 *   BENCH_DURATION=2 BENCH_WARMUP=1 BENCH_ROUNDS=1 npm run bench:peers     # quick check
 *
 * PostGraphile lives in bench/peers/ with its own package.json and lockfile (installed here on first run with
 * `npm ci --prefix bench/peers`), so it never enters the service's dependency tree, and runs in a child process
 * (bench/peers/postgraphile-server.mjs), so it never shares an event loop with our service.
 */
import { execFileSync, fork, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { drain } from "../src/http/in-flight.ts";
import { profiled, selfTimeByFunction, selfTimeByOrigin, type Profile } from "./cpu-profile.ts";
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
  startBenchService,
  type BenchService,
  type ProvisionedDatabase,
  markdownTable,
} from "./harness.ts";
import type { LoadResult } from "./load-worker.ts";
import { answerMatches, PAGE_SIZE, QUERIES, type PeerScenario, type PeerTarget } from "./peers-request.ts";

type Section = "order" | "list";

const settings = {
  duration: numberEnv("BENCH_DURATION", 8),
  warmup: numberEnv("BENCH_WARMUP", 2, { min: 0 }),
  connections: numberEnv("BENCH_CONNECTIONS", 10),
  rounds: numberEnv("BENCH_ROUNDS", 2),
  merchants: numberEnv("BENCH_PEER_MERCHANTS", 5),
  /** Test-mode orders per merchant (each merchant also gets a fifth as many live ones, which no read may return). */
  orders: numberEnv("BENCH_PEER_ORDERS", 1000),
  sections: listEnv<Section>("BENCH_SCENARIOS", ["order", "list"]),
  profileDir: process.env.BENCH_CPU_PROFILE || null,
};

const PEERS_DIR = fileURLToPath(new URL("./peers/", import.meta.url));
const SECTION_TARGETS: Record<Section, { name: string; scenario: PeerScenario }[]> = {
  order: [
    { name: "ours REST GET /orders/{id}", scenario: "ours-rest-order" },
    { name: "ours GraphQL order(id)", scenario: "ours-graphql-order" },
    { name: "PostGraphile orderById", scenario: "postgraphile-order" },
  ],
  list: [
    { name: "ours REST GET /orders?limit=50", scenario: "ours-rest-list" },
    { name: "ours GraphQL orders(first: 50)", scenario: "ours-graphql-list" },
    { name: "PostGraphile allOrders(first: 50)", scenario: "postgraphile-list" },
  ],
};
const SECTION_LABEL: Record<Section, string> = { order: "one order by id", list: "newest 50 of a merchant" };

const fmt = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

// --------------------------------------------------------------------------------------------- PostGraphile

/** bench/peers/node_modules from its own lockfile, once. */
function ensurePeersInstalled(): void {
  if (existsSync(path.join(PEERS_DIR, "node_modules", "postgraphile"))) return;
  log("Installing the peers (npm ci --prefix bench/peers)…");
  execFileSync("npm", ["ci", "--prefix", PEERS_DIR, "--ignore-scripts", "--no-audit", "--no-fund"], { stdio: ["ignore", 2, 2] });
}

interface Peer {
  url: string;
  child: ChildProcess;
}

const peerProfileDir = settings.profileDir ? path.resolve(settings.profileDir, "postgraphile") : null;

/** Where PostGraphile's process spent its time (the whole run, both reads), like ours per run. */
function summarisePeerProfile(dir: string): void {
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".cpuprofile"))) {
    const profile = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as Profile;
    const top = selfTimeByOrigin(profile).slice(0, 8);
    log(`  PostGraphile profile ${path.relative(process.cwd(), path.join(dir, file))}: ${top.map(([origin, share]) => `${origin} ${(share * 100).toFixed(0)}%`).join(", ")}`);
    log(`    hottest functions: ${selfTimeByFunction(profile, 8).map(([name, share]) => `${name} ${(share * 100).toFixed(1)}%`).join(", ")}`);
  }
}

async function startPostGraphile(db: ProvisionedDatabase): Promise<Peer> {
  const child = fork(path.join(PEERS_DIR, "postgraphile-server.mjs"), [], {
    cwd: PEERS_DIR,
    // Its own graphql-js without development checks, as ours runs (npm run bench:peers sets NODE_ENV too).
    env: { ...process.env, NODE_ENV: "production", PEER_DATABASE_URL: db.url, PEER_POOL_SIZE: String(POOL_SIZE.postgres) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    // With BENCH_CPU_PROFILE, Node's own profiler covers its whole life (warm-ups included), written when it exits.
    execArgv: peerProfileDir ? ["--cpu-prof", `--cpu-prof-dir=${peerProfileDir}`] : [],
  });
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
        child.once("exit", () => {
          clearTimeout(timer);
          if (peerProfileDir) summarisePeerProfile(peerProfileDir);
          resolve();
        });
        child.send("close");
      }),
  );
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("PostGraphile did not start within 60 s")), 60_000);
    child.once("message", (message: { port: number }) => {
      clearTimeout(timer);
      resolve(message.port);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`PostGraphile exited with ${code} before listening`));
    });
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

// ------------------------------------------------------------------------------------------------ seeding

interface Merchant {
  id: string;
  apiKey: string;
}

/**
 * `settings.orders` test-mode orders per merchant plus a fifth as many live ones, in SQL, over the last 90 days,
 * each with 1–3 items; statuses as a real mix (confirmed, canceled, failed with its code, pending). The orders are
 * visible (send_state accepted/rejected) as every order the service finished sending.
 */
async function seed(admin: pg.Pool, merchants: Merchant[]): Promise<void> {
  const now = new Date();
  for (const merchant of merchants) {
    for (const [mode, count] of [["test", settings.orders], ["live", Math.ceil(settings.orders / 5)]] as const) {
      await admin.query(
        `WITH shaped AS MATERIALIZED (
           SELECT gen_random_uuid() AS id, n,
             $3::timestamptz - (n::float8 / $2 * 90 * interval '1 day') - (random() * interval '1 second') AS created_at,
             CASE WHEN n % 10 < 5 THEN 'confirmed' WHEN n % 10 < 6 THEN 'canceled' WHEN n % 10 < 7 THEN 'failed'
                  ELSE 'pending' END AS status,
             1 + (n * 7) % 3 AS item_count
           FROM generate_series(1, $2::int) n
         ), new_orders AS (
           INSERT INTO orders (id, merchant_id, mode, external_order_id, customer_name, customer_phone, customer_address,
             subtotal, shipping_cost, total_cost, currency, language, status, customer_action, delivery_status, error_code,
             failure_reason, send_state, created_at, updated_at)
           SELECT id, $1::uuid, $4::"KeyMode", 'ORD-' || $4 || '-' || n, 'Customer ' || n, '9665' || lpad(n::text, 8, '0'),
             CASE WHEN n % 3 = 0 THEN NULL ELSE n || ' King Fahd Road, Riyadh' END,
             item_count * 49.5, 15, item_count * 49.5 + 15, 'SAR', 'en', status::"OrderStatus",
             CASE status WHEN 'confirmed' THEN 'approved' WHEN 'canceled' THEN 'canceled' END::"CustomerAction",
             CASE WHEN status = 'failed' THEN 'failed' ELSE 'read' END::"DeliveryStatus",
             CASE WHEN status = 'failed' THEN 131026 END, CASE WHEN status = 'failed' THEN 'Message undeliverable' END,
             CASE WHEN status = 'failed' THEN 'rejected' ELSE 'accepted' END::"SendState", created_at, created_at
           FROM shaped
         )
         INSERT INTO order_items (id, order_id, position, product_name, variant_name, quantity, unit_price, total_price)
         SELECT gen_random_uuid(), s.id, p, 'Product ' || (s.n + p) % 40, CASE WHEN p % 2 = 0 THEN 'Size M' END, 1, 49.5, 49.5
         FROM shaped s, generate_series(0, s.item_count - 1) p`,
        [merchant.id, count, now, mode],
      );
    }
  }
  await admin.query("ANALYZE orders; ANALYZE order_items");
}

/** What the answers must hold, read independently of both servers: per merchant its newest page, and some orders by id. */
async function expectations(admin: pg.Pool, merchants: Merchant[]): Promise<Record<Section, PeerTarget[]>> {
  const list: PeerTarget[] = [];
  const order: PeerTarget[] = [];
  for (const merchant of merchants) {
    const { rows } = await admin.query<{ id: string; items: number }>(
      `SELECT o.id, (SELECT count(*)::int FROM order_items i WHERE i.order_id = o.id) AS items
       FROM orders o WHERE o.merchant_id = $1 AND o.mode = 'test' AND o.send_state <> 'sending'
       ORDER BY o.created_at DESC, o.id DESC LIMIT $2`,
      [merchant.id, PAGE_SIZE],
    );
    list.push({ apiKey: merchant.apiKey, merchantId: merchant.id, ids: rows.map((row) => row.id), items: rows.map((row) => row.items) });
    const { rows: sample } = await admin.query<{ id: string; items: number }>(
      `SELECT o.id, (SELECT count(*)::int FROM order_items i WHERE i.order_id = o.id) AS items
       FROM orders o WHERE o.merchant_id = $1 AND o.mode = 'test' ORDER BY random() LIMIT 100`,
      [merchant.id],
    );
    for (const row of sample) order.push({ apiKey: merchant.apiKey, merchantId: merchant.id, orderId: row.id, ids: [row.id], items: [row.items] });
  }
  // Interleave the merchants, so consecutive requests belong to different ones.
  order.sort((a, b) => (a.orderId! < b.orderId! ? -1 : 1));
  return { order, list };
}

/** One request of each kind before measuring, so a wrong answer is reported plainly rather than as a count. */
async function checkOnce(scenario: PeerScenario, url: string, target: PeerTarget): Promise<void> {
  const headers = { "x-api-key": target.apiKey, "content-type": "application/json" };
  const graphql = (query: string, variables: object) =>
    fetch(`${url}/graphql`, { method: "POST", headers, body: JSON.stringify({ query, variables }) });
  const response = await {
    "ours-rest-order": () => fetch(`${url}/api/v1/orders/${target.orderId}`, { headers: { "x-api-key": target.apiKey } }),
    "ours-rest-list": () => fetch(`${url}/api/v1/orders?limit=${PAGE_SIZE}`, { headers: { "x-api-key": target.apiKey } }),
    "ours-graphql-order": () => graphql(QUERIES.oursOrder, { id: target.orderId }),
    "ours-graphql-list": () => graphql(QUERIES.oursList, { first: PAGE_SIZE }),
    "postgraphile-order": () => graphql(QUERIES.peerOrder, { id: target.orderId }),
    "postgraphile-list": () => graphql(QUERIES.peerList, { first: PAGE_SIZE, merchantId: target.merchantId }),
  }[scenario]();
  const body = await response.text();
  if (response.status !== 200 || !answerMatches(scenario, body, target)) {
    throw new Error(`${scenario}: unexpected answer ${response.status} ${body.slice(0, 600)}`);
  }
}

// ------------------------------------------------------------------------------------------------ measuring

interface Row {
  section: Section;
  target: string;
  rps: number;
  p50: number;
  p99: number;
  failed: number;
  /** Against PostGraphile, the section's last row. */
  rpsRatio?: number;
  p99Ratio?: number;
}

async function measureSection(
  worker: LoadWorker,
  section: Section,
  service: BenchService,
  peer: Peer,
  targets: PeerTarget[],
): Promise<Row[]> {
  const list = SECTION_TARGETS[section];
  for (const { scenario } of list) await checkOnce(scenario, scenario.startsWith("ours-") ? service.url : peer.url, targets[0]);
  const results = new Map<string, { runs: LoadResult[]; stuck: number }>(list.map((t) => [t.name, { runs: [], stuck: 0 }]));
  for (let round = 1; round <= settings.rounds; round++) {
    // Rotate which goes first, so none always runs on the warmest (or the most tired) machine.
    const shift = (round - 1) % list.length;
    const order = [...list.slice(shift), ...list.slice(0, shift)];
    for (const target of order) {
      const ours = target.scenario.startsWith("ours-");
      const spec = (seconds: number) => ({
        url: ours ? service.url : peer.url,
        scenario: target.scenario,
        apiKey: targets[0].apiKey,
        ids: [],
        targets,
        connections: settings.connections,
        seconds,
        tag: `${target.scenario}-${round}`,
      });
      const entry = results.get(target.name)!;
      const settle = async (label: string) => (ours ? drain(label, service.inFlight) : 0);
      if (settings.warmup > 0) {
        const warm = await worker.run(spec(settings.warmup));
        entry.stuck += await settle(`${target.name} (warm-up)`);
        if (warm.ok === 0) throw new Error(`${target.name} answered nothing right during warm-up: ${JSON.stringify(warm.statusCodes)}`);
      }
      const file = ours && settings.profileDir ? path.join(settings.profileDir, `${target.scenario}-r${round}.cpuprofile`) : null;
      const result = await profiled(file, () => worker.run(spec(settings.duration)), 8);
      entry.stuck += await settle(target.name);
      entry.runs.push(result);
      const problems = result.non2xx + result.errors + result.mismatches;
      log(
        `  round ${round} ${target.name.padEnd(36)} ${fmt(result.rps, 0).padStart(6)} req/s  p50 ${fmt(result.p50)} ms  p99 ${fmt(result.p99)} ms` +
          (problems ? `  !! non-2xx ${result.non2xx} ${JSON.stringify(result.statusCodes)}, errors ${result.errors}, mismatches ${result.mismatches}` : ""),
      );
    }
  }
  const rows = list.map(({ name }): Row => {
    const { runs, stuck } = results.get(name)!;
    return {
      section,
      target: name,
      rps: median(runs.map((run) => run.rps)),
      p50: median(runs.map((run) => run.p50)),
      p99: median(runs.map((run) => run.p99)),
      failed: runs.reduce((sum, run) => sum + run.non2xx + run.errors + run.mismatches, 0) + stuck,
    };
  });
  const reference = rows.at(-1)!;
  for (const row of rows.slice(0, -1)) {
    row.rpsRatio = row.rps / reference.rps;
    row.p99Ratio = row.p99 / reference.p99;
  }
  return rows;
}

function table(rows: Row[]): string {
  const header = ["read", "server", "req/s", "p50 ms", "p99 ms", "failed", "req/s vs PostGraphile", "p99 vs PostGraphile"];
  const cells = rows.map((row) => [
    SECTION_LABEL[row.section],
    row.target,
    fmt(row.rps, 0),
    fmt(row.p50),
    fmt(row.p99),
    String(row.failed),
    row.rpsRatio === undefined ? "" : `${fmt(row.rpsRatio)}×`,
    row.p99Ratio === undefined ? "" : `${fmt(row.p99Ratio)}×`,
  ]);
  return markdownTable(header, cells, new Set([2, 3, 4, 5, 6, 7]));
}

// ------------------------------------------------------------------------------------------------- main

async function main(): Promise<void> {
  log(
    `Peer benchmark: ${settings.connections} connections, ${settings.warmup} s warm-up + ${settings.duration} s measured per run, ` +
      `${settings.rounds} round(s) per target; ${os.cpus().length} CPU(s), Node ${process.version}`,
  );
  if (process.env.NODE_ENV !== "production") {
    log("NODE_ENV is not production (npm run bench:peers sets it): graphql-js runs its development checks.");
  }
  if (settings.profileDir) mkdirSync(settings.profileDir, { recursive: true });
  ensurePeersInstalled();
  const worker = new LoadWorker();
  cleanups.push(() => worker.close());
  const rows: Row[] = [];
  let label = "";
  try {
    const db = await provision("postgres");
    if (!db) throw new Error("bench:peers needs PostgreSQL (PostGraphile does not run on PGlite): set BENCH_PG_URL.");
    label = db.label;
    log(`\n${db.label}`);
    const mark = cleanups.length;
    cleanups.push(() => db.drop());
    const service = await startBenchService(db);
    const merchants: Merchant[] = [];
    for (let index = 0; index < settings.merchants; index++) {
      const { merchant, keys } = await service.app.services.merchantService.createMerchant(`Peer Shop ${index + 1}`);
      merchants.push({ id: merchant.id, apiKey: keys.test });
    }
    const admin = new pg.Pool({ connectionString: db.url, max: 2 });
    cleanups.push(() => admin.end());
    log(`  seeding ${settings.merchants} merchants × (${settings.orders} test + ${Math.ceil(settings.orders / 5)} live) orders, 1–3 items each…`);
    await seed(admin, merchants);
    const expected = await expectations(admin, merchants);
    // After seeding: PostGraphile introspects the schema once, at start (no watch).
    const peer = await startPostGraphile(db);
    log(`  PostGraphile 4.14 at ${peer.url} (pid ${peer.child.pid}), pool ${POOL_SIZE.postgres}; ours at ${service.url}, pool ${POOL_SIZE.postgres}`);
    for (const section of settings.sections) {
      log(`\n  ${SECTION_LABEL[section]}`);
      rows.push(...(await measureSection(worker, section, service, peer, expected[section])));
    }
    while (cleanups.length > mark) await cleanUp(cleanups.pop()!);
  } finally {
    await runCleanups();
  }
  process.stdout.write(
    [
      "",
      `Median of ${settings.rounds} run(s) of ${settings.duration} s per target, ${settings.connections} connections, loopback, ` +
        `pool ${POOL_SIZE.postgres} each; ours NODE_ENV=production. "vs PostGraphile" = ours ÷ PostGraphile ` +
        `(req/s: higher is better, goal ≥ 1.00×; p99: lower is better, goal ≤ 1.00×).`,
      `  ${label}; ${settings.merchants} merchants × ${settings.orders} test orders (+ ${Math.ceil(settings.orders / 5)} live), 1–3 items each`,
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
