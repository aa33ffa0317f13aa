/**
 * Store webhook benchmark (SPEC §13): orders arriving as signed store webhooks (WooCommerce `order.created`,
 * Salla `order.created`) against the same orders created with POST /api/v1/orders, in the same run, on embedded
 * PGlite and on PostgreSQL. The goal: each platform's inbound path keeps ≥ 0.8× the REST rate.
 *
 * What is timed, per scenario: N orders sent by C concurrent keep-alive clients, from the first request until the
 * last order exists. REST creates the order in its request; a store webhook is verified, recorded and answered at
 * once (stores give up on slow receivers), and the intake worker creates the order after the answer, so the store
 * rows are timed until the intake has created all N. Every answer is checked (201 / 200), and every order must
 * exist exactly once with its `<platform>:<id>` externalOrderId. The stores are the test fakes (real HTTP).
 *
 *   npm run bench:store-platforms
 *   BENCH_STORE_ORDERS=200 BENCH_ROUNDS=1 BENCH_DATABASES=pglite npm run bench:store-platforms     # quick check
 */
import { randomBytes, randomUUID } from "node:crypto";
import os from "node:os";
import { signSallaBody } from "../src/providers/salla/webhook-signature.ts";
import { signWooCommerceBody } from "../src/providers/woocommerce/webhook-signature.ts";
import { FakeSalla } from "../test/support/fake-salla.ts";
import { FakeWooCommerce } from "../test/support/fake-woocommerce.ts";
import { phpJson } from "../test/support/store-fake-http.ts";
import {
  cleanups,
  listEnv,
  log,
  markdownTable,
  numberEnv,
  provision,
  runCleanups,
  startBenchService,
  type BenchService,
  type DatabaseKind,
} from "./harness.ts";
import { benchOrderBody } from "./order-body.ts";

type Scenario = "rest" | "woocommerce" | "salla";

const settings = {
  orders: numberEnv("BENCH_STORE_ORDERS", 300),
  concurrency: numberEnv("BENCH_CONNECTIONS", 10),
  /** 3: each scenario runs once in each position (the one after REST inherits its trailing simulator events). */
  rounds: numberEnv("BENCH_ROUNDS", 3),
  /** Pause between scenarios, so one's trailing work (simulated delivery receipts, write-backs) is not the next's. */
  settleMs: numberEnv("BENCH_SETTLE_MS", 3_000, { min: 0 }),
  databases: listEnv<DatabaseKind>("BENCH_DATABASES", ["pglite", "postgres"]),
  /** REST always runs (the platforms are compared with it); `BENCH_PLATFORMS=salla` times Salla alone against it. */
  platforms: listEnv<"woocommerce" | "salla">("BENCH_PLATFORMS", ["woocommerce", "salla"]),
  /** The goal for each platform against REST. */
  goal: 0.8,
};

interface Run {
  database: string;
  scenario: Scenario;
  round: number;
  ordersPerSecond: number;
}

/** Sends every request with `concurrency` clients; each answer must have `expected` status. */
async function sendAll(requests: { url: string; body: string; headers: Record<string, string> }[], expected: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const request = requests[next++];
      // The platform fetch keeps connections alive: each client reuses its socket, as a store's sender would.
      const response = await fetch(request.url, { method: "POST", body: request.body, headers: request.headers });
      const text = await response.text();
      if (response.status !== expected) throw new Error(`${request.url} answered ${response.status} (expected ${expected}): ${text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: settings.concurrency }, worker));
}

async function countOrders(service: BenchService, prefix: string): Promise<number> {
  return service.app.services.database.prisma.order.count({ where: { externalOrderId: { startsWith: prefix } } });
}

/**
 * Resolves when `count` order.created events with the prefix have been published (the bus fires after each
 * order's transaction commits): no polling load on the database while the intake works.
 */
function ordersCreated(service: BenchService, prefix: string, count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = 0;
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`only ${seen} of ${count} orders for ${prefix} after 300 s`));
    }, 300_000);
    const unsubscribe = service.app.services.bus.subscribe((event) => {
      const data = event.envelope.data as { externalOrderId?: string };
      if (event.envelope.event !== "order.created" || !data.externalOrderId?.startsWith(prefix)) return;
      if (++seen === count) {
        clearTimeout(timer);
        unsubscribe();
        resolve();
      }
    });
  });
}

async function benchDatabase(kind: DatabaseKind, runs: Run[]): Promise<void> {
  const db = await provision(kind);
  if (!db) return;
  cleanups.push(() => db.drop());
  const woo = await FakeWooCommerce.start();
  cleanups.push(() => woo.close());
  const salla = await FakeSalla.start();
  cleanups.push(() => salla.close());
  const service = await startBenchService(db, {
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    SALLA_CLIENT_ID: salla.clientId,
    SALLA_CLIENT_SECRET: salla.clientSecret,
    SALLA_WEBHOOK_SECRET: salla.webhookSecret,
    SALLA_API_URL: salla.apiUrl,
    SALLA_AUTH_URL: salla.authUrl,
  });
  const { services } = service.app;

  const created = await services.merchantService.createMerchant("Bench stores");
  const scope = { merchantId: created.merchant.id, mode: "test" as const };
  const key = created.keys.test;

  const wooConnection = await services.wooCommerce.connect(scope, { url: woo.url, consumerKey: woo.consumerKey, consumerSecret: woo.consumerSecret }, { kind: "USER", id: randomUUID() } /* a console user (the audit log reads users by uuid) */);
  const wooSecret = woo.webhook.secret;
  const sallaStore = 424242;
  const { code } = await services.sallaLinks!.createCode(scope);
  await salla.deliver(`${service.url}/webhooks/salla`, salla.event("app.store.authorize", sallaStore, salla.install(sallaStore)));
  await salla.deliver(`${service.url}/webhooks/salla`, salla.event("app.settings.updated", sallaStore, { settings: { link_code: code } }));
  if ((await services.stores.list(scope)).length !== 2) throw new Error("the stores did not connect");

  let batch = 0;
  type Request = { url: string; body: string; headers: Record<string, string> };
  const build = (scenario: Scenario, prefix: string): Request[] => {
    return Array.from({ length: settings.orders }, (_, i): Request => {
      const id = `${prefix}${i}`;
      if (scenario === "rest") {
        return {
          url: `${service.url}/api/v1/orders`,
          body: JSON.stringify(benchOrderBody(`bench-rest:${id}`)),
          headers: { "content-type": "application/json", "x-api-key": key },
        };
      }
      if (scenario === "woocommerce") {
        const body = phpJson(woo.order({ id: Number(id) }));
        return {
          url: `${service.url}/webhooks/woocommerce/${wooConnection.id}`,
          body,
          headers: {
            "content-type": "application/json",
            "x-wc-webhook-topic": "order.created",
            "x-wc-webhook-delivery-id": randomBytes(16).toString("hex"),
            "x-wc-webhook-signature": signWooCommerceBody(body, wooSecret),
          },
        };
      }
      const body = phpJson(salla.event("order.created", sallaStore, salla.orderData({ id: Number(id) })));
      return {
        url: `${service.url}/webhooks/salla`,
        body,
        headers: { "content-type": "application/json", "x-salla-signature": signSallaBody(body, salla.webhookSecret) },
      };
    });
  };
  const externalPrefix = (scenario: Scenario, prefix: string) => (scenario === "rest" ? `bench-rest:${prefix}` : `${scenario}:${prefix}`);

  const order: Scenario[] = ["rest", ...settings.platforms];
  for (let round = 1; round <= settings.rounds + 1; round++) {
    // Round 0 warms up (results discarded); then the order rotates so no scenario always goes first.
    const scenarios = order.map((_, i) => order[(i + round - 1) % order.length]);
    for (const scenario of scenarios) {
      await new Promise((resolve) => setTimeout(resolve, settings.settleMs));
      batch++;
      // Numeric ids (stores' ids are integers): a distinct range per batch.
      const prefix = String(batch * 10 + 1);
      const requests = build(scenario, prefix);
      const created = ordersCreated(service, externalPrefix(scenario, prefix), settings.orders);
      const started = performance.now();
      await sendAll(requests, scenario === "rest" ? 201 : 200);
      const answered = performance.now();
      await created;
      const ended = performance.now();
      const seconds = (ended - started) / 1000;
      const stored = await countOrders(service, externalPrefix(scenario, prefix));
      if (stored !== settings.orders) throw new Error(`${stored} orders for ${scenario}, expected ${settings.orders}`);
      if (round === 1) {
        log(`  warm-up ${scenario}: ${(settings.orders / seconds).toFixed(0)} orders/s`);
        continue;
      }
      const ordersPerSecond = settings.orders / seconds;
      runs.push({ database: db.label, scenario, round: round - 1, ordersPerSecond });
      // For a store, how long its webhooks took to answer, and how long the intake ran on after the last answer.
      const split = scenario === "rest" ? "" : ` (answered in ${((answered - started) / 1000).toFixed(2)} s, last order ${((ended - answered) / 1000).toFixed(2)} s later)`;
      log(`  ${db.kind} round ${round - 1} ${scenario}: ${ordersPerSecond.toFixed(0)} orders/s${split}`);
    }
  }
  // Redeliveries created nothing more, and every store order is there once.
  for (const platform of settings.platforms) {
    const stored = await services.database.prisma.order.count({ where: { externalOrderId: { startsWith: `${platform}:` } } });
    if (stored !== (settings.rounds + 1) * settings.orders) throw new Error(`${stored} ${platform} orders, expected ${(settings.rounds + 1) * settings.orders}`);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

async function main(): Promise<void> {
  log(`Store webhooks vs POST /api/v1/orders: ${settings.orders} orders × ${settings.rounds} rounds, ${settings.concurrency} clients; ${os.cpus().length} CPUs`);
  const runs: Run[] = [];
  try {
    for (const kind of settings.databases) {
      log(`\n${kind}`);
      await benchDatabase(kind, runs);
      await runCleanups();
    }
  } finally {
    await runCleanups();
  }
  // The machine is shared and its speed drifts: each platform is compared with the REST run of the same round
  // (adjacent in time), and the median of those ratios is the result; the medians of the rates are shown too.
  const rows: string[][] = [];
  let met = true;
  for (const database of [...new Set(runs.map((run) => run.database))]) {
    const of = (scenario: Scenario) => runs.filter((run) => run.database === database && run.scenario === scenario);
    const rest = of("rest");
    rows.push([database, "POST /api/v1/orders", median(rest.map((run) => run.ordersPerSecond)).toFixed(0), "1.00", ""]);
    for (const platform of settings.platforms) {
      const ratios = of(platform).map((run) => run.ordersPerSecond / rest.find((other) => other.round === run.round)!.ordersPerSecond);
      const ratio = median(ratios);
      if (ratio < settings.goal) met = false;
      rows.push([
        database,
        `${platform} order.created webhook`,
        median(of(platform).map((run) => run.ordersPerSecond)).toFixed(0),
        ratio.toFixed(2),
        `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`,
      ]);
    }
  }
  process.stdout.write(`\n${markdownTable(["Database", "Path", "Orders/s (median)", "× REST (median of rounds)", "× REST per round"], rows, new Set([2, 3]))}\n`);
  process.stdout.write(`\nGoal ≥ ${settings.goal}× REST: ${met ? "met" : "NOT met"}\n`);
}

await main();
