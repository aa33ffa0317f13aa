/**
 * The confirmation page and the SMS fallback (SPEC §12), measured against peers in the same run:
 *
 * 1. Throughput of the page's GET (`/c/<token>`, the HTML page of an order) and of its POST (Approve, each on a
 *    pending order: the customer's tap through the state machine, then 303; its warm-up on other pending orders),
 *    against the REST GET by id of the same orders (`/api/v1/orders/{id}`), each under the same closed-loop load
 *    (autocannon on its own thread).
 *    Goal: page GET and POST ≥ 0.8× the REST GET. Every answer is checked (the page shows the order's reference;
 *    the POSTs' orders are confirmed afterwards).
 * 2. The cost of 1,000 SMS fallbacks in one Meta status notification: the signed POST /webhooks/whatsapp with
 *    1,000 `failed` 131026 statuses of orders under an SMS fallback policy, against the same notification for
 *    orders without the policy (1,000 orders failed), and how long the SMS sender (test mode: the simulated phone)
 *    takes to send the 1,000 SMS.
 *
 *   npm run bench:confirmation-page
 *   BENCH_DATABASES=postgres BENCH_SECONDS=5 npm run bench:confirmation-page
 */
import os from "node:os";
import { createHmac } from "node:crypto";
import type { MerchantScope } from "../src/domain/orders/order.repository.ts";
import { LoadWorker, cleanups, listEnv, log, numberEnv, provision, runCleanups, seedOrders, startBenchService, type BenchService, type DatabaseKind } from "./harness.ts";
import type { LoadResult, LoadScenario } from "./load-worker.ts";

const databases = listEnv<DatabaseKind>("BENCH_DATABASES", ["postgres", "pglite"]);
const SECONDS = numberEnv("BENCH_SECONDS", 5);
const WARMUP = numberEnv("BENCH_WARMUP_SECONDS", 2, { min: 0 });
const CONNECTIONS = numberEnv("BENCH_CONNECTIONS", 10);
const ORDERS = numberEnv("BENCH_PAGE_ORDERS", 1_000);
const POST_ORDERS = (kind: DatabaseKind) => numberEnv(kind === "postgres" ? "BENCH_PAGE_POST_ORDERS" : "BENCH_PGLITE_PAGE_POST_ORDERS", kind === "postgres" ? 8_000 : 3_000);
const FALLBACKS = numberEnv("BENCH_FALLBACKS", 1_000);
const APP_SECRET = "bench-app-secret";

async function main() {
  log(`confirmation page bench: ${os.cpus().length} CPUs, ${CONNECTIONS} connections, ${SECONDS}s runs (${WARMUP}s warm-up)`);
  const rows: string[] = [];
  for (const kind of databases) {
    const db = await provision(kind);
    if (!db) continue;
    cleanups.push(() => db.drop());
    log(`\n${db.label}`);
    const service = await startBenchService(db, { WHATSAPP_APP_SECRET: APP_SECRET });
    const worker = new LoadWorker();
    try {
      rows.push(...(await throughput(kind, service, worker)));
      rows.push(...(await fallbacks(kind, service)));
    } finally {
      await worker.close();
    }
  }
  console.log(["| database | measure | result |", "|---|---|---|", ...rows].join("\n"));
  await runCleanups();
}

async function merchantScope(service: BenchService, name: string): Promise<{ scope: MerchantScope; key: string }> {
  const created = await service.app.services.merchantService.createMerchant(name);
  return { scope: { merchantId: created.merchant.id, mode: "test" }, key: created.keys.test };
}

async function throughput(kind: DatabaseKind, service: BenchService, worker: LoadWorker): Promise<string[]> {
  const { scope, key } = await merchantScope(service, "Page Bench Shop");
  log(`  seeding ${ORDERS} orders to read and ${POST_ORDERS(kind)} to approve…`);
  const ids = await seedOrders(service.app, scope, ORDERS, "READ");
  const pages = service.app.services.confirmationPages;
  const externalOf = new Map<string, string>();
  for (const [index, id] of ids.entries()) externalOf.set(id, `READ-${index}`);
  const readPages = ids.map((id) => ({ path: pages.pathOf(id), expect: `<bdi>${externalOf.get(id)}</bdi>` }));
  const postIds = await seedOrders(service.app, scope, POST_ORDERS(kind), "POST");
  const postPages = postIds.map((id) => ({ path: pages.pathOf(id), expect: "" }));

  const run = async (scenario: LoadScenario, seconds: number, extra: { pages?: typeof readPages } = {}): Promise<LoadResult> =>
    worker.run({ url: service.url, scenario, apiKey: key, ids, connections: CONNECTIONS, seconds, tag: "x", ...extra });
  const measured: Record<string, LoadResult> = {};
  for (const [label, scenario, extra] of [
    ["REST GET /api/v1/orders/{id}", "get", {}],
    ["page GET /c/<token>", "page-get", { pages: readPages }],
    ["REST GET /api/v1/orders/{id} (again)", "get", {}],
  ] as const) {
    if (WARMUP) await run(scenario, WARMUP, extra);
    const result = await run(scenario, SECONDS, extra);
    check(label, result);
    measured[label] = result;
    log(`  ${label}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms`);
  }
  // The POST's warm-up answers orders of its own: every measured POST must find a pending order (a repeat is a
  // cheaper "already answered"), and the measured run must not start with cold statements and code.
  if (WARMUP) {
    const warmupIds = await seedOrders(service.app, scope, Math.ceil(POST_ORDERS(kind) / 4), "WARM");
    check("page POST", await run("page-post", WARMUP, { pages: warmupIds.map((id) => ({ path: pages.pathOf(id), expect: "" })) }));
  }
  const post = await run("page-post", SECONDS, { pages: postPages });
  check("page POST", post);
  // Requests still in flight when the load stops finish first; then one snapshot counts orders and events together.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const { rows: [counted] } = await service.database.pool.query<{ confirmed: number; events: number }>(
    `SELECT (SELECT count(*)::int FROM orders WHERE id = ANY($1::uuid[]) AND status = 'confirmed') AS confirmed,
       (SELECT count(*)::int FROM order_events WHERE order_id = ANY($1::uuid[]) AND type = 'order.confirmed') AS events`,
    [postIds],
  );
  const confirmed = counted.confirmed;
  const repeats = Math.max(0, post.ok - confirmed);
  log(`  page POST (Approve): ${post.rps.toFixed(0)} req/s, p50 ${post.p50.toFixed(1)} ms, p99 ${post.p99.toFixed(1)} ms; ${confirmed} orders confirmed, ${repeats} repeats`);
  if (counted.events !== confirmed) throw new Error(`page POST: ${confirmed} confirmed orders but ${counted.events} order.confirmed events`);

  const rest = (measured["REST GET /api/v1/orders/{id}"].rps + measured["REST GET /api/v1/orders/{id} (again)"].rps) / 2;
  const ratio = (rps: number) => `${(rps / rest).toFixed(2)}×`;
  return [
    `| ${kind} | REST GET by id (mean of two runs) | ${rest.toFixed(0)} req/s |`,
    `| ${kind} | page GET | ${measured["page GET /c/<token>"].rps.toFixed(0)} req/s = ${ratio(measured["page GET /c/<token>"].rps)} REST GET (p99 ${measured["page GET /c/<token>"].p99.toFixed(1)} ms) |`,
    `| ${kind} | page POST (Approve) | ${post.rps.toFixed(0)} req/s = ${ratio(post.rps)} REST GET (p99 ${post.p99.toFixed(1)} ms; ${confirmed} confirmed, ${repeats} repeats) |`,
  ];
}

/** Every answer as expected: 200 with the order's reference (GET), 303 (POST); no errors, no other status. */
function check(label: string, result: LoadResult) {
  const allowed = label === "page POST" ? "303" : "200";
  const others = Object.keys(result.statusCodes).filter((code) => code !== allowed);
  if (result.mismatches || result.errors || others.length || result.ok === 0) throw new Error(`${label}: ${JSON.stringify(result)}`);
}

async function fallbacks(kind: DatabaseKind, service: BenchService): Promise<string[]> {
  const services = service.app.services;
  const run = async (label: string, withPolicy: boolean) => {
    const { scope } = await merchantScope(service, `Fallback Bench ${label}`);
    if (withPolicy) {
      await services.confirmationPolicies.replace(scope, services.confirmationPolicies.input.parse({ smsFallback: { errorCodes: [131026] } }));
    }
    const ids = await seedOrders(service.app, scope, FALLBACKS, `FB-${label}`);
    const { rows } = await service.database.pool.query<{ id: string; provider_message_id: string }>(
      `SELECT id, provider_message_id FROM orders WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    const statuses = rows.map((row) => ({
      id: row.provider_message_id,
      status: "failed",
      timestamp: String(Math.floor(Date.now() / 1000)),
      recipient_id: "966500000000",
      biz_opaque_callback_data: `order=${row.id}`,
      errors: [{ code: 131026, title: "Message undeliverable", message: "Message undeliverable", error_data: { details: "Message Undeliverable." } }],
    }));
    const body = JSON.stringify({
      object: "whatsapp_business_account",
      entry: [{ id: "0", changes: [{ field: "messages", value: { messaging_product: "whatsapp", metadata: { display_phone_number: "15550000000", phone_number_id: "1" }, statuses } }] }],
    });
    const signature = `sha256=${createHmac("sha256", APP_SECRET).update(body).digest("hex")}`;
    const started = performance.now();
    const response = await fetch(`${service.url}/webhooks/whatsapp`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-hub-signature-256": signature },
      body,
    });
    const callbackMs = performance.now() - started;
    if (response.status !== 200) throw new Error(`${label}: callback answered ${response.status} ${await response.text()}`);
    const expected = withPolicy ? "pending" : "failed";
    const counted = await service.database.pool.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM orders WHERE id = ANY($1::uuid[]) AND status = $2 AND delivery_status = 'failed'`,
      [ids, expected],
    );
    if (counted.rows[0].count !== FALLBACKS) throw new Error(`${label}: ${counted.rows[0].count} of ${FALLBACKS} orders ${expected}`);
    let sentMs = 0;
    if (withPolicy) {
      for (;;) {
        const { rows: [sent] } = await service.database.pool.query<{ count: number }>(
          `SELECT count(*)::int AS count FROM sms_messages WHERE order_id = ANY($1::uuid[]) AND state = 'sent'`,
          [ids],
        );
        if (sent.count === FALLBACKS) break;
        if (performance.now() - started > 300_000) throw new Error(`${label}: only ${sent.count} SMS sent after 5 minutes`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      sentMs = performance.now() - started;
    }
    log(`  ${FALLBACKS} failures in one notification, ${label}: callback ${callbackMs.toFixed(0)} ms${withPolicy ? `, all SMS sent after ${sentMs.toFixed(0)} ms` : ""}`);
    return { callbackMs, sentMs };
  };
  const baseline = await run("without policy", false);
  const fallback = await run("with SMS fallback", true);
  return [
    `| ${kind} | ${FALLBACKS} failed statuses in one Meta notification, orders failed (baseline) | ${baseline.callbackMs.toFixed(0)} ms |`,
    `| ${kind} | the same, SMS fallback (orders pending, SMS queued in the same transactions) | ${fallback.callbackMs.toFixed(0)} ms = ${(fallback.callbackMs / baseline.callbackMs).toFixed(2)}× baseline |`,
    `| ${kind} | … until all ${FALLBACKS} SMS were sent (test mode, simulated phone) | ${fallback.sentMs.toFixed(0)} ms (${((FALLBACKS * 1000) / fallback.sentMs).toFixed(0)} SMS/s) |`,
  ];
}

main().catch(async (error) => {
  console.error(error);
  await runCleanups().catch(() => undefined);
  process.exit(1);
});
