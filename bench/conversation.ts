/**
 * Customers' own words (issue 20, SPEC §11): what a Meta notification of 1,000 inbound texts costs compared with
 * the same notification of 1,000 button taps, in the same run, on each database.
 *
 * For each database: 2,000 live orders are created through the service (the fake WhatsApp Cloud API answers the
 * sends), then two signed notifications are POSTed to /webhooks/whatsapp as Meta sends them:
 *   taps   1,000 quick-reply taps (APPROVE:<id>), each quoting its order's confirmation;
 *   texts  1,000 texts, mixed: 1/3 clear answers ("yes", "نعم", "الغاء"…) quoting a confirmation, 1/3 unclear
 *          questions quoting a confirmation (customer_message, event, automatic reply queued), 1/3 from phones
 *          with no order (no context: the phones' pending orders are looked up in one query; nothing stored).
 * Measured per notification: the time until Meta gets its 200 (everything is applied then), and the SQL
 * statements this process sent meanwhile (every pg client query, BEGIN/COMMIT included), per message. Every
 * answer is checked afterwards (order states, events, stored messages). Goal: texts ≤ 1.5× taps.
 *
 *   npm run bench:conversation                       both databases
 *   BENCH_DATABASES=pglite npm run bench:conversation
 */
import { request as httpRequest } from "node:http";
import pg from "pg";
import { FakeWhatsApp } from "../test/support/fake-whatsapp.ts";
import { TEST_APP_SECRET, sign } from "../test/support/meta-callbacks.ts";
import { BUTTON_PAYLOAD } from "../src/domain/messaging/messaging-provider.ts";
import { createOrderInput } from "../src/domain/orders/order.schemas.ts";
import { orderInput } from "../test/support/fixtures.ts";
import { cleanups, listEnv, log, markdownTable, numberEnv, provision, runCleanups, startBenchService, type DatabaseKind } from "./harness.ts";

const MESSAGES = numberEnv("BENCH_MESSAGES", 1_000);

/** Waits until the fake Graph API has received nothing new for 2 s. */
async function quiesce(fake: FakeWhatsApp): Promise<void> {
  let seen = -1;
  while (seen !== fake.requests.length) {
    seen = fake.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}

function post(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: "POST", headers: { ...headers, "content-length": Buffer.byteLength(body) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(body);
  });
}

/** Counts every statement any pg client of this process sends (Prisma's adapter and the plain pool alike). */
let statements = 0;
const originalQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  statements++;
  return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;

interface Row {
  database: string;
  kind: string;
  ms: number;
  statements: number;
}

function envelope(messages: unknown[]) {
  return {
    object: "whatsapp_business_account",
    entry: [{ id: "1", changes: [{ field: "messages", value: { messaging_product: "whatsapp", metadata: { phone_number_id: "1" }, messages } }] }],
  };
}

async function run(kind: DatabaseKind): Promise<Row[]> {
  const db = await provision(kind);
  if (!db) return [];
  cleanups.push(() => db.drop());
  const fake = await FakeWhatsApp.start();
  cleanups.push(() => fake.close());
  const service = await startBenchService(db, {
    WHATSAPP_API_URL: fake.apiUrl,
    WHATSAPP_PHONE_NUMBER_ID: "271828182845904",
    WHATSAPP_ACCESS_TOKEN: "EAAG-bench",
    WHATSAPP_APP_SECRET: TEST_APP_SECRET,
  });
  const { app } = service;
  const merchant = await app.services.merchantService.createMerchant("Bench Shop");
  const scope = { merchantId: merchant.merchant.id, mode: "live" as const };
  log(`${db.label}: creating ${2 * MESSAGES} live orders…`);
  const orders: { id: string; phone: string; wamid: string }[] = [];
  for (let first = 0; first < 2 * MESSAGES; first += 8) {
    const created = await Promise.all(
      Array.from({ length: Math.min(8, 2 * MESSAGES - first) }, (_, i) => {
        const phone = `96650${String(first + i).padStart(7, "0")}`;
        return app.services.orderService.create(scope, createOrderInput.parse(orderInput({ externalOrderId: `B-${first + i}`, customerPhone: phone })), "en");
      }),
    );
    orders.push(...created.map((order) => ({ id: order.id, phone: order.customerPhone, wamid: "" })));
  }
  const { rows } = await service.database.pool.query<{ id: string; provider_message_id: string }>(
    "SELECT id::text, provider_message_id FROM orders WHERE id = ANY($1::uuid[])",
    [orders.map((order) => order.id)],
  );
  const wamidOf = new Map(rows.map((row) => [row.id, row.provider_message_id]));
  for (const order of orders) order.wamid = wamidOf.get(order.id)!;
  const tapped = orders.slice(0, MESSAGES);
  const written = orders.slice(MESSAGES);
  const at = String(Math.floor(Date.now() / 1000));

  const taps = tapped.map((order, index) => ({
    from: order.phone, id: `wamid.TAP${index}`, timestamp: at, type: "button",
    context: { from: "15550102030", id: order.wamid }, button: { payload: BUTTON_PAYLOAD.approve(order.id), text: "Approve" },
  }));
  const third = Math.floor(MESSAGES / 3);
  const clearWords = ["yes", "نعم", "الغاء", "ok", "تمام", "cancel"];
  const texts = written.map((order, index) => {
    const base = { id: `wamid.TXT${index}`, timestamp: at, type: "text" };
    if (index < third) return { ...base, from: order.phone, context: { from: "15550102030", id: order.wamid }, text: { body: clearWords[index % clearWords.length] } };
    if (index < 2 * third) return { ...base, from: order.phone, context: { from: "15550102030", id: order.wamid }, text: { body: `Can you deliver on day ${index}?` } };
    return { ...base, from: `97150${String(index).padStart(7, "0")}`, text: { body: "yes" } };
  });

  const results: Row[] = [];
  for (const [name, messages] of [["taps", taps], ["texts", texts]] as const) {
    // Each notification starts on a quiet service: the previous one's background work (read receipts, automatic
    // replies, webhook fan-out) has finished, so neither pays for the other's.
    await quiesce(fake);
    const raw = JSON.stringify(envelope(messages));
    statements = 0;
    const started = performance.now();
    // node:http rather than fetch: a notification applied for minutes on a loaded machine must not hit fetch's
    // 300 s header timeout (Meta's own patience is not what is measured here).
    const response = await post(`${service.url}/webhooks/whatsapp`, raw, { "content-type": "application/json", "x-hub-signature-256": sign(raw) });
    const ms = performance.now() - started;
    const counted = statements;
    if (response.status !== 200) throw new Error(`${name}: ${response.status} ${response.text}`);
    results.push({ database: db.label, kind: name, ms, statements: counted });
    log(`${db.label}: ${name}: ${ms.toFixed(0)} ms, ${(counted / messages.length).toFixed(1)} statements per message`);
  }

  // Every answer checked: taps confirmed; clear texts confirmed or canceled; questions pending with one
  // customer_message each; strangers left no trace.
  const states = await service.database.pool.query<{ status: string; count: number }>(
    "SELECT status::text, count(*)::int AS count FROM orders WHERE id = ANY($1::uuid[]) GROUP BY status",
    [tapped.map((order) => order.id)],
  );
  if (states.rows.length !== 1 || states.rows[0].status !== "confirmed" || states.rows[0].count !== MESSAGES) throw new Error(`taps: ${JSON.stringify(states.rows)}`);
  const clear = written.slice(0, third).map((order) => order.id);
  const { rows: [{ answered }] } = await service.database.pool.query<{ answered: number }>(
    "SELECT count(*)::int AS answered FROM orders WHERE id = ANY($1::uuid[]) AND status IN ('confirmed', 'canceled')",
    [clear],
  );
  if (answered !== clear.length) throw new Error(`clear texts: ${answered} of ${clear.length} answered`);
  const unclear = written.slice(third, 2 * third).map((order) => order.id);
  const { rows: [{ events }] } = await service.database.pool.query<{ events: number }>(
    "SELECT count(*)::int AS events FROM order_events WHERE type = 'order.customer_message' AND order_id = ANY($1::uuid[])",
    [unclear],
  );
  if (events !== unclear.length) throw new Error(`unclear texts: ${events} customer_message events for ${unclear.length}`);
  const { rows: [{ stored }] } = await service.database.pool.query<{ stored: number }>(
    "SELECT count(*)::int AS stored FROM order_messages WHERE direction = 'inbound' AND kind = 'text'",
  );
  if (stored !== 2 * third) throw new Error(`stored texts: ${stored}, expected ${2 * third}`);
  await runCleanups();
  return results;
}

const rows: Row[] = [];
try {
  for (const kind of listEnv<DatabaseKind>("BENCH_DATABASES", ["pglite", "postgres"])) rows.push(...(await run(kind)));
} finally {
  await runCleanups();
}
const table: string[][] = [];
for (const database of [...new Set(rows.map((row) => row.database))]) {
  const taps = rows.find((row) => row.database === database && row.kind === "taps")!;
  const texts = rows.find((row) => row.database === database && row.kind === "texts")!;
  for (const row of [taps, texts]) {
    table.push([
      database, `${MESSAGES} ${row.kind}`, row.ms.toFixed(0), (row.ms / MESSAGES).toFixed(2), (row.statements / MESSAGES).toFixed(1),
      row === texts ? `${(texts.ms / taps.ms).toFixed(2)}×` : "1.00×",
    ]);
  }
}
console.log(markdownTable(["database", "notification", "ms to 200", "ms per message", "statements per message", "vs taps"], table, new Set([2, 3, 4])));
process.exit(0);
