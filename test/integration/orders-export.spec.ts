import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { csvCell } from "../../src/domain/orders/order-export.ts";
import { consoleSession, type ConsoleSession } from "../support/console.ts";
import { orderInput } from "../support/fixtures.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";

/**
 * SPEC §15 CSV export: GET /api/v1/orders/export with the list's filters, by API key or console session (admin,
 * agent; viewers refused), Excel-friendly (BOM, CRLF, RFC 4180 quoting, Arabic intact), formula-safe, with how
 * each order was answered. And the getting-started checklist, ticked from real data.
 */
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

const HEADER =
  "id,externalOrderId,status,customerAction,deliveryStatus,customerName,customerPhone,customerAddress,subtotal,shippingCost,totalCost,currency,createdAt,updatedAt,answeredAt,answeredVia";

let server: TestServer;
let shop: TestMerchant;
let agent: ConsoleSession;

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: "true" });
  shop = await server.merchant("CSV Shop");
  agent = await consoleSession(server, shop.id, "agent");
});

afterAll(async () => {
  await server?.close();
});

/** RFC 4180 parsing (quotes, doubled quotes, CRLF inside quotes): what a spreadsheet does with the file. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ",") row.push(cell), (cell = "");
    else if (char === "\r" && text[i + 1] === "\n") row.push(cell), rows.push(row), (row = []), (cell = ""), i++;
    else cell += char;
  }
  if (cell || row.length) throw new Error("the file does not end with CRLF");
  return rows;
}

async function download(path: string, headers: Record<string, string>) {
  const response = await fetch(new URL(path, server.baseUrl), { headers });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { response, bytes, text: bytes.toString("utf8") };
}

describe("GET /api/v1/orders/export", () => {
  it("exports the filtered list as Excel-friendly CSV with how each order was answered", async () => {
    const place = async (overrides: Record<string, unknown>) => {
      const response = await shop.test.post("/api/v1/orders", orderInput(overrides));
      expect(response.status, response.text).toBe(201);
      return response.body;
    };
    const arabic = await place({ externalOrderId: "AR-1", customerName: "محمد أحمد", customerAddress: "شارع التحرير، القاهرة", subtotal: 100, shippingCost: 25.5, totalCost: 125.5 });
    const formula = await place({ externalOrderId: "=1+2", customerName: "@SUM(A1)", customerAddress: 'Line 1\r\nLine "2", flat +3' });
    const minus = await place({ externalOrderId: "-42", customerName: "+Plus Name" });
    const canceledByMerchant = await place({ externalOrderId: "M-CANCEL" });
    const pending = await place({ externalOrderId: "PENDING" });
    expect((await shop.test.post(`/api/v1/test/orders/${arabic.id}/customer-action`, { action: "approve" })).status).toBe(200);
    expect((await shop.test.post(`/api/v1/orders/${formula.id}/customer-answer`, { action: "approve", channel: "phone" })).status).toBe(200);
    expect((await agent.graphql.query(`mutation ($id: ID!) { recordCustomerAnswer(orderId: $id, action: CANCEL, channel: IN_PERSON) { userErrors { code } } }`, { id: minus.id })).status).toBe(200);
    expect((await shop.test.delete(`/api/v1/orders/${canceledByMerchant.id}`)).status).toBe(200);

    const { response, bytes, text } = await download("/api/v1/orders/export", { "x-api-key": shop.keys.test });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="orders-test-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(response.headers.get("x-export-truncated")).toBe("false");
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(text.slice(1).startsWith(`${HEADER}\r\n`)).toBe(true);
    expect(text).not.toMatch(/[^\r]\n/);
    const [header, ...rows] = parseCsv(text.slice(1));
    expect(header.join(",")).toBe(HEADER);
    const byId = new Map(rows.map((row) => [row[0], Object.fromEntries(header.map((name, i) => [name, row[i]]))]));
    expect(rows.map((row) => row[1])).toEqual(["PENDING", "M-CANCEL", "'-42", "'=1+2", "AR-1"]);

    const ar = byId.get(arabic.id)!;
    expect(ar).toMatchObject({ status: "confirmed", customerAction: "approved", deliveryStatus: "read", customerName: "محمد أحمد", customerAddress: "شارع التحرير، القاهرة", subtotal: "100", shippingCost: "25.5", totalCost: "125.5", currency: "SAR", answeredVia: "whatsapp" });
    expect(ar.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(ar.answeredAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(byId.get(formula.id)).toMatchObject({ customerName: "'@SUM(A1)", customerAddress: 'Line 1\r\nLine "2", flat +3', answeredVia: "phone" });
    expect(byId.get(minus.id)).toMatchObject({ customerName: "'+Plus Name", status: "canceled", answeredVia: "in_person" });
    expect(byId.get(canceledByMerchant.id)).toMatchObject({ status: "canceled", customerAction: "canceled", answeredAt: "", answeredVia: "" });
    expect(byId.get(pending.id)).toMatchObject({ status: "pending", customerAction: "", deliveryStatus: "", answeredAt: "", answeredVia: "" });

    // The list's filters apply: confirmed only; a search; the live mode is its own.
    const confirmed = parseCsv((await download("/api/v1/orders/export?status=confirmed", { "x-api-key": shop.keys.test })).text.slice(1));
    expect(confirmed.slice(1).map((row) => row[1])).toEqual(["'=1+2", "AR-1"]);
    const searched = parseCsv((await download("/api/v1/orders/export?search=AR-", { "x-api-key": shop.keys.test })).text.slice(1));
    expect(searched.slice(1).map((row) => row[1])).toEqual(["AR-1"]);
    const live = parseCsv((await download("/api/v1/orders/export", { "x-api-key": shop.keys.live })).text.slice(1));
    expect(live).toEqual([header]);
  });

  it("accepts a console session (admin, agent) with mode=, refuses viewers, and streams past one batch", async () => {
    const big = await server.merchant("Batch shop");
    for (let i = 0; i < 30; i++) expect((await big.test.post("/api/v1/orders", orderInput({ externalOrderId: `B-${String(i).padStart(3, "0")}` }))).status).toBe(201);
    const admin = await consoleSession(server, big.id, "admin");
    const agentOfBig = await consoleSession(server, big.id, "agent");
    const viewer = await consoleSession(server, big.id, "viewer");
    // A batch of 7 rows: the export pages through the list like a client would.
    const all = [];
    for await (const chunk of exportChunks(big.id)) all.push(chunk);
    expect(all.length).toBeGreaterThan(4);
    const fromAgent = await download("/api/v1/orders/export?mode=test", { cookie: agentOfBig.cookie, "sec-fetch-site": "same-origin" });
    expect(fromAgent.response.status).toBe(200);
    const rows = parseCsv(fromAgent.text.slice(1)).slice(1);
    expect(rows.map((row) => row[1])).toEqual(Array.from({ length: 30 }, (_, i) => `B-${String(29 - i).padStart(3, "0")}`));
    expect(all.join("")).toBe(fromAgent.text);
    const liveOfAdmin = await download("/api/v1/orders/export?mode=live", { cookie: admin.cookie });
    expect(liveOfAdmin.response.status).toBe(200);
    expect(parseCsv(liveOfAdmin.text.slice(1))).toHaveLength(1);
    const refused = await download("/api/v1/orders/export", { cookie: viewer.cookie, "accept-language": "ar" });
    expect(refused.response.status).toBe(403);
    expect(JSON.parse(refused.text)).toMatchObject({ success: false, error: "FORBIDDEN" });
  });

  it("quotes and prefixes cells exactly as RFC 4180 and the formula rule say", () => {
    expect(csvCell(null)).toBe("");
    expect(csvCell("")).toBe("");
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
    expect(csvCell("=cmd|' /C calc'!A0")).toBe("'=cmd|' /C calc'!A0");
    expect(csvCell("+1")).toBe("'+1");
    expect(csvCell("-1")).toBe("'-1");
    expect(csvCell("@x")).toBe("'@x");
    expect(csvCell("=a,b")).toBe(`"'=a,b"`);
    expect(csvCell("a=b")).toBe("a=b");
  });
});

async function* exportChunks(merchantId: string): AsyncGenerator<string> {
  const { exportOrdersCsv } = await import("../../src/domain/orders/order-export.ts");
  yield* exportOrdersCsv(server.app.services.database.pool, { merchantId, mode: "test" }, {}, { batchRows: 7 });
}

describe("the getting-started checklist", () => {
  it("ticks each step from the merchant's data", async () => {
    const fresh = await server.merchant("New shop");
    const admin = await consoleSession(server, fresh.id, "admin");
    const read = async () => {
      const response = await admin.graphql.query("{ gettingStarted { remaining steps { key done } } }");
      expect(response.status).toBe(200);
      const { steps, remaining } = response.body.data.gettingStarted;
      return { remaining, done: steps.filter((step: any) => step.done).map((step: any) => step.key) };
    };
    const before = await read();
    expect(before).toEqual({ remaining: 6, done: [] });
    const order = await fresh.test.post("/api/v1/orders", orderInput());
    await fresh.test.post(`/api/v1/test/orders/${order.body.id}/customer-action`, { action: "approve" });
    await fresh.test.put("/api/v1/confirmation-policy", { reminders: [] });
    await fresh.test.post("/api/v1/webhook-endpoints", { url: "http://127.0.0.1:9/hooks" });
    const { eventually } = await import("../support/webhooks.ts");
    const after = await eventually(read, (value) => value.done.includes("CREATE_KEY"));
    expect(after).toEqual({ remaining: 2, done: ["TRY_SIMULATOR", "CREATE_KEY", "ADD_WEBHOOK", "SET_POLICY"] });
    // Agents do not see it (it is about keys, webhooks and settings).
    const agentOfFresh = await consoleSession(server, fresh.id, "agent");
    expect((await agentOfFresh.graphql.query("{ gettingStarted { remaining } }")).status).toBe(403);
  });
});
