/**
 * The CSV export's memory (SPEC §15, GET /api/v1/orders/export): 100,000 orders streamed through the real service
 * (API key, filters, keyset batches, the HTTP response), with the service's memory sampled every 10 ms while the
 * client reads the file. Baseline in the same run: the same merchant's export of its newest 1,000 orders (a date
 * range). Constant memory means the 100,000-row export's peak is about the 1,000-row one's, not 100 times it. Every
 * answer is checked: the BOM and header, every row, newest first, the row count against SQL.
 *
 *   npm run bench:export
 *   BENCH_EXPORT_ORDERS=20000 BENCH_DATABASES=pglite npm run bench:export   # quick check
 */
import pg from "pg";
import { seedMerchant } from "./stats-seed.ts";
import { cleanUp, listEnv, log, numberEnv, provision, runCleanups, startBenchService, type DatabaseKind } from "./harness.ts";

const databases = listEnv<DatabaseKind>("BENCH_DATABASES", ["postgres", "pglite"]);
const ORDERS = numberEnv("BENCH_EXPORT_ORDERS", 100_000);
const SAMPLE_MS = 10;

interface Measured {
  rows: number;
  bytes: number;
  seconds: number;
  /** Peak growth over the memory before the request, MiB (heap: garbage included, as sampled). */
  heapPeak: number;
  rssPeak: number;
  /** Peak growth of the heap right after a full collection (every 200 ms): what the export keeps alive, MiB. */
  retainedPeak: number;
}

const mib = (bytes: number) => bytes / (1024 * 1024);
const settle = async () => {
  for (let i = 0; i < 3; i++) {
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/** Downloads the export and counts its rows as they arrive (nothing kept), sampling this process's memory. */
async function download(url: string, key: string, expectedRows: number): Promise<Measured> {
  await settle();
  const before = process.memoryUsage();
  let heapPeak = 0;
  let rssPeak = 0;
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    heapPeak = Math.max(heapPeak, now.heapUsed - before.heapUsed);
    rssPeak = Math.max(rssPeak, now.rss - before.rss);
  }, SAMPLE_MS);
  // A full collection every 200 ms, then the heap: garbage does not count, only what the export holds on to.
  let retainedPeak = 0;
  const gc = (globalThis as { gc?: () => void }).gc;
  const collector = setInterval(() => {
    if (!gc) return;
    gc();
    retainedPeak = Math.max(retainedPeak, process.memoryUsage().heapUsed - before.heapUsed);
  }, 200);
  const started = performance.now();
  try {
    const response = await fetch(url, { headers: { "x-api-key": key } });
    if (response.status !== 200) throw new Error(`export answered ${response.status}: ${await response.text()}`);
    const decoder = new TextDecoder();
    let carry = "";
    let lines = 0;
    let bytes = 0;
    let previous = "9999";
    let first = true;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      if (first) {
        if (chunk[0] !== 0xef || chunk[1] !== 0xbb || chunk[2] !== 0xbf) throw new Error("no UTF-8 BOM");
        first = false;
      }
      const text = carry + decoder.decode(chunk, { stream: true });
      const parts = text.split("\r\n");
      carry = parts.pop()!;
      for (const line of parts) {
        lines++;
        if (lines === 1) {
          if (!line.endsWith("createdAt,updatedAt,answeredAt,answeredVia")) throw new Error(`header: ${line}`);
          continue;
        }
        // The seeded names and addresses hold no comma or quote: createdAt is the 13th cell.
        const createdAt = line.split(",")[12];
        if (!(createdAt <= previous)) throw new Error(`row ${lines - 1} is not newest first`);
        previous = createdAt;
      }
    }
    if (carry !== "") throw new Error("the file does not end with CRLF");
    const rows = lines - 1;
    if (rows !== expectedRows) throw new Error(`${rows} rows, expected ${expectedRows}`);
    return { rows, bytes, seconds: (performance.now() - started) / 1000, heapPeak: mib(heapPeak), rssPeak: mib(rssPeak), retainedPeak: mib(retainedPeak) };
  } finally {
    clearInterval(sampler);
    clearInterval(collector);
  }
}

async function main(): Promise<void> {
  if (!(globalThis as { gc?: unknown }).gc) log("(run with --expose-gc, as npm run bench:export does, for steadier figures)");
  const lines = [
    "| database | export | rows | MiB | seconds | heap peak +MiB | retained after GC +MiB | RSS peak +MiB |",
    "|---|---|---|---|---|---|---|---|",
  ];
  let failed = false;
  for (const kind of databases) {
    const db = await provision(kind);
    if (!db) continue;
    log(`\n${db.label}`);
    const admin = new pg.Pool({ connectionString: db.url, max: 2 });
    admin.on("error", () => undefined);
    try {
      const service = await startBenchService(db);
      const shop = await service.app.services.merchantService.createMerchant("Export Shop");
      const now = new Date();
      log(`  seeding ${ORDERS} orders …`);
      await seedMerchant(admin, shop.merchant.id, ORDERS, now, 365, false, false);
      await admin.query("VACUUM ANALYZE orders");
      // The newest 1,000 orders: the baseline's date range starts at the 1,000th newest order.
      const { rows } = await admin.query<{ created_at: Date }>(
        "SELECT created_at FROM orders WHERE merchant_id = $1 AND send_state <> 'sending' ORDER BY created_at DESC, id DESC OFFSET 999 LIMIT 1",
        [shop.merchant.id],
      );
      const from = rows[0].created_at.toISOString();
      const [{ count: smallCount }] = (
        await admin.query<{ count: number }>("SELECT count(*)::int AS count FROM orders WHERE merchant_id = $1 AND send_state <> 'sending' AND created_at >= $2", [shop.merchant.id, from])
      ).rows;
      const [{ count: allCount }] = (
        await admin.query<{ count: number }>("SELECT count(*)::int AS count FROM orders WHERE merchant_id = $1 AND send_state <> 'sending'", [shop.merchant.id])
      ).rows;
      const base = `${service.url}/api/v1/orders/export`;
      // Warm-up (plans, JIT), then each export three times, small and large alternating; the largest peak counts.
      await download(`${base}?createdFrom=${encodeURIComponent(from)}`, shop.keys.test, smallCount);
      const runs: Record<"small" | "large", Measured[]> = { small: [], large: [] };
      for (let round = 0; round < 3; round++) {
        runs.small.push(await download(`${base}?createdFrom=${encodeURIComponent(from)}`, shop.keys.test, smallCount));
        runs.large.push(await download(base, shop.keys.test, allCount));
      }
      for (const [label, measured] of [[`newest ${smallCount} (baseline)`, runs.small], [`all ${allCount}`, runs.large]] as const) {
        const worst = (pick: (m: Measured) => number) => Math.max(...measured.map(pick));
        const row = measured[0];
        lines.push(
          `| ${kind} | ${label} | ${row.rows} | ${mib(row.bytes).toFixed(1)} | ${(measured.reduce((sum, m) => sum + m.seconds, 0) / measured.length).toFixed(2)} | ${worst((m) => m.heapPeak).toFixed(1)} | ${worst((m) => m.retainedPeak).toFixed(1)} | ${worst((m) => m.rssPeak).toFixed(1)} |`,
        );
      }
      const ratio = Math.max(...runs.large.map((m) => m.heapPeak)) / Math.max(1, ...runs.small.map((m) => m.heapPeak));
      log(`  heap peak ratio (all ÷ newest 1,000, floor 1 MiB): ${ratio.toFixed(2)}×`);
    } catch (error) {
      failed = true;
      log(`  FAILED: ${(error as Error).stack}`);
    } finally {
      await admin.end();
      await runCleanups();
      await cleanUp(() => db.drop());
    }
  }
  console.log(["", ...lines, ""].join("\n"));
  if (failed) process.exitCode = 1;
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => runCleanups());
