import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { ISO_MS, ORDER_FIELDS, orderInput } from "../support/fixtures.ts";
import type { ApiClient } from "../support/api.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function place(client: ApiClient, overrides: Record<string, unknown> = {}) {
  const response = await client.post("/api/v1/orders", orderInput(overrides));
  expect(response.status, response.text).toBe(201);
  return response.body;
}

/** Newest first: createdAt descending, then id descending. */
function newestFirst(a: { createdAt: string; id: string }, b: { createdAt: string; id: string }) {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

async function list(client: ApiClient, query = "") {
  const response = await client.get(`/api/v1/orders${query ? `?${query}` : ""}`);
  expect(response.status, response.text).toBe(200);
  return response.body as { data: any[]; pagination: { limit: number; hasMore: boolean; nextCursor: string | null } };
}

/** Follows nextCursor to the end; returns every page. */
async function walk(client: ApiClient, query: string, between?: (page: number) => Promise<void>) {
  const pages: Awaited<ReturnType<typeof list>>[] = [];
  let cursor: string | null = null;
  do {
    const page = await list(client, `${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    pages.push(page);
    cursor = page.pagination.nextCursor;
    if (cursor && between) await between(pages.length);
    expect(pages.length).toBeLessThan(100);
  } while (cursor);
  return pages;
}

function expectValidationError(response: { status: number; body: any }, field: string) {
  expect(response.status).toBe(400);
  expect(Object.keys(response.body).sort()).toEqual(["details", "error", "errorCode", "failureReason", "message", "success"]);
  expect(response.body).toMatchObject({ success: false, error: "VALIDATION_ERROR", errorCode: null });
  expect(response.body.failureReason).toBe(response.body.message);
  expect(response.body.details.map((detail: { field: string }) => detail.field)).toEqual([field]);
  expect(typeof response.body.details[0].message).toBe("string");
  expect(response.body.message).toContain(field);
}

describe("GET /api/v1/orders: shape, order and pagination", () => {
  let shop: TestMerchant;
  let created: any[];

  beforeAll(async () => {
    shop = await server.merchant("List Shop");
    created = [];
    for (let i = 0; i < 23; i++) created.push(await place(shop.test, { externalOrderId: `LIST-${String(i).padStart(2, "0")}` }));
  });

  it("answers { data, pagination } newest first with a default limit of 20", async () => {
    const page = await list(shop.test);
    expect(Object.keys(page)).toEqual(["data", "pagination"]);
    expect(Object.keys(page.pagination).sort()).toEqual(["hasMore", "limit", "nextCursor"]);
    expect(page.pagination.limit).toBe(20);
    expect(page.pagination.hasMore).toBe(true);
    expect(typeof page.pagination.nextCursor).toBe("string");
    expect(page.data).toHaveLength(20);
    expect(page.data.map((order) => order.id)).toEqual([...created].reverse().slice(0, 20).map((order) => order.id));
    expect([...page.data].sort(newestFirst)).toEqual(page.data);
  });

  it("lists full orders with the seed's fields, as GET returns them", async () => {
    const page = await list(shop.test, "limit=1");
    const [order] = page.data;
    expect(Object.keys(order)).toEqual(ORDER_FIELDS);
    expect(order).not.toHaveProperty("note");
    expect(order.createdAt).toMatch(ISO_MS);
    expect(order).toEqual((await shop.test.get(`/api/v1/orders/${order.id}`)).body);
    expect(order).toEqual(created.at(-1));
  });

  it("walks every page with no duplicates and no gaps", async () => {
    const pages = await walk(shop.test, "limit=7");
    expect(pages.map((page) => page.data.length)).toEqual([7, 7, 7, 2]);
    expect(pages.map((page) => page.pagination.hasMore)).toEqual([true, true, true, false]);
    expect(pages.at(-1)!.pagination.nextCursor).toBeNull();
    for (const page of pages) expect(page.pagination.limit).toBe(7);
    const ids = pages.flatMap((page) => page.data.map((order) => order.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...created].reverse().map((order) => order.id));
  });

  it("has no trailing empty page when the last page is exactly full", async () => {
    const page = await list(shop.test, "limit=23");
    expect(page.data).toHaveLength(23);
    expect(page.pagination).toEqual({ limit: 23, hasMore: false, nextCursor: null });
    const pages = await walk(shop.test, "limit=1");
    expect(pages).toHaveLength(23);
  });

  it("accepts limits 1 and 100", async () => {
    expect((await list(shop.test, "limit=1")).data).toHaveLength(1);
    const page = await list(shop.test, "limit=100");
    expect(page.data).toHaveLength(23);
    expect(page.pagination).toEqual({ limit: 100, hasMore: false, nextCursor: null });
  });

  it.each(["0", "101", "abc", "-1", "1.5", "", "1e3"])("refuses limit=%j with VALIDATION_ERROR on field limit", async (limit) => {
    expectValidationError(await shop.test.get(`/api/v1/orders?limit=${limit}`), "limit");
  });

  it("describes a bad limit by its range, in English and Arabic", async () => {
    const en = await shop.test.get("/api/v1/orders?limit=0");
    expect(en.body.details[0].message).toBe("must be at least 1");
    const over = await shop.test.get("/api/v1/orders?limit=101");
    expect(over.body.details[0].message).toBe("must be at most 100");
    const ar = await shop.test.get("/api/v1/orders?limit=abc", { headers: { "accept-language": "ar" } });
    expectValidationError(ar, "limit");
    expect(ar.headers.get("content-language")).toBe("ar");
    expect(ar.body.details[0].message).toMatch(/[\u0600-\u06FF]/);
    expect(ar.body.message).toMatch(/[\u0600-\u06FF]/);
  });

  it("stays stable while new orders are inserted between page fetches", async () => {
    const before = [...created].reverse().map((order) => order.id);
    const inserted: string[] = [];
    const pages = await walk(shop.test, "limit=5", async () => {
      for (let i = 0; i < 3; i++) inserted.push((await place(shop.test)).id);
    });
    const ids = pages.flatMap((page) => page.data.map((order) => order.id));
    expect(inserted).toHaveLength(12);
    expect(ids).toEqual(before);
    for (const id of inserted) expect(ids).not.toContain(id);

    // A fresh walk starts with the new orders, newest first.
    const fresh = await list(shop.test, "limit=100");
    expect(fresh.data.map((order) => order.id)).toEqual([...[...inserted].reverse(), ...before]);
    created.push(...(await Promise.all(inserted.map(async (id) => (await shop.test.get(`/api/v1/orders/${id}`)).body))));
  });

  it("refuses a garbage or tampered cursor with VALIDATION_ERROR on field cursor", async () => {
    const { nextCursor } = (await list(shop.test, "limit=2")).pagination;
    expect(nextCursor).toBeTruthy();
    const decoded = Buffer.from(nextCursor!, "base64url").toString("utf8");
    const [iso, id] = decoded.split("|");
    const reencode = (text: string) => Buffer.from(text, "utf8").toString("base64url");
    const bad = [
      "garbage",
      "!!!",
      "%00",
      "x".repeat(300),
      (nextCursor![0] === "A" ? "B" : "A") + nextCursor!.slice(1),
      `${nextCursor}=`,
      reencode(`${iso}|${id}|extra`),
      reencode(`${iso}|not-a-uuid`),
      reencode(`${iso.replace(/\.\d{3}Z$/, "Z")}|${id}`),
      reencode(`tomorrow|${id}`),
      reencode(id),
    ];
    for (const cursor of bad) {
      expectValidationError(await shop.test.get(`/api/v1/orders?cursor=${encodeURIComponent(cursor)}`), "cursor");
    }
    // The genuine cursor still works.
    expect((await shop.test.get(`/api/v1/orders?limit=2&cursor=${encodeURIComponent(nextCursor!)}`)).status).toBe(200);
  });

  it("needs an API key", async () => {
    const response = await server.api.get("/api/v1/orders");
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ success: false, error: "UNAUTHORIZED" });
  });
});

describe("GET /api/v1/orders: filters", () => {
  let shop: TestMerchant;
  let all: any[];
  let byName: Record<string, any>;

  beforeAll(async () => {
    shop = await server.merchant("Filter Shop");
    byName = {};
    byName.pending = await place(shop.test, { externalOrderId: "F-pending", customerPhone: "966500000001" });
    await sleep(3);
    byName.pending2 = await place(shop.test, { externalOrderId: "F-pending-2", customerPhone: "966500000002" });
    await sleep(3);
    const confirmed = await place(shop.test, { externalOrderId: "F-confirmed", customerPhone: "966500000001" });
    expect((await shop.test.post(`/api/v1/test/orders/${confirmed.id}/customer-action`, { action: "approve" })).status).toBe(200);
    await sleep(3);
    const canceled = await place(shop.test, { externalOrderId: "F-canceled", customerPhone: "966500000002" });
    expect((await shop.test.delete(`/api/v1/orders/${canceled.id}`)).status).toBe(200);
    await sleep(3);
    const failed = await place(shop.test, { externalOrderId: "F-failed", customerPhone: "966500000001" });
    const failure = await shop.test.post(`/api/v1/test/orders/${failed.id}/delivery`, { status: "failed", errorCode: 131026 });
    expect(failure.status).toBe(200);
    await sleep(3);
    // Rejected synchronously by the simulated provider: stored failed, still listed.
    const rejected = await shop.test.post("/api/v1/orders", orderInput({ externalOrderId: "F-rejected", customerPhone: "999131030" }));
    expect(rejected.status).toBe(400);

    all = (await list(shop.test, "limit=100")).data;
    for (const order of all) byName[order.externalOrderId.slice(2)] = order;
    expect(all.map((order) => order.externalOrderId)).toEqual([
      "F-rejected",
      "F-failed",
      "F-canceled",
      "F-confirmed",
      "F-pending-2",
      "F-pending",
    ]);
    expect(all.map((order) => order.status)).toEqual(["failed", "failed", "canceled", "confirmed", "pending", "pending"]);
  });

  const refs = (page: { data: any[] }) => page.data.map((order) => order.externalOrderId);

  it("filters by one status", async () => {
    expect(refs(await list(shop.test, "status=pending"))).toEqual(["F-pending-2", "F-pending"]);
    expect(refs(await list(shop.test, "status=confirmed"))).toEqual(["F-confirmed"]);
    expect(refs(await list(shop.test, "status=canceled"))).toEqual(["F-canceled"]);
    expect(refs(await list(shop.test, "status=failed"))).toEqual(["F-rejected", "F-failed"]);
  });

  it("filters by repeated statuses", async () => {
    expect(refs(await list(shop.test, "status=confirmed&status=canceled"))).toEqual(["F-canceled", "F-confirmed"]);
    expect(refs(await list(shop.test, "status=pending&status=failed&status=pending"))).toEqual([
      "F-rejected",
      "F-failed",
      "F-pending-2",
      "F-pending",
    ]);
  });

  it("filters by comma-separated statuses, also mixed with repeats", async () => {
    expect(refs(await list(shop.test, "status=confirmed,failed"))).toEqual(["F-rejected", "F-failed", "F-confirmed"]);
    expect(refs(await list(shop.test, `status=${encodeURIComponent("confirmed, canceled")}&status=pending`))).toEqual([
      "F-canceled",
      "F-confirmed",
      "F-pending-2",
      "F-pending",
    ]);
  });

  it.each(["shipped", "pending,shipped", "PENDING", "approved"])("refuses status=%j", async (status) => {
    expectValidationError(await shop.test.get(`/api/v1/orders?status=${encodeURIComponent(status)}`), "status");
  });

  it("refuses an unknown status among repeated ones", async () => {
    expectValidationError(await shop.test.get("/api/v1/orders?status=pending&status=lost"), "status");
  });

  it("filters by externalOrderId, exactly", async () => {
    const page = await list(shop.test, "externalOrderId=F-pending");
    expect(page.data).toEqual([byName.pending]);
    expect(page.pagination).toEqual({ limit: 20, hasMore: false, nextCursor: null });
    expect((await list(shop.test, "externalOrderId=F-pend")).data).toEqual([]);
    expect((await list(shop.test, "externalOrderId=F-unknown")).data).toEqual([]);
  });

  it("filters by customerPhone, exactly", async () => {
    expect(refs(await list(shop.test, "customerPhone=966500000001"))).toEqual(["F-failed", "F-confirmed", "F-pending"]);
    expect(refs(await list(shop.test, "customerPhone=966500000002"))).toEqual(["F-canceled", "F-pending-2"]);
    expect(refs(await list(shop.test, "customerPhone=999131030"))).toEqual(["F-rejected"]);
    expect((await list(shop.test, "customerPhone=96650000000")).data).toEqual([]);
  });

  it("refuses a malformed customerPhone", async () => {
    expectValidationError(await shop.test.get(`/api/v1/orders?customerPhone=${encodeURIComponent("+966500000001")}`), "customerPhone");
    expectValidationError(await shop.test.get("/api/v1/orders?customerPhone=abc"), "customerPhone");
  });

  it("combines filters", async () => {
    expect(refs(await list(shop.test, "status=pending,failed&customerPhone=966500000001"))).toEqual(["F-failed", "F-pending"]);
    expect((await list(shop.test, "status=confirmed&externalOrderId=F-pending")).data).toEqual([]);
  });

  it("paginates a filtered list", async () => {
    const pages = await walk(shop.test, "status=failed,pending&limit=1");
    expect(pages.map((page) => page.data[0].externalOrderId)).toEqual(["F-rejected", "F-failed", "F-pending-2", "F-pending"]);
    expect(pages.map((page) => page.pagination.hasMore)).toEqual([true, true, true, false]);
  });

  it("createdFrom is inclusive and createdTo exclusive", async () => {
    const pivot = byName.confirmed;
    const expectedFrom = all.filter((order) => order.createdAt >= pivot.createdAt);
    const expectedTo = all.filter((order) => order.createdAt < pivot.createdAt);
    expect(expectedFrom).toContainEqual(pivot);
    expect(expectedTo).not.toContainEqual(pivot);
    expect(expectedTo.length).toBeGreaterThan(0);

    const from = await list(shop.test, `createdFrom=${encodeURIComponent(pivot.createdAt)}`);
    expect(from.data).toEqual(expectedFrom);
    const to = await list(shop.test, `createdTo=${encodeURIComponent(pivot.createdAt)}`);
    expect(to.data).toEqual(expectedTo);
    // from == to is an empty window.
    expect((await list(shop.test, `createdFrom=${pivot.createdAt}&createdTo=${pivot.createdAt}`)).data).toEqual([]);
  });

  it("windows by createdFrom and createdTo together, in any offset", async () => {
    const from = byName.pending2;
    const to = byName.failed;
    const window = await list(shop.test, `createdFrom=${encodeURIComponent(from.createdAt)}&createdTo=${encodeURIComponent(to.createdAt)}`);
    expect(window.data).toEqual(all.filter((order) => order.createdAt >= from.createdAt && order.createdAt < to.createdAt));
    expect(refs(window)).toContain("F-pending-2");
    expect(refs(window)).not.toContain("F-failed");

    // The same instant written with a +03:00 offset.
    const instant = new Date(new Date(from.createdAt).getTime() + 3 * 3600_000).toISOString().replace("Z", "+03:00");
    expect((await list(shop.test, `createdFrom=${encodeURIComponent(instant)}`)).data).toEqual(
      all.filter((order) => order.createdAt >= from.createdAt),
    );
    // Far bounds.
    expect((await list(shop.test, "createdFrom=2000-01-01T00:00:00Z&limit=100")).data).toEqual(all);
    expect((await list(shop.test, "createdTo=2000-01-01T00:00:00Z")).data).toEqual([]);
  });

  it.each([
    ["createdFrom", "yesterday"],
    ["createdFrom", "2026-13-01T00:00:00Z"],
    ["createdFrom", "2026-01-01"],
    ["createdTo", "1700000000000"],
    ["createdTo", "2026-01-01 10:00:00"],
  ])("refuses %s=%j", async (name, value) => {
    expectValidationError(await shop.test.get(`/api/v1/orders?${name}=${encodeURIComponent(value)}`), name);
  });
});

describe("GET /api/v1/orders: scoping", () => {
  let shop: TestMerchant;
  let testOrders: any[];
  let liveOrders: any[];

  beforeAll(async () => {
    shop = await server.merchant("Mode Shop");
    testOrders = [await place(shop.test, { externalOrderId: "M-1" }), await place(shop.test, { externalOrderId: "M-2" })];
    liveOrders = [];
    // Live mode without WhatsApp configured: 502, but the orders are stored failed.
    for (const externalOrderId of ["M-1", "L-2"]) {
      const response = await shop.live.post("/api/v1/orders", orderInput({ externalOrderId }));
      expect(response.status).toBe(502);
      expect(response.body).toMatchObject({ success: false, error: "PROVIDER_UNAVAILABLE" });
      liveOrders.push(response.body);
    }
  });

  it("lists test-mode orders only for the test key", async () => {
    const page = await list(shop.test);
    expect(page.data.map((order) => order.id)).toEqual([...testOrders].reverse().map((order) => order.id));
    expect(page.data.every((order) => order.status === "pending")).toBe(true);
  });

  it("lists live-mode orders (stored failed) only for the live key", async () => {
    const page = await list(shop.live);
    expect(page.data.map((order) => order.externalOrderId)).toEqual(["L-2", "M-1"]);
    for (const order of page.data) {
      expect(order).toMatchObject({ status: "failed", deliveryStatus: "failed", customerAction: null });
      expect(testOrders.map((test) => test.id)).not.toContain(order.id);
      expect((await shop.test.get(`/api/v1/orders/${order.id}`)).status).toBe(404);
      expect((await shop.live.get(`/api/v1/orders/${order.id}`)).body).toEqual(order);
    }
    expect((await list(shop.live, "status=pending")).data).toEqual([]);
  });

  it("keeps the same externalOrderId apart per mode", async () => {
    const test = await list(shop.test, "externalOrderId=M-1");
    const live = await list(shop.live, "externalOrderId=M-1");
    expect(test.data).toHaveLength(1);
    expect(live.data).toHaveLength(1);
    expect(test.data[0].id).toBe(testOrders[0].id);
    expect(live.data[0].id).not.toBe(test.data[0].id);
    expect(live.data[0].status).toBe("failed");
  });

  it("shows another merchant nothing, with either key and any filter", async () => {
    const other = await server.merchant("Other Mode Shop");
    for (const client of [other.test, other.live]) {
      for (const query of ["", "limit=100", "externalOrderId=M-1", "status=pending,failed", `customerPhone=${testOrders[0].customerPhone}`]) {
        const page = await list(client, query);
        expect(page.data).toEqual([]);
        expect(page.pagination.hasMore).toBe(false);
        expect(page.pagination.nextCursor).toBeNull();
      }
    }
    // A cursor from another merchant's list does not reveal anything either.
    const { nextCursor } = (await list(shop.test, "limit=1")).pagination;
    expect((await list(other.test, `cursor=${encodeURIComponent(nextCursor!)}`)).data).toEqual([]);
  });
});

describe("GET /api/v1/orders: the JSON text", () => {
  it("writes each listed order byte for byte as POST answered it (decimals, nulls, escapes, search too)", async () => {
    const shop = await server.merchant("Text Shop");
    const inputs = [
      orderInput({ externalOrderId: "TXT-plain" }),
      orderInput({
        externalOrderId: "TXT-tricky",
        customerName: 'Zoë "Q" \\ O\'Brien\t\u0001 <b> \u2028 😀 ليلى',
        customerAddress: undefined,
        subtotal: 1234567.8901,
        shippingCost: 0,
        totalCost: 1234567.8901,
        items: [
          { productName: "Line\nbreak \u001f name", quantity: 0.0001, unitPrice: 1000000, totalPrice: 100 },
          { productName: "Second", variantName: "", quantity: 3, unitPrice: 0.5, totalPrice: 1.5 },
          { productName: "Third", variantName: "L", quantity: 1, unitPrice: 999999999999.99, totalPrice: 999999999999.99 },
        ],
      }),
    ];
    const posted: string[] = [];
    for (const input of inputs) {
      const response = await shop.test.post("/api/v1/orders", input);
      expect(response.status, response.text).toBe(201);
      posted.push(response.text);
    }
    const page = await shop.test.get("/api/v1/orders?limit=5");
    expect(page.status).toBe(200);
    expect(page.text.startsWith(`{"data":[${[...posted].reverse().join(",")}],"pagination":`)).toBe(true);
    const searched = await shop.test.get("/api/v1/orders?search=TXT-tr");
    expect(searched.text.startsWith(`{"data":[${posted[1]}],"pagination":`)).toBe(true);
  });
});
