/**
 * Reads at scale (issue 12, item 4): GET by id, the REST list's first and deep page, the same lists through GraphQL
 * with and without totalCount, and filtered lists (status, status + date range, phone, search), for a merchant with
 * 1,000,000 orders (with items) among 100 other merchants; baseline in the same run: the same requests for a
 * merchant with 1,000 orders. Every answer is checked against independent SQL. See bench/README.md.
 *
 *   npm run bench:scale
 *   BENCH_SCALE_ORDERS=100000 BENCH_DATABASES=postgres npm run bench:scale   # quick check
 *   BENCH_SCALE_ONLY=needsFollowUp npm run bench:scale                       # one family of scenarios
 */
import os from "node:os";
import pg from "pg";
import { boundedCountSql, filterMatchesSql, maintainedCountSql } from "../src/domain/orders/order-count.ts";
import { searchMatchesSql } from "../src/domain/orders/order-search.ts";
import { listPageSql } from "../src/domain/orders/order-list.ts";
import type { OrderFilter } from "../src/domain/orders/order.schemas.ts";
import { SPAN_DAYS, seedMerchant } from "./stats-seed.ts";
import { getJson, graphql, listEnv, log, numberEnv, provision, runCleanups, cleanUp, startBenchService, type DatabaseKind } from "./harness.ts";

const databases = listEnv<DatabaseKind>("BENCH_DATABASES", ["postgres", "pglite"]);
const sizes = (kind: DatabaseKind) =>
  kind === "postgres"
    ? { big: numberEnv("BENCH_SCALE_ORDERS", 1_000_000), othersEach: numberEnv("BENCH_SCALE_OTHER_ORDERS", 1_000) }
    : { big: numberEnv("BENCH_PGLITE_SCALE_ORDERS", 100_000), othersEach: numberEnv("BENCH_PGLITE_SCALE_OTHER_ORDERS", 100) };
const SMALL = numberEnv("BENCH_SCALE_SMALL_ORDERS", 1_000);
const OTHER_MERCHANTS = numberEnv("BENCH_SCALE_OTHER_MERCHANTS", 100, { min: 0 });
const PAGE = numberEnv("BENCH_SCALE_PAGE_SIZE", 20);
const DEEP_PAGE = numberEnv("BENCH_SCALE_DEEP_PAGE", 500);
const ITERATIONS = numberEnv("BENCH_ITERATIONS", 200);
const WARMUP = numberEnv("BENCH_SCALE_WARMUP", 20, { min: 0 });
const CONCURRENCY = numberEnv("BENCH_SCALE_CONCURRENCY", 1);
const ROUNDS = numberEnv("BENCH_ROUNDS", 4);
/** The date range of the filtered list: the last 30 days (about 8 % of a year's orders). */
const RANGE_DAYS = 30;
/** The count fields asked for (`totalCount` alone to measure a version without totalCountPrecision). */
const COUNT_FIELDS = process.env.BENCH_SCALE_COUNT_FIELDS || "totalCount totalCountPrecision";
/** Only the scenarios whose name contains this text (e.g. `needsFollowUp`); all when unset. */
const ONLY = process.env.BENCH_SCALE_ONLY || "";

// --------------------------------------------------------------------------------------------- measuring

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];

interface Timing {
  p50: number;
  p99: number;
}

/** `count` requests from CONCURRENCY loops; each request's time. `request` throws on a wrong answer. */
async function timed(request: (i: number) => Promise<void>, count: number): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  const loop = async () => {
    while (next < count) {
      const i = next++;
      const started = performance.now();
      await request(i);
      times.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  return times;
}

const summarise = (times: number[]): Timing => {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
};

/**
 * The same scenario for the small (baseline) and the big merchant: warm-up on both, then ROUNDS rounds alternating
 * which goes first, ITERATIONS requests each in all; p50/p99 over all of a merchant's requests.
 */
async function measurePair(label: string, small: (i: number) => Promise<void>, big: (i: number) => Promise<void>): Promise<[Timing, Timing]> {
  await timed(small, WARMUP);
  await timed(big, WARMUP);
  const smallTimes: number[] = [];
  const bigTimes: number[] = [];
  const perRound = Math.max(1, Math.ceil(ITERATIONS / ROUNDS));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ([[small, smallTimes], [big, bigTimes]] as const) : ([[big, bigTimes], [small, smallTimes]] as const);
    for (const [request, times] of order) times.push(...(await timed(request, perRound)));
  }
  const pair: [Timing, Timing] = [summarise(smallTimes), summarise(bigTimes)];
  log(`    ${label}: p99 ${pair[0].p99.toFixed(1)} ms (small) vs ${pair[1].p99.toFixed(1)} ms (big), ${(pair[1].p99 / pair[0].p99).toFixed(2)}×`);
  return pair;
}

// ------------------------------------------------------------------------------------------------- HTTP


const ORDER_FIELDS = `id externalOrderId status customerName customerPhone totalCost currency createdAt
  items { productName quantity unitPrice totalPrice }`;
const listQuery = (withCount: boolean) => `query Orders($first: Int!, $after: String, $filter: OrderFilter) {
  orders(first: $first, after: $after, filter: $filter) {
    edges { cursor node { ${ORDER_FIELDS} } }
    pageInfo { hasNextPage endCursor }
    ${withCount ? COUNT_FIELDS : ""}
  }
}`;

// ---------------------------------------------------------------------------------------- the answers

/** A list request: REST query parameters and the same filter for GraphQL, and the SQL condition they mean. */
interface ListFilter {
  rest: Record<string, string>;
  graphql: Record<string, unknown> | null;
  /** An independent SQL condition on `o` ($1 merchant id, then `values`), written apart from the service's. */
  sql: string;
  values: unknown[];
  /** Each returned order must satisfy this. */
  holds(order: { status: string; createdAt: string; customerPhone: string; customerName: string }): boolean;
}

interface Expected {
  ids: string[];
  count: number;
}

async function expectedPage(admin: pg.Pool, merchantId: string, filter: ListFilter, offset: number): Promise<Expected> {
  const where = `o.merchant_id = $1 AND o.mode = 'test' AND o.send_state <> 'sending' AND (${filter.sql})`;
  const { rows } = await admin.query<{ id: string }>(
    `SELECT o.id::text FROM orders o WHERE ${where} ORDER BY o.created_at DESC, o.id DESC OFFSET ${offset} LIMIT ${PAGE}`,
    [merchantId, ...filter.values],
  );
  const [{ count }] = (await admin.query<{ count: number }>(`SELECT count(*)::int AS count FROM orders o WHERE ${where}`, [merchantId, ...filter.values])).rows;
  return { ids: rows.map((row) => row.id), count };
}

/** Right ids in the right order (newest first, as the independent SQL has them), each with its two items. */
function checkPage(what: string, orders: any[], expected: Expected, filter: ListFilter): void {
  const ids = orders.map((order) => order.id);
  if (ids.join() !== expected.ids.join()) {
    throw new Error(`${what}: ids ${ids.slice(0, 3).join()}… (${ids.length}) ≠ expected ${expected.ids.slice(0, 3).join()}… (${expected.ids.length})`);
  }
  for (let i = 1; i < orders.length; i++) {
    if (orders[i - 1].createdAt < orders[i].createdAt) throw new Error(`${what}: not newest first`);
  }
  for (const order of orders) {
    if (!filter.holds({ ...order, status: String(order.status).toLowerCase() })) throw new Error(`${what}: ${order.id} does not match the filter`);
    if (order.items.length !== 2 || order.items[1].totalPrice !== 6) throw new Error(`${what}: ${order.id} items ${JSON.stringify(order.items)}`);
  }
}

/** totalCount: exact (= the independent count) or, when reported as AT_LEAST, a true lower bound. */
function checkCount(what: string, connection: any, expected: Expected): void {
  const { totalCount, totalCountPrecision } = connection;
  const ok = (totalCountPrecision ?? "EXACT") === "EXACT" ? totalCount === expected.count : totalCountPrecision === "AT_LEAST" && totalCount <= expected.count;
  if (!ok) throw new Error(`${what}: totalCount ${totalCount} (${totalCountPrecision}) but ${expected.count} orders match`);
}

// ---------------------------------------------------------------------------------------------- plans

async function plan(admin: pg.Pool, sql: string, values: unknown[]): Promise<string[]> {
  const { rows } = await admin.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) ${sql}`, values);
  return rows.map((row) => row["QUERY PLAN"]);
}

// ---------------------------------------------------------------------------------------------- main

interface Merchant {
  label: string;
  id: string;
  key: string;
  orders: number;
  /** The page measured as "deep": DEEP_PAGE, or the merchant's last full page when it has fewer. */
  deepPage: number;
  deepCursor: string;
  ids: string[];
}

async function main(): Promise<void> {
  log(
    `node ${process.version}, ${os.cpus().length} cores; ${ITERATIONS} requests per line and merchant (${CONCURRENCY} at a time, ` +
      `${ROUNDS} rounds) after ${WARMUP} warm-up; page size ${PAGE}`,
  );
  const lines = [
    "| database | scenario | p50 ms 1 k | p99 ms 1 k | orders | p50 ms | p99 ms | p50 ratio | p99 ratio | p99 ≤ 1.5× |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  const notes: string[] = [];
  let failed = false;

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
      log(`  seeding ${big} orders with 2 items each for one merchant …`);
      await seedMerchant(admin, bigShop.merchant.id, big, now, SPAN_DAYS, true, true);
      log(`  seeding ${SMALL} for the baseline merchant and ${othersEach} for each of ${OTHER_MERCHANTS} others …`);
      await seedMerchant(admin, smallShop.merchant.id, SMALL, now, SPAN_DAYS, false, true);
      for (let i = 0; i < OTHER_MERCHANTS; i++) {
        const otherShop = await merchants.createMerchant(`Other ${i}`);
        await seedMerchant(admin, otherShop.merchant.id, othersEach, now, SPAN_DAYS, false, true);
      }
      await admin.query("VACUUM ANALYZE orders");
      await admin.query("VACUUM ANALYZE order_items");
      notes.push(`${kind}: seeded ${big} + ${SMALL} + ${OTHER_MERCHANTS} × ${othersEach} orders (2 items each) in ${((performance.now() - seeding) / 1000).toFixed(0)} s`);

      const rangeTo = new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000);
      const rangeFrom = new Date(rangeTo.getTime() - RANGE_DAYS * 86_400_000);
      const all: ListFilter = { rest: {}, graphql: null, sql: "true", values: [], holds: () => true };
      const confirmed: ListFilter = {
        rest: { status: "confirmed" },
        graphql: { status: ["CONFIRMED"] },
        sql: "o.status = 'confirmed'",
        values: [],
        holds: (order) => order.status === "confirmed",
      };
      const confirmedInRange: ListFilter = {
        rest: { status: "confirmed", createdFrom: rangeFrom.toISOString(), createdTo: rangeTo.toISOString() },
        graphql: { status: ["CONFIRMED"], createdFrom: rangeFrom.toISOString(), createdTo: rangeTo.toISOString() },
        sql: "o.status = 'confirmed' AND o.created_at >= $2 AND o.created_at < $3",
        values: [rangeFrom, rangeTo],
        holds: (order) => order.status === "confirmed" && order.createdAt >= rangeFrom.toISOString() && order.createdAt < rangeTo.toISOString(),
      };
      // Each merchant's orders are numbered from 1, so these exist for both: one exact phone (one order), and a phone
      // prefix matching 100 orders (n = middle … middle + 99) at either size.
      const phoneOf = (n: number) => `9665${String(n).padStart(8, "0")}`;
      const phoneFilter = (orders: number): ListFilter => {
        const phone = phoneOf(Math.floor(orders / 2));
        return { rest: { customerPhone: phone }, graphql: { customerPhone: phone }, sql: "o.customer_phone = $2", values: [phone], holds: (order) => order.customerPhone === phone };
      };
      const searchFilter = (orders: number): ListFilter => {
        const prefix = phoneOf(Math.floor(orders / 200) * 100).slice(0, -2);
        return { rest: { search: prefix }, graphql: { search: prefix }, sql: "left(o.customer_phone, 10) = $2", values: [prefix], holds: (order) => order.customerPhone.startsWith(prefix) };
      };

      const layla: ListFilter = {
        rest: { search: "Layla" },
        graphql: { search: "Layla" },
        sql: "left(lower(o.customer_name), 6) = 'layla '",
        values: [],
        holds: (order) => order.customerName.startsWith("Layla "),
      };

      // The deep page's cursor, walked page by page through REST (checking each page follows the one before).
      const prepare = async (label: string, shop: typeof bigShop, orders: number): Promise<Merchant> => {
        const deepPage = Math.min(DEEP_PAGE, Math.floor(orders / PAGE));
        let cursor: string | null = null;
        let previousLast: string | null = null;
        const walking = performance.now();
        for (let page = 1; page < deepPage; page++) {
          const body: any = await getJson(`${service.url}/api/v1/orders?${new URLSearchParams({ limit: String(PAGE), ...(cursor ? { cursor } : {}) })}`, { "x-api-key": shop.keys.test });
          if (body.data.length !== PAGE || (previousLast && body.data[0].createdAt > previousLast)) throw new Error(`walk: page ${page} is wrong`);
          previousLast = body.data.at(-1).createdAt;
          cursor = body.pagination.nextCursor;
        }
        log(`  ${label}: walked to page ${deepPage} in ${((performance.now() - walking) / 1000).toFixed(1)} s`);
        const { rows } = await admin.query<{ id: string }>(
          "SELECT id::text FROM orders WHERE merchant_id = $1 AND mode = 'test' ORDER BY random() LIMIT 200",
          [shop.merchant.id],
        );
        return { label, id: shop.merchant.id, key: shop.keys.test, orders, deepPage, deepCursor: cursor!, ids: rows.map((row) => row.id) };
      };
      const small = await prepare("1,000-order merchant", smallShop, SMALL);
      const large = await prepare(`${big}-order merchant`, bigShop, big);

      const restList = async (m: Merchant, filter: ListFilter, deep: boolean) => {
        const expected = await expectedPage(admin, m.id, filter, deep ? (m.deepPage - 1) * PAGE : 0);
        const query = new URLSearchParams({ limit: String(PAGE), ...filter.rest, ...(deep ? { cursor: m.deepCursor } : {}) });
        return async () => {
          const body = await getJson(`${service.url}/api/v1/orders?${query}`, { "x-api-key": m.key });
          checkPage("REST list", body.data, expected, filter);
        };
      };
      const graphqlList = async (m: Merchant, filter: ListFilter, deep: boolean, withCount: boolean) => {
        const expected = await expectedPage(admin, m.id, filter, deep ? (m.deepPage - 1) * PAGE : 0);
        const query = listQuery(withCount);
        const variables = { first: PAGE, after: deep ? m.deepCursor : null, filter: filter.graphql };
        return async () => {
          const data = await graphql(service.url, m.key, query, variables);
          checkPage("GraphQL orders", data.orders.edges.map((edge: any) => edge.node), expected, filter);
          if (withCount) checkCount("GraphQL orders", data.orders, expected);
        };
      };
      // The follow-up queue. Its membership moves with the clock (an order joins 2 h after its last message), so
      // before measuring, each merchant's orders of the last 3 hours are moved 3 hours back (no order then crosses
      // the cutoff while the scenario runs), and reminders are recorded as a shop with a reminder policy has them:
      // every third pending order got one an hour after its confirmation, and the 50 newest due orders one
      // 30 minutes ago (those are not due: the queue skips them). The answer is checked against SQL written apart
      // from the service's (the later of the confirmation and the last reminder, before now − 2 h).
      const followUp: ListFilter = {
        rest: { needsFollowUp: "true" },
        graphql: { needsFollowUp: true },
        sql: `o.status = 'pending' AND greatest(o.created_at, (SELECT max(t.finished_at) FROM order_tasks t
          WHERE t.order_id = o.id AND t.kind = 'reminder' AND t.state = 'sent')) <= now() - interval '2 hours'`,
        values: [],
        holds: (order) => order.status === "pending",
      };
      const prepareFollowUps = async (m: Merchant) => {
        await admin.query(
          "UPDATE orders SET created_at = created_at - interval '3 hours' WHERE merchant_id = $1 AND created_at > now() - interval '3 hours'",
          [m.id],
        );
        await admin.query(
          `INSERT INTO order_tasks (id, order_id, merchant_id, mode, kind, position, state, due_at, finished_at, created_at)
           SELECT gen_random_uuid(), o.id, o.merchant_id, o.mode, 'reminder', 1, 'sent', o.created_at + interval '1 hour',
             CASE WHEN o.rank <= 50 THEN now() - interval '30 minutes' ELSE o.created_at + interval '1 hour' END, o.created_at
           FROM (SELECT o.*, row_number() OVER (ORDER BY o.created_at DESC) AS rank FROM orders o
                 WHERE o.merchant_id = $1 AND o.mode = 'test' AND o.status = 'pending'
                   AND o.created_at <= now() - interval '3 hours') o
           WHERE o.rank <= 50 OR o.rank % 3 = 0
           ON CONFLICT DO NOTHING`,
          [m.id],
        );
        await admin.query("ANALYZE order_tasks");
      };
      const followUpList = async (m: Merchant, graphqlWithCount: boolean) => {
        await prepareFollowUps(m);
        return graphqlWithCount ? graphqlList(m, followUp, false, true) : restList(m, followUp, false);
      };
      const byId = async (m: Merchant) => async (i: number) => {
        const id = m.ids[i % m.ids.length];
        const body = await getJson(`${service.url}/api/v1/orders/${id}`, { "x-api-key": m.key });
        if (body.id !== id || body.items.length !== 2) throw new Error(`GET by id: asked ${id}, got ${body.id}`);
      };
      // What totalCount ran before it had a counter: an exact count(*) of the scope, timed here on its own.
      const countSql = async (m: Merchant) => async () => {
        const { rows } = await admin.query<{ count: number }>(
          "SELECT count(*)::int AS count FROM orders WHERE merchant_id = $1 AND mode = 'test' AND send_state <> 'sending'",
          [m.id],
        );
        if (rows[0].count !== m.orders) throw new Error(`count(*): ${rows[0].count} ≠ ${m.orders}`);
      };

      const scenarios: [string, (m: Merchant) => Promise<(i: number) => Promise<void>>][] = [
        ["GET /orders/{id}", byId],
        ["GET /orders (first page)", (m) => restList(m, all, false)],
        [`GET /orders (page ${DEEP_PAGE}¹)`, (m) => restList(m, all, true)],
        ["orders(first) (first page)", (m) => graphqlList(m, all, false, false)],
        ["orders(first) { totalCount } (first page)", (m) => graphqlList(m, all, false, true)],
        [`orders(first, after) (page ${DEEP_PAGE}¹)`, (m) => graphqlList(m, all, true, false)],
        [`orders(first, after) { totalCount } (page ${DEEP_PAGE}¹)`, (m) => graphqlList(m, all, true, true)],
        ["GET /orders?status=confirmed", (m) => restList(m, confirmed, false)],
        [`GET /orders?status=confirmed&createdFrom…To (${RANGE_DAYS} d)`, (m) => restList(m, confirmedInRange, false)],
        [`orders(filter: status + ${RANGE_DAYS} d) { totalCount }`, (m) => graphqlList(m, confirmedInRange, false, true)],
        ["orders(filter: status) { totalCount }", (m) => graphqlList(m, confirmed, false, true)],
        ["GET /orders?customerPhone= (1 match)", (m) => restList(m, phoneFilter(m.orders), false)],
        ["GET /orders?search=<phone prefix> (100 match)", (m) => restList(m, searchFilter(m.orders), false)],
        ["orders(filter: search) { totalCount } (100 match)", (m) => graphqlList(m, searchFilter(m.orders), false, true)],
        ["orders(filter: search: \"Layla\") { totalCount } (1/8 match)", (m) => graphqlList(m, layla, false, true)],
        // SPEC §15: the follow-up queue (pending, last message older than followUpAfter = the default 2h).
        ["GET /orders?needsFollowUp=true³", (m) => followUpList(m, false)],
        ["orders(filter: needsFollowUp) { totalCount }³", (m) => followUpList(m, true)],
        ["count(*) of the scope in SQL (totalCount before)²", countSql],
      ];
      for (const [name, make] of scenarios.filter(([name]) => !ONLY || name.includes(ONLY))) {
        try {
          const [smallTiming, bigTiming] = await measurePair(name, await make(small), await make(large));
          const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
          lines.push(
            `| ${kind} | ${name} | ${smallTiming.p50.toFixed(1)} | ${smallTiming.p99.toFixed(1)} | ${big} | ${bigTiming.p50.toFixed(1)} | ` +
              `${bigTiming.p99.toFixed(1)} | ${ratio(bigTiming.p50, smallTiming.p50)} | ${ratio(bigTiming.p99, smallTiming.p99)} | ` +
              `${bigTiming.p99 <= 1.5 * smallTiming.p99 ? "yes" : "**no**"} |`,
          );
        } catch (error) {
          failed = true;
          log(`    ${name}: FAILED ${(error as Error).message}`);
          lines.push(`| ${kind} | ${name} | | | ${big} | | | | | **failed** |`);
        }
      }
      notes.push(`${kind}: deep page = page ${large.deepPage} for the big merchant, page ${small.deepPage} (its last) for the 1,000-order one`);

      // The plans of the list statements for the big merchant: the service's own page statement (order-list.ts:
      // scope, filter, keyset, newest first, LIMIT page + 1, items as JSON) for each shape measured above.
      const scopeSql = "o.merchant_id = $1 AND o.mode = 'test' AND o.send_state <> 'sending'";
      const deep = await admin.query<{ created_at: Date; id: string }>(
        `SELECT created_at, id::text FROM orders o WHERE ${scopeSql} ORDER BY created_at DESC, id DESC OFFSET ${(large.deepPage - 1) * PAGE - 1} LIMIT 1`,
        [large.id],
      );
      const scope = { merchantId: large.id, mode: "test" as const };
      const page = (filter: OrderFilter, after: { createdAt: Date; id: string } | null = null) => {
        const sql = listPageSql(scope, filter, PAGE + 1, after);
        return [sql.text, sql.values as unknown[]] as const;
      };
      const plans: [string, string, unknown[]][] = [
        ["first page", ...page({})],
        [`page ${large.deepPage} (keyset)`, ...page({}, { createdAt: deep.rows[0].created_at, id: deep.rows[0].id })],
        ["status = confirmed", ...page({ statuses: ["confirmed"] })],
        [`status = confirmed, ${RANGE_DAYS} days`, ...page({ statuses: ["confirmed"], createdFrom: rangeFrom, createdTo: rangeTo })],
        ["customerPhone", ...page({ customerPhone: phoneFilter(large.orders).values[0] as string })],
        ["needsFollowUp", ...page({ needsFollowUp: true })],
      ];
      const search = listPageSql(scope, { search: searchFilter(large.orders).values[0] as string }, PAGE + 1, null);
      const planText: string[] = [];
      for (const [label, sql, values] of plans) planText.push(`-- ${kind}, ${label}`, ...(await plan(admin, sql, values)), "");
      planText.push(`-- ${kind}, search (phone prefix)`, ...(await plan(admin, search.text, search.values as unknown[])), "");
      for (const [label, sql, values] of await countPlans(large.id, rangeFrom, rangeTo, searchFilter(large.orders).values[0] as string)) {
        planText.push(`-- ${kind}, totalCount: ${label}`, ...(await plan(admin, sql, values)), "");
      }
      notes.push(`${kind} plans (EXPLAIN ANALYZE, big merchant):\n\n\`\`\`\n${planText.join("\n")}\`\`\``);
    } finally {
      await admin.end();
      await runCleanups();
      await cleanUp(() => db.drop());
    }
  }
  console.log(
    [
      "",
      ...lines,
      "",
      `¹ page ${DEEP_PAGE} of ${PAGE} for the big merchant (its cursor walked page by page); the 1,000-order merchant's last page.`,
      "² the statement alone (no HTTP): what every totalCount ran before the maintained counter.",
      "³ SPEC §15 follow-up queue: pending orders whose confirmation (or latest reminder) is older than followUpAfter (2 h); the big merchant has about 170,000 pending orders, a third of them reminded.",
      "",
      ...notes.map((note) => `- ${note}`),
      "",
    ].join("\n"),
  );
  if (failed) process.exitCode = 1;
}

/** The statements totalCount runs (order-count.ts), and the exact count(*) it ran before the maintained counts. */
async function countPlans(merchantId: string, from: Date, to: Date, search: string): Promise<[string, string, unknown[]][]> {
  const scope = { merchantId, mode: "test" as const };
  const sql = (statement: { text: string; values: unknown[] }): [string, unknown[]] => [statement.text, statement.values];
  return [
    ["unfiltered, exact count(*) (before)", "SELECT count(*) FROM orders o WHERE o.merchant_id = $1 AND o.mode = 'test' AND o.send_state <> 'sending'", [merchantId]],
    ["unfiltered, maintained counts (now)", ...sql(maintainedCountSql(scope, undefined))],
    ["status, maintained counts (now)", ...sql(maintainedCountSql(scope, ["confirmed"]))],
    [`status + ${RANGE_DAYS} days, exact count(*) (before)`, "SELECT count(*) FROM orders o WHERE o.merchant_id = $1 AND o.mode = 'test' AND o.send_state <> 'sending' AND o.status = 'confirmed' AND o.created_at >= $2 AND o.created_at < $3", [merchantId, from, to]],
    [`status + ${RANGE_DAYS} days, bounded count (now)`, ...sql(boundedCountSql(filterMatchesSql(scope, { statuses: ["confirmed"], createdFrom: from, createdTo: to })))],
    ["search (phone prefix), bounded count (now)", ...sql(boundedCountSql(searchMatchesSql(scope, { search })))],
    ["search Layla (1/8 of the orders), bounded count (now)", ...sql(boundedCountSql(searchMatchesSql(scope, { search: "Layla" })))],
  ];
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => runCleanups());
