import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUTTON_PAYLOAD } from "../../src/domain/messaging/messaging-provider.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { orderInput } from "../support/fixtures.ts";
import { TEST_APP_SECRET, quickReplyCallback, sendCallback } from "../support/meta-callbacks.ts";

/** SPEC §12: the confirmation page over plain HTTP (the browser's view is confirmation-page-browser.spec.ts). */

let server: TestServer;
let shop: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  server = await startTestServer({ WHATSAPP_APP_SECRET: TEST_APP_SECRET });
  shop = await server.merchant("Dates & Co <Riyadh>");
  other = await server.merchant("Another Shop");
});
afterAll(() => server?.close());

async function place(client = shop.test, overrides: Record<string, unknown> = {}) {
  const response = await client.post("/api/v1/orders", orderInput(overrides));
  expect(response.status, response.text).toBe(201);
  const link = await client.get(`/api/v1/orders/${response.body.id}/confirmation-link`);
  expect(link.status, link.text).toBe(200);
  return { order: response.body, url: link.body.url as string };
}

const getPage = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers, redirect: "manual" });
const postPage = (url: string, action: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(url).origin, ...headers },
    body: new URLSearchParams({ action }).toString(),
  });
const timeline = async (id: string, client = shop.test) => (await client.get(`/api/v1/orders/${id}/timeline`)).body.data;
const events = async (id: string) => (await server.outbox(id)).map((event) => event.type);

describe("the link", () => {
  it("is an absolute URL on the public base with an unguessable token, the same on every read, REST and GraphQL", async () => {
    const { order, url } = await place();
    expect(url).toMatch(new RegExp(`^${server.baseUrl.replace("127.0.0.1", "localhost")}/c/[A-Za-z0-9_-]{43}$`));
    const again = await shop.test.get(`/api/v1/orders/${order.id}/confirmation-link`);
    expect(again.body.url).toBe(url);
    const graphql = await shop.test.post("/graphql", { query: `query($id: ID!) { order(id: $id) { confirmationUrl } }`, variables: { id: order.id } });
    expect(graphql.status, graphql.text).toBe(200);
    expect(graphql.body.data.order.confirmationUrl).toBe(url);
    // The token is not in the database.
    const token = url.split("/c/")[1];
    const { rows } = await server.app.services.database.pool.query(
      `SELECT count(*)::int AS n FROM orders WHERE row_to_json(orders)::text LIKE '%' || $1 || '%'`,
      [token],
    );
    expect(rows[0].n).toBe(0);
  });

  it("is 404 for another merchant's order, an unknown id, and 401 without a key", async () => {
    const { order } = await place();
    expect((await other.test.get(`/api/v1/orders/${order.id}/confirmation-link`)).status).toBe(404);
    expect((await shop.live.get(`/api/v1/orders/${order.id}/confirmation-link`)).status).toBe(404);
    expect((await shop.test.get(`/api/v1/orders/00000000-0000-7000-8000-000000000000/confirmation-link`)).status).toBe(404);
    expect((await shop.test.get(`/api/v1/orders/not-an-id/confirmation-link`)).status).toBe(404);
    expect((await server.api.get(`/api/v1/orders/${order.id}/confirmation-link`)).status).toBe(401);
  });

  it("uses PUBLIC_BASE_URL when set", async () => {
    const withBase = await startTestServer({ PUBLIC_BASE_URL: "https://confirm.example.com/shop/" });
    try {
      const merchant = await withBase.merchant();
      const created = await merchant.test.post("/api/v1/orders", orderInput());
      const link = await merchant.test.get(`/api/v1/orders/${created.body.id}/confirmation-link`);
      expect(link.body.url).toMatch(/^https:\/\/confirm\.example\.com\/shop\/c\/[A-Za-z0-9_-]{43}$/);
    } finally {
      await withBase.close();
    }
  });
});

describe("the page", () => {
  it("shows the shop, the reference, items, totals and address under a strict CSP, in the order's language by default", async () => {
    const { order, url } = await place(shop.test, { externalOrderId: "ORD-<b>1</b>" });
    const response = await getPage(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = response.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    expect(response.headers.get("referrer-policy")).toBe("same-origin");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    const html = await response.text();
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).toContain('<html lang="en" dir="ltr">');
    expect(html).not.toMatch(/<script|style=|\son\w+=|https?:\/\//i);
    expect(html).toContain("Dates &amp; Co &lt;Riyadh&gt;");
    expect(html).toContain("ORD-&lt;b&gt;1&lt;/b&gt;");
    expect(html).not.toContain("<b>1</b>");
    for (const text of ["Arabic coffee", "500 g", "Dates", "SAR", "164.99", "12 King Fahd Rd, Riyadh"]) expect(html).toContain(text);
    expect(html).toContain('name="action" value="approve"');
    expect(html).toContain('name="action" value="cancel"');
    expect(order.status).toBe("pending");
    const css = await fetch(new URL("assets/page.css", url));
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
  });

  it("speaks Arabic right to left from Accept-Language, and ?lang wins over it", async () => {
    const { url } = await place();
    const arabic = await (await getPage(url, { "accept-language": "ar-EG,ar;q=0.9" })).text();
    expect(arabic).toContain('<html lang="ar" dir="rtl">');
    expect(arabic).toContain("تأكيد الطلب");
    expect(arabic).toContain('href="?lang=en"');
    const english = await (await getPage(`${url}?lang=en`, { "accept-language": "ar" })).text();
    expect(english).toContain('<html lang="en" dir="ltr">');
    expect(english).toContain("Approve order");
    const forced = await (await getPage(`${url}?lang=ar`, { "accept-language": "en-US" })).text();
    expect(forced).toContain('dir="rtl"');
  });

  it("an Arabic order opens in Arabic when the browser names neither language", async () => {
    const created = await shop.test.post("/api/v1/orders", orderInput(), { headers: { "accept-language": "ar" } });
    const link = await shop.test.get(`/api/v1/orders/${created.body.id}/confirmation-link`);
    expect(await (await getPage(link.body.url, { "accept-language": "fr" })).text()).toContain('dir="rtl"');
  });

  it("an unknown, forged or malformed token is the 404 page", async () => {
    const { url } = await place();
    const token = url.split("/c/")[1];
    const forged = `${token.slice(0, 30)}${token[30] === "A" ? "B" : "A"}${token.slice(31)}`;
    for (const bad of [forged, "x", `${token}x`, "%00", "a".repeat(43)]) {
      const response = await getPage(`${server.baseUrl}/c/${bad}`);
      expect(response.status, bad).toBe(404);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(await response.text()).toContain("Page not found");
      expect((await postPage(`${server.baseUrl}/c/${bad}`, "approve")).status).toBe(404);
    }
    const arabic = await getPage(`${server.baseUrl}/c/${forged}?lang=ar`);
    expect(await arabic.text()).toContain("الصفحة غير موجودة");
  });
});

describe("the answer", () => {
  it("Approve acts like the customer's tap: confirmed, order.confirmed, timeline source customer via page; a repeat changes nothing", async () => {
    const { order, url } = await place();
    const response = await postPage(url, "approve");
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get("location")!, url);
    expect(location.href).toBe(`${url}?lang=en`);
    const after = (await shop.test.get(`/api/v1/orders/${order.id}`)).body;
    expect(after).toMatchObject({ status: "confirmed", customerAction: "approved" });
    expect(await events(order.id)).toEqual(["order.created", "order.confirmed"]);
    expect((await timeline(order.id)).at(-1)).toMatchObject({ kind: "approved", source: "customer", detail: { via: "page" } });

    const page = await (await getPage(location.href)).text();
    expect(page).toContain("your order is confirmed");
    expect(page).not.toContain("<form");
    // A double submit: the second POST is answered like the first and changes nothing.
    expect((await postPage(url, "cancel")).status).toBe(303);
    expect((await shop.test.get(`/api/v1/orders/${order.id}`)).body.status).toBe("confirmed");
    expect(await events(order.id)).toEqual(["order.created", "order.confirmed"]);
  });

  it("Cancel cancels; canceled, failed and expired orders show their status without buttons", async () => {
    const { order, url } = await place();
    expect((await postPage(url, "cancel")).status).toBe(303);
    expect((await shop.test.get(`/api/v1/orders/${order.id}`)).body).toMatchObject({ status: "canceled", customerAction: "canceled" });
    const canceled = await (await getPage(url)).text();
    expect(canceled).toContain("This order was canceled.");
    expect(canceled).not.toContain("<button");

    const failed = await place();
    await shop.test.post(`/api/v1/test/orders/${failed.order.id}/delivery`, { status: "failed", errorCode: 131049 });
    const failedPage = await (await getPage(failed.url)).text();
    expect(failedPage).toContain("can no longer be confirmed");
    expect(failedPage).not.toContain("<button");

    const expired = await place();
    await server.app.services.database.pool.query(`UPDATE orders SET status = 'expired' WHERE id = $1`, [expired.order.id]);
    const expiredPage = await (await getPage(`${expired.url}?lang=ar`)).text();
    expect(expiredPage).toContain("انتهت مهلة تأكيد هذا الطلب");
    expect(expiredPage).not.toContain("<button");
    expect((await postPage(expired.url, "approve")).status).toBe(303);
    expect((await shop.test.get(`/api/v1/orders/${expired.order.id}`)).body.status).toBe("expired");
  });

  it("a cross-site POST is 403 and changes nothing; same-origin and Origin-less requests are accepted", async () => {
    const { order, url } = await place();
    for (const headers of <Record<string, string>[]>[
      { origin: "https://evil.example" },
      { origin: "null" },
      { "sec-fetch-site": "cross-site" },
      { origin: new URL(url).origin, "sec-fetch-site": "cross-site" },
    ]) {
      const response = await postPage(url, "approve", headers);
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(await response.text()).toContain("Request refused");
    }
    expect((await shop.test.get(`/api/v1/orders/${order.id}`)).body.status).toBe("pending");
    expect(await events(order.id)).toEqual(["order.created"]);
    // The address the request was sent to (127.0.0.1 here, while PUBLIC_BASE_URL defaults to localhost).
    const direct = url.replace("localhost", "127.0.0.1");
    expect((await postPage(direct, "approve", { origin: server.baseUrl, "sec-fetch-site": "same-origin" })).status).toBe(303);
  });

  it("a bad form is a 400 page and changes nothing", async () => {
    const { order, url } = await place();
    expect((await postPage(url, "delete")).status).toBe(400);
    const json = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: '{"action":"approve"}' });
    expect([400, 415]).toContain(json.status);
    const huge = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `action=approve&pad=${"x".repeat(5000)}`,
    });
    expect(huge.status).toBe(400);
    expect((await shop.test.get(`/api/v1/orders/${order.id}`)).body.status).toBe("pending");
  });

  it("a WhatsApp tap racing the page's POST: one terminal state, one event", async () => {
    for (let round = 0; round < 5; round++) {
      const { order, url } = await place();
      const row = await server.app.services.database.prisma.order.findUniqueOrThrow({ where: { id: order.id } });
      const tap = quickReplyCallback({ wamid: row.providerMessageId!, payload: BUTTON_PAYLOAD.cancel(order.id) });
      const [page, whatsapp] = await Promise.all([postPage(url, "approve"), sendCallback(server.baseUrl, tap)]);
      expect(page.status).toBe(303);
      expect(whatsapp.status).toBe(200);
      const after = (await shop.test.get(`/api/v1/orders/${order.id}`)).body;
      expect(["confirmed", "canceled"]).toContain(after.status);
      const types = await events(order.id);
      expect(types).toEqual(["order.created", after.status === "confirmed" ? "order.confirmed" : "order.canceled"]);
      const answers = (await timeline(order.id)).filter((entry: any) => entry.kind === "approved" || entry.kind === "canceled");
      expect(answers).toHaveLength(1);
      expect(answers[0].detail.via).toBe(after.status === "confirmed" ? "page" : "whatsapp");
    }
  });

  it("a token of merchant A never reaches merchant B's data, and B's link shows B's order only", async () => {
    const a = await place(shop.test, { customerName: "Alpha Customer" });
    const b = await place(other.test, { customerName: "Beta Customer", items: [{ productName: "Beta item", quantity: 1, unitPrice: 164.99, totalPrice: 149.99 }] });
    const pageA = await (await getPage(a.url)).text();
    const pageB = await (await getPage(b.url)).text();
    expect(pageA).toContain("Dates &amp; Co");
    expect(pageA).not.toContain("Beta item");
    expect(pageB).toContain("Another Shop");
    expect(pageB).toContain("Beta item");
    // A's token with B's order id inside is a forgery.
    const tokens = server.app.services.confirmationPages;
    const forged = Buffer.concat([
      Buffer.from(b.order.id.replace(/-/g, ""), "hex"),
      Buffer.from(a.url.split("/c/")[1], "base64url").subarray(16),
    ]).toString("base64url");
    expect((await getPage(`${server.baseUrl}/c/${forged}`)).status).toBe(404);
    expect((await postPage(`${server.baseUrl}/c/${forged}`, "approve")).status).toBe(404);
    expect((await other.test.get(`/api/v1/orders/${b.order.id}`)).body.status).toBe("pending");
    expect(tokens.pathOf(b.order.id)).toBe(`/c/${b.url.split("/c/")[1]}`);
  });
});

describe("rate limit", () => {
  it("limits page requests per address to RATE_LIMIT_MAX per window with a 429 page", async () => {
    const limited = await startTestServer({ RATE_LIMIT_MAX: "3", RATE_LIMIT_WINDOW: "1 minute" });
    try {
      const merchant = await limited.merchant();
      const created = await merchant.test.post("/api/v1/orders", orderInput());
      const link = await merchant.test.get(`/api/v1/orders/${created.body.id}/confirmation-link`);
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await getPage(link.body.url)).status);
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
      expect(statuses.slice(3)).toEqual([429, 429]);
      const refused = await getPage(link.body.url, { "accept-language": "ar" });
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(refused.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(await refused.text()).toContain("طلبات كثيرة جدًا");
    } finally {
      await limited.close();
    }
  });
});
