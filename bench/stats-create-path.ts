/**
 * What keeping the order statistics costs the create path (issue 25), measured where it is paid: PostgreSQL's CPU
 * time per order for the create path's two statements (the claim INSERT_SENDING_SQL and the acceptance
 * MARK_ACCEPTED_SQL, as the service sends them), with the statistics (the acceptance's upsert of three bucket rows,
 * the triggers that skip both statements) and without them (the same statements with the statistics parts removed,
 * the statistics triggers disabled: the code before issue 25). CPU time of the writers' backends is read from
 * /proc, so the figure holds on a busy machine where wall-clock throughput does not. Blocks of each variant
 * alternate; medians are reported.
 *
 *   BENCH_PG_URL=postgresql://postgres@127.0.0.1:5432/postgres node --import tsx bench/stats-create-path.ts
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import pg from "pg";
import { INSERT_SENDING_SQL, MARK_ACCEPTED_SQL } from "../src/domain/orders/order.repository.ts";
import { log, numberEnv, provision } from "./harness.ts";

const WRITERS = numberEnv("BENCH_CONNECTIONS", 4);
const BLOCK = numberEnv("BENCH_BLOCK_ORDERS", 2000);
const ROUNDS = numberEnv("BENCH_ROUNDS", 6);

function without(sql: string, parts: string[]): string {
  let text = sql;
  for (const part of parts) {
    if (!text.includes(part)) throw new Error(`the statement no longer contains: ${part.slice(0, 80)}`);
    text = text.replace(part, "");
  }
  return text;
}

const STATS_FLAG = ", set_config('ocs.order_stats', 'kept', true) AS stats";
const insertWithout = without(INSERT_SENDING_SQL, [STATS_FLAG, " AND flag.stats = 'kept'"]);
const statsCte = MARK_ACCEPTED_SQL.slice(MARK_ACCEPTED_SQL.indexOf("  ), stats AS ("), MARK_ACCEPTED_SQL.indexOf("  )\n  SELECT accepted.merchant_id"));
const acceptWithout = without(MARK_ACCEPTED_SQL, [statsCte]);

const cpuTicks = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return Number(fields[11]) + Number(fields[12]); // utime + stime, in clock ticks (1/100 s)
};

async function main() {
  const db = await provision("postgres");
  if (!db) return;
  const pool = new pg.Pool({ connectionString: db.url, max: WRITERS + 1 });
  try {
    const { rows: [merchant] } = await pool.query<{ id: string }>(
      "INSERT INTO merchants (id, name, created_at, updated_at) VALUES ($1, 'Create path', now(), now()) RETURNING id", [randomUUID()],
    );
    const clients = await Promise.all(Array.from({ length: WRITERS }, () => pool.connect()));
    const pids = await Promise.all(clients.map(async (client) => (await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid as number));
    for (const client of clients) await client.query("SET synchronous_commit = off");
    let n = 0;
    const create = async (client: pg.PoolClient, withStats: boolean) => {
      const id = randomUUID();
      const now = new Date();
      n++;
      await client.query({ name: withStats ? "ins_with" : "ins_without", text: withStats ? INSERT_SENDING_SQL : insertWithout, values: [
        id, merchant.id, "test", `CP-${n}-${id.slice(0, 8)}`, "Layla", "966500000000", null, "10", "0", "10", "SAR", null, "en", now,
        [randomUUID()], [0], ["Coffee"], [null], ["1"], ["10"], ["10"],
      ] });
      const { rowCount } = await client.query({ name: withStats ? "acc_with" : "acc_without", text: withStats ? MARK_ACCEPTED_SQL : acceptWithout, values: [
        id, `wamid.${id}`, now, randomUUID(), JSON.stringify({ event: "order.created" }),
        ["created", "message_sent"], ["merchant", "provider"], [JSON.stringify({ via: "rest" }), null], [], [], [], [],
      ] });
      if (rowCount !== 1) throw new Error("not accepted");
    };
    const results: Record<"with" | "without", number[]> = { with: [], without: [] };
    for (let round = 0; round < ROUNDS + 1; round++) {
      for (const variant of round % 2 ? (["with", "without"] as const) : (["without", "with"] as const)) {
        const withStats = variant === "with";
        await pool.query(`ALTER TABLE orders ${withStats ? "ENABLE" : "DISABLE"} TRIGGER order_stats_insert,
          ${withStats ? "ENABLE" : "DISABLE"} TRIGGER order_stats_update`.replace(",\n          ", ", "));
        const before = pids.map(cpuTicks);
        await Promise.all(clients.map(async (client) => { for (let i = 0; i < BLOCK / WRITERS; i++) await create(client, withStats); }));
        const ticks = pids.map(cpuTicks).reduce((sum, t, i) => sum + t - before[i], 0);
        if (round > 0) results[variant].push((ticks * 10_000) / BLOCK); // µs per order (warm-up round dropped)
      }
    }
    await pool.query("ALTER TABLE orders ENABLE TRIGGER order_stats_insert, ENABLE TRIGGER order_stats_update");
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const [withStats, withoutStats] = [median(results.with), median(results.without)];
    log(`PostgreSQL CPU per order (the two statements, ${WRITERS} writers, ${ROUNDS} blocks of ${BLOCK} each, median):`);
    log(`  without statistics ${withoutStats.toFixed(0)} µs (${results.without.map((v) => v.toFixed(0)).join(", ")})`);
    log(`  with statistics    ${withStats.toFixed(0)} µs (${results.with.map((v) => v.toFixed(0)).join(", ")})`);
    log(`  ratio ${(withStats / withoutStats).toFixed(3)}×`);
    for (const client of clients) client.release();
  } finally {
    await pool.end();
    await db.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
