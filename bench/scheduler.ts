/**
 * Confirmation-policy scheduler benchmark (SPEC §9): how fast the real scheduler works a backlog of due
 * reminders (one and two instances), how many statements it spends per reminder, whether pacing holds, and what
 * an idle round costs with a million pending orders. Baselines are measured in the same run. See bench/README.md.
 *
 *   npm run bench:scheduler
 *   BENCH_PENDING=10000 BENCH_DUE=1000 BENCH_IDLE_PENDING=100000 npm run bench:scheduler   # quick check
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import pg from "pg";
import pino from "pino";
import { OrderExpiryRepository } from "../src/domain/confirmation/order-expiry.repository.ts";
import { OrderTaskRepository } from "../src/domain/confirmation/order-task.repository.ts";
import { OrderEventBus } from "../src/domain/orders/order-events.bus.ts";
import { createMetrics } from "../src/metrics.ts";
import { WhatsAppCloudProvider } from "../src/providers/whatsapp/whatsapp-cloud.provider.ts";
import { ConfirmationScheduler } from "../src/workers/confirmation-scheduler.ts";
import { cleanUp, listEnv, log, numberEnv, POOL_SIZE, provision, runCleanups, type DatabaseKind, type ProvisionedDatabase } from "./harness.ts";

const databases = listEnv<DatabaseKind>("BENCH_DATABASES", ["postgres", "pglite"]);
const sizes = (kind: DatabaseKind) =>
  kind === "postgres"
    ? {
        pending: numberEnv("BENCH_PENDING", 100_000),
        due: numberEnv("BENCH_DUE", 10_000),
        idlePending: numberEnv("BENCH_IDLE_PENDING", 1_000_000),
      }
    : {
        pending: numberEnv("BENCH_PGLITE_PENDING", 10_000),
        due: numberEnv("BENCH_PGLITE_DUE", 1_000),
        idlePending: numberEnv("BENCH_PGLITE_IDLE_PENDING", 100_000),
      };
const PACING_DUE = numberEnv("BENCH_PACING_DUE", 800);
const PACING_RATE = 80;
/** The throughput runs measure the scheduler, not the pacing: the rate is set far above what it reaches. */
const UNPACED_RATE = 100_000;
const CONCURRENCY = 16;
const IDLE_ROUNDS = numberEnv("BENCH_IDLE_ROUNDS", 200);

// ------------------------------------------------------------------------------------ fake Cloud API

/** Meta's send endpoint at its fastest: answers a wamid, counts each (order, reminder) it was asked for. */
class FakeGraph {
  readonly sends = new Map<string, number>();
  readonly times: number[] = [];
  private waiters: { count: number; resolve: () => void }[] = [];
  private readonly server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const key = String(body.biz_opaque_callback_data);
      this.sends.set(key, (this.sends.get(key) ?? 0) + 1);
      this.times.push(performance.now());
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ messaging_product: "whatsapp", contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id: `wamid.${randomBytes(12).toString("hex")}` }] }));
      this.waiters = this.waiters.filter((waiter) => (this.sends.size >= waiter.count ? (waiter.resolve(), false) : true));
    });
  });

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v26.0`;
  }

  until(count: number, timeoutMs: number): Promise<void> {
    if (this.sends.size >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${this.sends.size} of ${count} reminders within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  reset(): void {
    this.sends.clear();
    this.times.length = 0;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

// ------------------------------------------------------------------------------------------ statements

/** A pool that counts the statements sent through it (pool.query and clients taken with connect()). */
function countingPool(url: string, size: number): { pool: pg.Pool; count: () => number } {
  let statements = 0;
  const pool = new pg.Pool({ connectionString: url, max: size });
  pool.on("error", () => undefined);
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: unknown }).query = (...args: unknown[]) => (statements++, query(...args));
  pool.on("connect", (client) => {
    const clientQuery = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: unknown }).query = (...args: unknown[]) => (statements++, clientQuery(...args));
  });
  return { pool, count: () => statements };
}

// ----------------------------------------------------------------------------------------------- seed

async function seed(admin: pg.Pool, merchantId: string, pending: number, due: number): Promise<void> {
  await admin.query("TRUNCATE order_tasks, order_timeline, order_items, order_events, orders, send_throttles CASCADE");
  await admin.query(
    `INSERT INTO merchants (id, name, created_at, updated_at) VALUES ($1, 'Bench Shop', now(), now()) ON CONFLICT DO NOTHING`,
    [merchantId],
  );
  const chunk = 100_000;
  for (let from = 1; from <= pending; from += chunk) {
    const to = Math.min(pending, from + chunk - 1);
    await admin.query(
      `WITH new_orders AS (
         INSERT INTO orders (id, merchant_id, mode, external_order_id, customer_name, customer_phone, subtotal,
           shipping_cost, total_cost, currency, language, status, send_state, created_at, updated_at, provider_message_id)
         SELECT gen_random_uuid(), $1, 'live', 'B-' || g, 'Customer ' || g, '9665' || lpad(g::text, 8, '0'), 10, 0, 10,
           'SAR', 'en', 'pending', 'accepted', now(), now(), 'wamid.seed.' || g
         FROM generate_series($2::int, $3::int) g
         RETURNING id, merchant_id, external_order_id
       ), items AS (
         INSERT INTO order_items (id, order_id, position, product_name, quantity, unit_price, total_price)
         SELECT gen_random_uuid(), id, 0, 'Tea', 1, 10, 10 FROM new_orders
       )
       INSERT INTO order_tasks (id, order_id, merchant_id, mode, kind, position, state, due_at, created_at)
       SELECT gen_random_uuid(), id, merchant_id, 'live', 'reminder', 1, 'scheduled',
         CASE WHEN substr(external_order_id, 3)::int <= $4 THEN now() - interval '1 minute' ELSE now() + interval '1 day' END, now()
       FROM new_orders`,
      [merchantId, from, to, due],
    );
  }
  // A steady state, as a long-running database is: visibility map set, statistics current.
  await admin.query("VACUUM (ANALYZE) orders");
  await admin.query("VACUUM (ANALYZE) order_tasks");
}

// ---------------------------------------------------------------------------------------- scenarios

interface Drain {
  ms: number;
  perSecond: number;
  statements: number;
  sent: number;
  duplicates: number;
}

function scheduler(url: string, kind: DatabaseKind, apiUrl: string, rate: number) {
  const counted = countingPool(url, POOL_SIZE[kind]);
  const provider = new WhatsAppCloudProvider({
    apiUrl,
    phoneNumberId: "271828182845904",
    accessToken: "bench",
    templateName: "order_confirmation",
    reminderTemplateName: "order_confirmation_reminder",
    timeoutMs: 10_000,
  });
  const instance = new ConfirmationScheduler(
    {
      tasks: new OrderTaskRepository(counted.pool),
      expiries: new OrderExpiryRepository(counted.pool),
      providers: { forMode: () => provider },
      bus: new OrderEventBus(),
      logger: pino({ level: "silent" }),
      metrics: createMetrics(),
    },
    { maxSendsPerSecond: rate, sendTimeoutMs: 33_000, concurrency: CONCURRENCY },
  );
  return { instance, statements: counted.count, close: () => counted.pool.end() };
}

async function drainWithScheduler(db: ProvisionedDatabase, fake: FakeGraph, apiUrl: string, due: number, instances: number, rate: number): Promise<Drain> {
  fake.reset();
  const workers = Array.from({ length: instances }, () => scheduler(db.url, db.kind, apiUrl, rate));
  const started = performance.now();
  for (const worker of workers) worker.instance.start();
  await fake.until(due, 15 * 60_000);
  const ms = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 300));
  for (const worker of workers) await worker.instance.stop();
  const statements = workers.reduce((sum, worker) => sum + worker.statements(), 0);
  for (const worker of workers) await worker.close();
  return { ms, perSecond: (due / ms) * 1000, statements, sent: fake.sends.size, duplicates: [...fake.sends.values()].filter((n) => n > 1).length };
}

/**
 * The floor: one statement claims (and marks) a batch of due reminders with what the message needs, one POST per
 * reminder, one statement records each wamid. No lease, no send decision under the order's lock, no pacing.
 */
async function drainWithBaseline(db: ProvisionedDatabase, fake: FakeGraph, apiUrl: string, due: number): Promise<Drain> {
  fake.reset();
  const counted = countingPool(db.url, POOL_SIZE[db.kind]);
  const started = performance.now();
  for (;;) {
    const { rows } = await counted.pool.query<{ id: string; order_id: string; customer_phone: string; customer_name: string }>(
      `WITH due AS (
         SELECT id FROM order_tasks WHERE state = 'scheduled' AND due_at <= now() AND kind = 'reminder'
         ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE order_tasks t SET state = 'sending' FROM due WHERE t.id = due.id RETURNING t.id, t.order_id
       )
       SELECT claimed.id, claimed.order_id, o.customer_phone, o.customer_name FROM claimed JOIN orders o ON o.id = claimed.order_id`,
      [CONCURRENCY],
    );
    if (rows.length === 0) break;
    await Promise.all(
      rows.map(async (row) => {
        const response = await fetch(`${apiUrl}/271828182845904/messages`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: "Bearer bench" },
          body: JSON.stringify({ messaging_product: "whatsapp", to: `+${row.customer_phone}`, type: "template", biz_opaque_callback_data: `order=${row.order_id};reminder=1`, template: { name: "order_confirmation_reminder", language: { code: "en" }, components: [{ type: "body", parameters: [{ type: "text", text: row.customer_name }] }] } }),
        });
        const body = (await response.json()) as { messages: { id: string }[] };
        await counted.pool.query(`UPDATE order_tasks SET state = 'sent', provider_message_id = $2 WHERE id = $1`, [row.id, body.messages[0].id]);
      }),
    );
  }
  const ms = performance.now() - started;
  const statements = counted.count();
  await counted.pool.end();
  return { ms, perSecond: (due / ms) * 1000, statements, sent: fake.sends.size, duplicates: [...fake.sends.values()].filter((n) => n > 1).length };
}

/** One idle scheduler round's statements (what `work()` runs when nothing is due), timed `rounds` times. */
async function idleRound(db: ProvisionedDatabase, rounds: number): Promise<{ p50: number; p99: number; plan: string }> {
  const counted = countingPool(db.url, 2);
  const tasks = new OrderTaskRepository(counted.pool);
  const expiries = new OrderExpiryRepository(counted.pool);
  const times: number[] = [];
  for (let round = 0; round < rounds + 10; round++) {
    const started = performance.now();
    const now = new Date();
    await tasks.recoverLeases(now);
    await expiries.expireDue(now, 200);
    await tasks.claimDueReminders(now, 16, 10);
    await tasks.nextDueAt();
    if (round >= 10) times.push(performance.now() - started);
  }
  const { rows } = await counted.pool.query<{ "QUERY PLAN": string }>(
    `EXPLAIN SELECT id FROM order_tasks WHERE state = 'scheduled' AND due_at <= now() AND kind = 'reminder' ORDER BY due_at LIMIT 8 FOR UPDATE SKIP LOCKED`,
  );
  await counted.pool.end();
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  return { p50: at(0.5), p99: at(0.99), plan: rows.map((row) => row["QUERY PLAN"]).join(" / ") };
}

async function verifyAllSent(db: ProvisionedDatabase, due: number): Promise<void> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const { rows } = await client.query<{ state: string; count: number }>(
    `SELECT state, count(*)::int AS count FROM order_tasks WHERE due_at <= now() GROUP BY state`,
  );
  await client.end();
  const sent = rows.find((row) => row.state === "sent")?.count ?? 0;
  if (sent !== due || rows.length !== 1) throw new Error(`expected ${due} due reminders sent, found ${JSON.stringify(rows)}`);
}

// ---------------------------------------------------------------------------------------------- main

const fmt = (value: number, digits = 0) => value.toFixed(digits);

async function main(): Promise<void> {
  log(`node ${process.version}, ${os.cpus().length} cores; concurrency ${CONCURRENCY} sends per instance`);
  const fake = new FakeGraph();
  const apiUrl = await fake.listen();
  const lines: string[] = [];
  const row = (...cells: (string | number)[]) => lines.push(`| ${cells.join(" | ")} |`);
  lines.push("| database | scenario | pending | due | time s | reminders/s | statements/reminder | vs baseline | duplicates |");
  lines.push("|---|---|---|---|---|---|---|---|---|");
  const idleLines: string[] = ["| database | pending orders | idle round p50 ms | p99 ms | empty schedule p50 / p99 ms | p99 ratio |", "|---|---|---|---|---|---|"];
  const notes: string[] = [];

  for (const kind of databases) {
    const db = await provision(kind);
    if (!db) continue;
    log(`\n${db.label}`);
    const admin = new pg.Pool({ connectionString: db.url, max: 2 });
    admin.on("error", () => undefined);
    const merchantId = "0b7f6a9e-1f7c-4b8e-9a51-3f0f7a2d1c11";
    const { pending, due, idlePending } = sizes(kind);
    try {
      const runs: [string, () => Promise<Drain>][] = [
        ["bare worker (baseline)", () => drainWithBaseline(db, fake, apiUrl, due)],
        ["scheduler, 1 instance", () => drainWithScheduler(db, fake, apiUrl, due, 1, UNPACED_RATE)],
        ["scheduler, 2 instances", () => drainWithScheduler(db, fake, apiUrl, due, 2, UNPACED_RATE)],
      ];
      let baseline: Drain | null = null;
      for (const [name, run] of runs) {
        log(`  seeding ${pending} pending orders, ${due} due …`);
        await seed(admin, merchantId, pending, due);
        log(`  ${name} …`);
        const result = await run();
        await verifyAllSent(db, due);
        if (result.sent !== due || result.duplicates) throw new Error(`${name}: ${result.sent} sent, ${result.duplicates} duplicates`);
        baseline ??= result;
        row(kind, name, pending, due, fmt(result.ms / 1000, 1), fmt(result.perSecond), fmt(result.statements / due, 2), result === baseline ? "" : `${fmt(result.perSecond / baseline.perSecond, 2)}×`, result.duplicates);
      }

      log(`  pacing: ${PACING_DUE} due at ${PACING_RATE}/s …`);
      await seed(admin, merchantId, PACING_DUE, PACING_DUE);
      const paced = await drainWithScheduler(db, fake, apiUrl, PACING_DUE, 2, PACING_RATE);
      await verifyAllSent(db, PACING_DUE);
      // The busiest second of the run, sliding over the send times.
      const times = [...fake.times].sort((a, b) => a - b);
      let busiest = 0;
      for (let i = 0, j = 0; i < times.length; i++) {
        while (times[i] - times[j] >= 1000) j++;
        busiest = Math.max(busiest, i - j + 1);
      }
      row(kind, `paced at ${PACING_RATE}/s, 2 instances`, PACING_DUE, PACING_DUE, fmt(paced.ms / 1000, 1), fmt(paced.perSecond, 1), fmt(paced.statements / PACING_DUE, 2), "", paced.duplicates);
      notes.push(
        `${kind}: paced drain ${fmt(paced.perSecond, 1)} reminders/s overall; busiest 1 s window at the provider ${busiest} sends ` +
          `(the shared bucket grants at most ${PACING_RATE} tokens in any second)`,
      );

      log("  idle round, empty schedule …");
      await admin.query("TRUNCATE order_tasks, order_timeline, order_items, order_events, orders, send_throttles CASCADE");
      const empty = await idleRound(db, IDLE_ROUNDS);
      log(`  seeding ${idlePending} pending orders, none due …`);
      await seed(admin, merchantId, idlePending, 0);
      const full = await idleRound(db, IDLE_ROUNDS);
      idleLines.push(`| ${kind} | ${idlePending} | ${fmt(full.p50, 2)} | ${fmt(full.p99, 2)} | ${fmt(empty.p50, 2)} / ${fmt(empty.p99, 2)} | ${fmt(full.p99 / empty.p99, 2)}× |`);
      notes.push(`${kind}: due-work plan with ${idlePending} pending: ${full.plan}`);
    } finally {
      await admin.end();
      await cleanUp(() => db.drop());
    }
  }
  await fake.close();
  console.log(["", ...lines, "", ...idleLines, "", ...notes.map((note) => `- ${note}`), ""].join("\n"));
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => runCleanups());
