/**
 * Order statistics and order search benchmark (SPEC §10): Query.orderStats / GET /api/v1/stats/orders over 30 and
 * 365 days by DAY, in Asia/Riyadh (UTC+3) and Asia/Kolkata (UTC+5:30), and the order list with a prefix search (REST
 * and GraphQL), for a merchant with 1,000,000 orders among 100 other merchants' orders. Baselines in the same run:
 * the same stats for a merchant with 1,000 orders, and the plain list (no search) of the big merchant. Every answer
 * is checked; the first of each stats line against the exact computation from the orders (every figure of every
 * bucket; percentiles within the histograms' error). Goals (issue 25): p99 of the big merchant ≤ 1.5× the small
 * one's for 30 days, and ≤ 50 ms for 365 days by day on PostgreSQL. See bench/README.md.
 *
 *   npm run bench:stats
 *   BENCH_STATS_ORDERS=100000 BENCH_DATABASES=postgres npm run bench:stats   # quick check
 */
import os from "node:os";
import pg from "pg";
import type { MerchantScope } from "../src/domain/orders/order.repository.ts";
import { listPageSql } from "../src/domain/orders/order-list.ts";
import { RELATIVE_ERROR } from "../src/domain/stats/answer-histogram.ts";
import { readOrderStatsQuery, type OrderStatsFigures } from "../src/domain/stats/order-stats.ts";
import { OrderStatsRepository } from "../src/domain/stats/order-stats.repository.ts";
import { OrderStatsService } from "../src/domain/stats/order-stats.service.ts";
import { createOrderNow, FIRST_NAMES, SPAN_DAYS, seedMerchant } from "./stats-seed.ts";
import { getJson, graphql, listEnv, log, numberEnv, provision, runCleanups, cleanUp, startBenchService, type DatabaseKind } from "./harness.ts";

const databases = listEnv<DatabaseKind>("BENCH_DATABASES", ["postgres", "pglite"]);
const sizes = (kind: DatabaseKind) =>
  kind === "postgres"
    ? { big: numberEnv("BENCH_STATS_ORDERS", 1_000_000), othersEach: numberEnv("BENCH_STATS_OTHER_ORDERS", 1_000) }
    : { big: numberEnv("BENCH_PGLITE_STATS_ORDERS", 50_000), othersEach: numberEnv("BENCH_PGLITE_STATS_OTHER_ORDERS", 100) };
const SMALL = numberEnv("BENCH_STATS_SMALL_ORDERS", 1_000);
const OTHER_MERCHANTS = numberEnv("BENCH_STATS_OTHER_MERCHANTS", 100);
// 100 so that p99 is not simply the slowest read.
const ITERATIONS = numberEnv("BENCH_ITERATIONS", 100);
const WARMUP = numberEnv("BENCH_STATS_WARMUP", 5, { min: 0 });

// --------------------------------------------------------------------------------------------- measuring

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];

interface Timing {
  p50: number;
  p99: number;
}

/**
 * Sequential requests (one client, as a dashboard would), after a warm-up; `check` throws on a wrong answer. `before`
 * runs before each request, untimed.
 */
async function measure(label: string, request: (i: number) => Promise<unknown>, before?: () => Promise<void> | void): Promise<Timing> {
  for (let i = 0; i < WARMUP; i++) {
    await before?.();
    await request(i);
  }
  const times: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    await before?.();
    const started = performance.now();
    await request(i);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const timing = { p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
  log(`    ${label}: p50 ${timing.p50.toFixed(1)} ms, p99 ${timing.p99.toFixed(1)} ms`);
  return timing;
}


const FIGURES = `created confirmed canceled failed expired pending answered confirmationRate answerRate
  timeToAnswerP50Seconds timeToAnswerP90Seconds failuresByErrorCode { errorCode count }`;
const STATS_QUERY = `query Stats($from: DateTime!, $to: DateTime!, $timeZone: String) {
  orderStats(from: $from, to: $to, timeZone: $timeZone, interval: DAY) { totals { ${FIGURES} } buckets { start ${FIGURES} } }
}`;
const STATS_SCENARIOS = [
  { days: 30, timeZone: "Asia/Riyadh" },
  { days: 30, timeZone: "Asia/Kolkata" },
  { days: 365, timeZone: "Asia/Riyadh" },
  { days: 365, timeZone: "Asia/Kolkata" },
];
const GOAL_RATIO = 1.5;
const GOAL_YEAR_MS = 50;
const SEARCH_QUERY = `query Search($search: String!) {
  orders(first: 20, filter: { search: $search }) { edges { node { id externalOrderId customerName customerPhone createdAt } } }
}`;

/** The answer of the same stats, computed independently in SQL: how many orders, per status. */
async function expectedCounts(admin: pg.Pool, merchantId: string, from: Date, to: Date) {
  const { rows } = await admin.query<{ status: string; count: number }>(
    `SELECT status::text, count(*)::int AS count FROM orders
     WHERE merchant_id = $1 AND mode = 'test' AND send_state <> 'sending' AND created_at >= $2 AND created_at < $3 GROUP BY status`,
    [merchantId, from, to],
  );
  const counts: Record<string, number> = { created: 0, confirmed: 0, canceled: 0, failed: 0, expired: 0, pending: 0 };
  for (const row of rows) {
    counts[row.status] = row.count;
    counts.created += row.count;
  }
  return counts;
}

function checkStats(totals: any, buckets: any[], expected: Record<string, number>, days: number): void {
  for (const [field, count] of Object.entries(expected)) {
    if (totals[field] !== count) throw new Error(`stats: ${field} ${totals[field]} ≠ ${count}`);
  }
  const sum = buckets.reduce((total, bucket) => total + bucket.created, 0);
  if (buckets.length < days || buckets.length > days + 1 || sum !== expected.created) {
    throw new Error(`stats: ${buckets.length} buckets summing to ${sum}, expected ${days}–${days + 1} summing to ${expected.created}`);
  }
  if (expected.created > 0 && (totals.timeToAnswerP50Seconds === null || totals.failuresByErrorCode.length === 0)) {
    throw new Error("stats: no percentiles or failures");
  }
}

/**
 * Every figure of an answer against the exact computation from the orders (the statement orderStats ran before the
 * pre-aggregated buckets): counts, rates and failures equal, percentiles within the histograms' error. Returns the
 * largest relative error of a percentile.
 */
function compareWithExact(actual: { totals: any; buckets: any[] }, exact: { totals: OrderStatsFigures; buckets: any[] }): number {
  let worst = 0;
  const same = (got: any, want: OrderStatsFigures, where: string) => {
    for (const field of ["created", "confirmed", "canceled", "failed", "expired", "pending", "answered", "confirmationRate", "answerRate"] as const) {
      if (got[field] !== want[field]) throw new Error(`stats ${where}: ${field} ${got[field]} ≠ exact ${want[field]}`);
    }
    const failures = (list: { errorCode: number | null; count: number }[]) => JSON.stringify(list.map(({ errorCode, count }) => [errorCode, count]));
    if (failures(got.failuresByErrorCode) !== failures(want.failuresByErrorCode)) throw new Error(`stats ${where}: failures differ`);
    for (const field of ["timeToAnswerP50Seconds", "timeToAnswerP90Seconds"] as const) {
      const [value, exactValue] = [got[field], want[field]];
      if (exactValue === null || value === null) {
        if (value !== exactValue) throw new Error(`stats ${where}: ${field} ${value} ≠ exact ${exactValue}`);
        continue;
      }
      const error = Math.abs(value - exactValue) / exactValue;
      worst = Math.max(worst, error);
      if (Math.abs(value - exactValue) > exactValue * RELATIVE_ERROR + 0.0005) throw new Error(`stats ${where}: ${field} ${value} vs exact ${exactValue}`);
    }
  };
  same(actual.totals, exact.totals, "totals");
  if (actual.buckets.length !== exact.buckets.length) throw new Error("stats: bucket count differs from the exact one");
  actual.buckets.forEach((bucket, index) => {
    if (bucket.start !== exact.buckets[index].start) throw new Error(`stats: bucket ${bucket.start} ≠ exact ${exact.buckets[index].start}`);
    same(bucket, exact.buckets[index], bucket.start);
  });
  return worst;
}

/** Every found order starts with the search text in one of the three fields, newest first, and no more than 20. */
function checkSearch(orders: any[], search: string, expectedCount: number): void {
  const lower = search.toLowerCase();
  for (const order of orders) {
    const matches = order.externalOrderId.startsWith(search) || order.customerPhone.startsWith(search) || order.customerName.toLowerCase().startsWith(lower);
    if (!matches) throw new Error(`search ${search}: ${JSON.stringify(order)} does not match`);
  }
  for (let i = 1; i < orders.length; i++) {
    if (orders[i - 1].createdAt < orders[i].createdAt) throw new Error(`search ${search}: not newest first`);
  }
  if (orders.length !== Math.min(20, expectedCount)) throw new Error(`search ${search}: ${orders.length} orders, expected ${Math.min(20, expectedCount)}`);
}

// ---------------------------------------------------------------------------------------------- main

/** The node under the page's LIMIT (the list statement sorts the page again and builds its JSON above it). */
function pageNode(plan: string[]): string {
  const limit = plan.findIndex((line) => /->\s+Limit/.test(line));
  return (plan[limit + 1] ?? plan[0]).trim().replace(/^->\s+/, "").split("  (")[0];
}

async function main(): Promise<void> {
  log(`node ${process.version}, ${os.cpus().length} cores; ${ITERATIONS} sequential requests per line after ${WARMUP} warm-up`);
  const lines = [
    "| database | scenario | merchant's orders | p50 ms | p99 ms | baseline | p50 ratio | p99 ratio |",
    "|---|---|---|---|---|---|---|---|",
  ];
  const notes: string[] = [];
  const goals: string[] = [];

  for (const kind of databases) {
    const db = await provision(kind);
    if (!db) continue;
    log(`\n${db.label}`);
    const admin = new pg.Pool({ connectionString: db.url, max: 2 });
    admin.on("error", () => undefined);
    try {
      const { big, othersEach } = sizes(kind);
      const service = await startBenchService(db);
      const merchants = service.app.services.merchantService;
      const bigShop = await merchants.createMerchant("Big Shop");
      const smallShop = await merchants.createMerchant("Small Shop");
      const now = new Date();
      const seeding = performance.now();
      log(`  seeding ${big} orders for one merchant …`);
      await seedMerchant(admin, bigShop.merchant.id, big, now, SPAN_DAYS, true);
      // The small merchant's whole history (1,000 orders) is in the last 30 days.
      log(`  seeding ${SMALL} orders for the small merchant and ${othersEach} for each of ${OTHER_MERCHANTS} others …`);
      await seedMerchant(admin, smallShop.merchant.id, SMALL, now, 30);
      for (let i = 0; i < OTHER_MERCHANTS; i++) {
        const otherShop = await merchants.createMerchant(`Other ${i}`);
        await seedMerchant(admin, otherShop.merchant.id, othersEach, now);
      }
      // Vacuumed and analysed once, so autovacuum does not work through the fresh million rows during the measurements.
      for (const table of ["orders", "order_timeline", "order_stat_buckets", "order_stat_failures"]) await admin.query(`VACUUM ANALYZE ${table}`);
      notes.push(`${kind}: seeded in ${((performance.now() - seeding) / 1000).toFixed(0)} s`);

      const to = new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000);
      const row = (scenario: string, orders: number, timing: Timing, baseline: Timing | null, baselineName: string) =>
        lines.push(`| ${kind} | ${scenario} | ${orders} | ${timing.p50.toFixed(1)} | ${timing.p99.toFixed(1)} | ${baselineName} | ${
          baseline ? `${(timing.p50 / baseline.p50).toFixed(2)}×` : ""} | ${baseline ? `${(timing.p99 / baseline.p99).toFixed(2)}×` : ""} |`);
      const exact = new OrderStatsService(new OrderStatsRepository(admin));
      const cache = service.app.services.statBucketCache;
      let worstPercentileError = 0;
      for (const { days, timeZone } of STATS_SCENARIOS) {
        const from = new Date(to.getTime() - days * 86_400_000);
        const range = { from: from.toISOString(), to: to.toISOString() };
        const bigExpected = await expectedCounts(admin, bigShop.merchant.id, from, to);
        const smallExpected = await expectedCounts(admin, smallShop.merchant.id, from, to);
        log(`  orderStats, ${days} days by DAY (${timeZone}): ${bigExpected.created} orders of the big merchant, ${smallExpected.created} of the small one …`);
        // The first answer of each line is compared with the exact computation, figure by figure.
        const exactFor = (merchantId: string) =>
          exact.stats({ merchantId, mode: "test" }, readOrderStatsQuery({ ...range, timeZone, interval: "day" }), "en");
        const checked = new Set<string>();
        const checkOnce = async (line: string, merchantId: string, answer: { totals: any; buckets: any[] }) => {
          if (checked.has(line)) return;
          checked.add(line);
          worstPercentileError = Math.max(worstPercentileError, compareWithExact(answer, await exactFor(merchantId)));
        };
        const restStats = (line: string, shop: typeof bigShop, expected: Record<string, number>) => async () => {
          const body = await getJson(`${service.url}/api/v1/stats/orders?${new URLSearchParams({ ...range, timeZone })}`, { "x-api-key": shop.keys.test });
          checkStats(body.totals, body.buckets, expected, days);
          await checkOnce(line, shop.merchant.id, body);
        };
        const graphqlStats = (line: string, shop: typeof bigShop, expected: Record<string, number>) => async () => {
          const data = await graphql(service.url, shop.keys.test, STATS_QUERY, { ...range, timeZone });
          checkStats(data.orderStats.totals, data.orderStats.buckets, expected, days);
          await checkOnce(line, shop.merchant.id, data.orderStats);
        };
        const label = `${days} d DAY ${timeZone}`;
        // Live merchants: one new order between every two reads (created now, after the range), so the buckets that
        // touch today are read again every time, as on a busy merchant's dashboard.
        const live = (shop: typeof bigShop) => () => createOrderNow(admin, shop.merchant.id);
        // Without the cache of whole buckets (emptied before each read): the statement alone, as on a first read.
        const cold = () => cache.clear();
        const smallGraphql = await measure("GraphQL, 1,000-order merchant", graphqlStats("sg", smallShop, smallExpected), live(smallShop));
        const bigGraphql = await measure(`GraphQL, ${big}-order merchant`, graphqlStats("bg", bigShop, bigExpected), live(bigShop));
        const smallRest = await measure("REST, 1,000-order merchant", restStats("sr", smallShop, smallExpected), live(smallShop));
        const bigRest = await measure(`REST, ${big}-order merchant`, restStats("br", bigShop, bigExpected), live(bigShop));
        const smallCold = await measure("GraphQL, 1,000-order merchant, no cache", graphqlStats("sgc", smallShop, smallExpected), cold);
        const bigCold = await measure(`GraphQL, ${big}-order merchant, no cache`, graphqlStats("bgc", bigShop, bigExpected), cold);
        // The answers that came from the cache, checked too: one more read of each line, compared figure by figure.
        checked.delete("bg");
        checked.delete("br");
        await graphqlStats("bg", bigShop, bigExpected)();
        await restStats("br", bigShop, bigExpected)();
        row(`orderStats ${label} (GraphQL), baseline`, SMALL, smallGraphql, null, "");
        row(`orderStats ${label} (GraphQL)`, big, bigGraphql, smallGraphql, "same, 1,000 orders");
        row(`stats/orders ${label} (REST), baseline`, SMALL, smallRest, null, "");
        row(`stats/orders ${label} (REST)`, big, bigRest, smallRest, "same, 1,000 orders");
        row(`orderStats ${label} (GraphQL), no cache, baseline`, SMALL, smallCold, null, "");
        row(`orderStats ${label} (GraphQL), no cache`, big, bigCold, smallCold, "same, 1,000 orders");
        if (days === 365 && kind === "postgres") {
          goals.push(`${kind}: ${label} without the cache (a first read): p99 ${bigCold.p99.toFixed(1)} ms (${bigCold.p99 <= GOAL_YEAR_MS ? "within" : "above"} ${GOAL_YEAR_MS} ms)`);
        }
        for (const [door, bigTiming, smallTiming] of [["GraphQL", bigGraphql, smallGraphql], ["REST", bigRest, smallRest]] as const) {
          const ratio = bigTiming.p99 / smallTiming.p99;
          const ratioMet = ratio <= GOAL_RATIO;
          const yearMet = days !== 365 || kind !== "postgres" || bigTiming.p99 <= GOAL_YEAR_MS;
          goals.push(`${kind}: ${label} ${door}: p99 ${bigTiming.p99.toFixed(1)} ms = ${ratio.toFixed(2)}× the 1,000-order merchant's` +
            `${days === 30 ? ` (goal ≤ ${GOAL_RATIO}×: ${ratioMet ? "met" : "NOT met"})` : ""}` +
            `${days === 365 && kind === "postgres" ? ` (goal ≤ ${GOAL_YEAR_MS} ms: ${yearMet ? "met" : "NOT met"})` : ""}`);
        }
      }
      notes.push(`${kind}: time to answer from the histograms, largest error of a percentile against the exact one over every bucket and total: ${(worstPercentileError * 100).toFixed(2)} % (bound ${(RELATIVE_ERROR * 100).toFixed(2)} %)`);

      // Searches: selective prefixes of each field (a few matches anywhere in a year), and a broad one (a first
      // name: an eighth of all orders). Expected counts come from SQL written independently of the service's.
      const numbers = Array.from({ length: 8 }, (_, i) => 1 + Math.floor(((i + 1) * big) / 9));
      const searches = [
        ...numbers.map((n) => `ORD-${n}`),
        ...numbers.map((n) => `9665${String(n).padStart(8, "0")}`),
        ...numbers.map((n) => `${FIRST_NAMES[n % 8].toLowerCase()} ${n}`),
      ];
      const expectedMatches = new Map<string, number>();
      for (const text of [...searches, "Layla", "+9665"]) {
        const { rows } = await admin.query<{ count: number }>(
          `SELECT count(*)::int AS count FROM orders WHERE merchant_id = $1 AND mode = 'test' AND send_state <> 'sending'
             AND (left(external_order_id, length($2)) = $2 OR left(customer_phone, length($3)) = $3 OR left(lower(customer_name), length($2)) = lower($2))`,
          [bigShop.merchant.id, text, text.replace(/^\+/, "")],
        );
        expectedMatches.set(text, rows[0].count);
      }
      const restSearch = (texts: string[]) => async (i: number) => {
        const text = texts[i % texts.length];
        const body = await getJson(`${service.url}/api/v1/orders?${new URLSearchParams({ search: text, limit: "20" })}`, { "x-api-key": bigShop.keys.test });
        checkSearch(body.data, text.replace(/^\+/, ""), expectedMatches.get(text)!);
      };
      const graphqlSearch = (texts: string[]) => async (i: number) => {
        const text = texts[i % texts.length];
        const data = await graphql(service.url, bigShop.keys.test, SEARCH_QUERY, { search: text });
        checkSearch(data.orders.edges.map((edge: any) => edge.node), text, expectedMatches.get(text)!);
      };
      log("  order list …");
      const plain = await measure("REST list, no search (baseline)", async () => {
        const body = await getJson(`${service.url}/api/v1/orders?limit=20`, { "x-api-key": bigShop.keys.test });
        if (body.data.length !== 20) throw new Error("plain list: not 20 orders");
      });
      const selective = await measure("REST search, selective prefixes", restSearch(searches));
      const broad = await measure("REST search, a first name (1/8 of all orders)", restSearch(["Layla"]));
      const everyone = await measure("REST search, +9665 (every order)", restSearch(["+9665"]));
      const viaGraphql = await measure("GraphQL search, selective prefixes", graphqlSearch(searches));
      row("GET /orders?limit=20, baseline", big, plain, null, "");
      row("GET /orders?search=<selective prefix>", big, selective, plain, "plain list");
      row("GET /orders?search=Layla (1/8 match)", big, broad, plain, "plain list");
      row("GET /orders?search=%2B9665 (all match)", big, everyone, plain, "plain list");
      row("orders(filter: { search }) selective", big, viaGraphql, plain, "plain list (REST)");

      // The plans, for the record: which indexes the statements use.
      const scope: MerchantScope = { merchantId: bigShop.merchant.id, mode: "test" };
      for (const text of [searches[0], searches[16], "Layla"]) {
        const sql = listPageSql(scope, { search: text }, 21, null);
        const plan = await admin.query<{ "QUERY PLAN": string }>(`EXPLAIN ${sql.text}`, sql.values as unknown[]);
        const indexes = [...new Set(plan.rows.map((r) => /Bitmap Index Scan on (\S+)|Scan using (\S+)/.exec(r["QUERY PLAN"])).filter(Boolean).map((m) => m![1] ?? m![2]))];
        notes.push(`${kind}: search "${text}" plan uses ${indexes.join(", ") || "no index"}; page chosen by: ${pageNode(plan.rows.map((r) => r["QUERY PLAN"]))}`);
      }
    } finally {
      await admin.end();
      await runCleanups();
      await cleanUp(() => db.drop());
    }
  }
  console.log(["", ...lines, "", ...notes.map((note) => `- ${note}`), "", "Goals (issue 25):", ...goals.map((goal) => `- ${goal}`), ""].join("\n"));
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => runCleanups());
