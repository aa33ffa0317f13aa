/**
 * Store connector benchmark (issue 22): in one run, on the same service and database,
 *
 *  1. inbound: Shopify `orders/create` webhooks (signed, through POST /webhooks/shopify, processed after the answer)
 *     until every order exists, against POST /api/v1/orders for as many orders at the same concurrency: throughput
 *     (orders created per second) and p99 (webhook: sent → order created; REST: request → 201). Goal ≥ 0.8×.
 *  2. write-back: the customers' answers going back as tagsAdd against a fake Shopify enforcing the Standard plan's
 *     limits (leaky bucket of 2,000 points restored at 100 points/s; tagsAdd costs 10): write-backs per second once
 *     the bucket is empty, against the plan's 10 per second. Goal: within 10 %, none lost (every order tagged once).
 *
 *   npm run bench:stores
 *   BENCH_ORDERS=300 BENCH_WRITEBACKS=400 BENCH_DATABASES=pglite npm run bench:stores
 */
import { randomBytes, randomUUID } from "node:crypto";
import { FakeShopify, shopifyOrder } from "../test/support/fake-shopify.ts";
import { exchangeCode } from "../src/providers/shopify/shopify-oauth.ts";
import { listEnv, log, numberEnv, provision, startBenchService, type DatabaseKind } from "./harness.ts";
import { benchOrderBody } from "./order-body.ts";

const settings = {
  orders: numberEnv("BENCH_ORDERS", 400),
  concurrency: numberEnv("BENCH_CONNECTIONS", 10),
  rounds: numberEnv("BENCH_ROUNDS", 2),
  writebacks: numberEnv("BENCH_WRITEBACKS", 450),
  databases: listEnv<DatabaseKind>("BENCH_DATABASES", ["pglite", "postgres"]),
};

const CLIENT_ID = "bench-app";
const CLIENT_SECRET = "bench-app-secret-0123456789";
const STANDARD = { maximumAvailable: 2000, restoreRate: 100 };
const TAG_COST = 10;

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? 0;
}

async function pool<T>(items: T[], concurrency: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await run(items[next++]);
  }));
}

async function runDatabase(kind: DatabaseKind): Promise<void> {
  const db = await provision(kind);
  if (!db) return;
  const fake = await new FakeShopify({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, bucket: STANDARD }).start();
  const service = await startBenchService(db, {
    SHOPIFY_CLIENT_ID: CLIENT_ID,
    SHOPIFY_CLIENT_SECRET: CLIENT_SECRET,
    SHOPIFY_SHOP_ORIGIN: fake.shopOrigin,
  });
  const { app, url } = service;
  const services = app.services;
  try {
    const created = await services.merchantService.createMerchant("Bench Store");
    const scope = { merchantId: created.merchant.id, mode: "test" as const };
    const shop = `bench-${randomBytes(3).toString("hex")}.myshopify.com`;
    fake.shop(shop).codes.add("bench-code");
    const credentials = await exchangeCode(
      { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, shopOrigin: fake.shopOrigin, scopes: "read_orders", timeoutMs: 10_000 },
      shop,
      "bench-code",
    );
    const connection = await services.stores.connect(scope, "shopify", shop, credentials, { kind: "USER", id: randomUUID() });
    if (!connection) throw new Error("could not connect the bench shop");
    const prisma = services.database.prisma;

    log(`\n## ${db.label}: ${settings.orders} orders per run, ${settings.concurrency} at a time, ${settings.rounds} rounds`);
    const rows: string[] = [];
    const ratios: number[] = [];
    for (let round = 1; round <= settings.rounds; round++) {
      // REST: POST /api/v1/orders.
      const restLatencies: number[] = [];
      let restFailed = 0;
      const restIds = Array.from({ length: settings.orders }, (_, i) => `BENCH-${round}-${i}-${randomBytes(3).toString("hex")}`);
      const restStart = performance.now();
      await pool(restIds, settings.concurrency, async (externalOrderId) => {
        const started = performance.now();
        const response = await fetch(`${url}/api/v1/orders`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": created.keys.test },
          body: JSON.stringify(benchOrderBody(externalOrderId)),
        });
        const body = (await response.json()) as { externalOrderId?: string };
        if (response.status !== 201 || body.externalOrderId !== externalOrderId) restFailed++;
        restLatencies.push(performance.now() - started);
      });
      const restSeconds = (performance.now() - restStart) / 1000;

      // Shopify webhooks: until every order exists (accepted).
      const orders = Array.from({ length: settings.orders }, () => shopifyOrder());
      const sentAt = new Map<string, number>();
      let webhookFailed = 0;
      const answerLatencies: number[] = [];
      const hookStart = performance.now();
      const wallStart = Date.now();
      await pool(orders, settings.concurrency, async (order) => {
        sentAt.set(`shopify:${order.id}`, Date.now());
        const started = performance.now();
        const response = await fake.sendOrder(`${url}/webhooks/shopify`, shop, order);
        if (response.status !== 200) webhookFailed++;
        await response.arrayBuffer();
        answerLatencies.push(performance.now() - started);
      });
      const externalIds = orders.map((order) => `shopify:${order.id}`);
      let done: { externalOrderId: string; createdAt: Date }[] = [];
      for (;;) {
        done = await prisma.order.findMany({
          where: { merchantId: scope.merchantId, externalOrderId: { in: externalIds }, sendState: "accepted" },
          select: { externalOrderId: true, createdAt: true },
        });
        if (done.length === orders.length || Date.now() - wallStart > 120_000) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const lastCreated = Math.max(...done.map((order) => order.createdAt.getTime()));
      const hookSeconds = (lastCreated - wallStart) / 1000 || (performance.now() - hookStart) / 1000;
      const hookLatencies = done.map((order) => order.createdAt.getTime() - sentAt.get(order.externalOrderId)!);
      const lost = orders.length - done.length;
      const restRate = settings.orders / restSeconds;
      const hookRate = done.length / hookSeconds;
      ratios.push(hookRate / restRate);
      rows.push(
        `| ${round} | ${restRate.toFixed(0)} | ${p99(restLatencies).toFixed(0)} | ${restFailed} | ${hookRate.toFixed(0)} | ${p99(answerLatencies).toFixed(0)} | ${p99(hookLatencies).toFixed(0)} | ${webhookFailed + lost} | ${(hookRate / restRate).toFixed(2)}× |`,
      );
    }
    log("\n| round | REST orders/s | REST p99 ms | REST failed | webhook orders/s | webhook answer p99 ms | webhook p99 ms (sent → created) | webhook failed/lost | ratio |");
    log("|---|---|---|---|---|---|---|---|---|");
    for (const row of rows) log(row);
    const sorted = ratios.sort((a, b) => a - b);
    const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    log(`\nwebhook/REST throughput: median ${median.toFixed(2)}× (goal ≥ 0.8×)`);

    // Write-back against the Standard plan: BENCH_WRITEBACKS store orders confirmed at once (more than the bucket's
    // first 200 tags, so the steady rate shows).
    const pendingNow = await prisma.order.count({ where: { merchantId: scope.merchantId, externalOrderId: { startsWith: "shopify:" }, status: "pending" } });
    const extra = Array.from({ length: Math.max(0, settings.writebacks - pendingNow) }, () => shopifyOrder());
    await pool(extra, settings.concurrency, async (order) => {
      await (await fake.sendOrder(`${url}/webhooks/shopify`, shop, order)).arrayBuffer();
    });
    for (const started = Date.now(); Date.now() - started < 120_000; ) {
      const ready = await prisma.order.count({ where: { merchantId: scope.merchantId, externalOrderId: { startsWith: "shopify:" }, status: "pending", sendState: "accepted" } });
      if (ready >= settings.writebacks) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const candidates = await prisma.order.findMany({
      where: { merchantId: scope.merchantId, externalOrderId: { startsWith: "shopify:" }, status: "pending" },
      select: { id: true, externalOrderId: true },
      take: settings.writebacks,
    });
    fake.calls.length = 0;
    // The bucket starts empty, so the whole run is at the plan's sustained rate (no initial burst of 200).
    fake.shop(shop).bucket.available = 0;
    fake.shop(shop).bucket.at = Date.now();
    const wbStart = Date.now();
    await pool(candidates, settings.concurrency, async (order) => {
      await services.orderService.applyCustomerAction(order.id, "approve");
    });
    const storeIds = candidates.map((order) => order.externalOrderId.slice("shopify:".length));
    for (;;) {
      const tagged = storeIds.filter((id) => fake.order(shop, id).tags.includes("cod-confirmed")).length;
      if (tagged === storeIds.length || Date.now() - wbStart > 15 * 60_000) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const tags = fake.calls.filter((call) => call.operationName === "TagsAdd");
    const throttled = fake.calls.filter((call) => call.operationName.endsWith(":THROTTLED")).length;
    const tagged = storeIds.filter((id) => fake.order(shop, id).tags.includes("cod-confirmed")).length;
    const doubles = storeIds.filter((id) => tags.filter((call) => call.variables.id.endsWith(`/${id}`)).length > 1).length;
    // From the confirmations to the last tag, with the bucket empty at the start: the sustained rate.
    const steadyRate = tags.length / ((tags.at(-1)!.at - wbStart) / 1000);
    const limit = STANDARD.restoreRate / TAG_COST;
    log(`\nwrite-back (Standard plan: ${STANDARD.restoreRate} points/s, bucket ${STANDARD.maximumAvailable}, tagsAdd = ${TAG_COST} points → ${limit}/s)`);
    log(`| write-backs | tagged | lost | tagged twice | THROTTLED answers | sustained rate /s | of the limit |`);
    log(`|---|---|---|---|---|---|---|`);
    log(`| ${storeIds.length} | ${tagged} | ${storeIds.length - tagged} | ${doubles} | ${throttled} | ${steadyRate.toFixed(2)} | ${((steadyRate / limit) * 100).toFixed(1)} % |`);
  } finally {
    await app.close();
    await fake.stop();
    await db.drop();
  }
}

for (const kind of settings.databases) await runDatabase(kind);
process.exit(0);
