import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { GraphQLClient } from "../support/graphql.ts";
import { consoleSession } from "../support/console.ts";
import { seedOrders, type SeedOrder } from "../support/order-seed.ts";

/**
 * Prefix search of the order list (REST `search`, GraphQL `OrderFilter.search`) over real HTTP: each field,
 * prefix only, case, literal wildcards, combined with the other filters and keyset pagination.
 */
let server: TestServer;
let shop: TestMerchant;
let other: TestMerchant;
const idsByExternal = new Map<string, string>();

const minute = (n: number) => new Date(Date.UTC(2026, 2, 1, 12, n)).toISOString();

const SHOP_ORDERS: SeedOrder[] = [
  { externalOrderId: "ORD-100", customerName: "Layla Hassan", customerPhone: "966501111111", createdAt: minute(1) },
  { externalOrderId: "ORD-101", customerName: "layla Omar", customerPhone: "966502222222", createdAt: minute(2) },
  { externalOrderId: "ORD-2000", customerName: "Omar Said", customerPhone: "201001234567", createdAt: minute(3) },
  { externalOrderId: "X%_1", customerName: "Percent Guy", customerPhone: "971500000001", createdAt: minute(4) },
  { externalOrderId: "X_1", customerName: "Under Score", customerPhone: "971500000002", createdAt: minute(5) },
  { externalOrderId: "X1", customerName: "Xavier", customerPhone: "971500000003", createdAt: minute(6) },
  { externalOrderId: "A\\B", customerName: "Back Slash", customerPhone: "971500000004", createdAt: minute(7) },
  { externalOrderId: "ORD-102", customerName: "Sara", customerPhone: "966501111112", createdAt: minute(8), status: "confirmed", answer: { by: "customer", at: minute(9) } },
  { externalOrderId: "HIDDEN-1", customerName: "Layla Sending", customerPhone: "966501111113", createdAt: minute(9), sendState: "sending" },
  { externalOrderId: "ORD-103", mode: "live", customerName: "Layla Live", customerPhone: "966501111114", createdAt: minute(10) },
];

// 25 orders of one customer for paging: pairs share a createdAt (the id breaks the tie); every third is confirmed.
const PAGER_ORDERS: SeedOrder[] = Array.from({ length: 25 }, (_, i) => ({
  externalOrderId: `PAGE-${String(i).padStart(2, "0")}`,
  customerName: "Pager Person",
  customerPhone: "966509999999",
  createdAt: minute(20 + Math.floor(i / 2)),
  ...(i % 3 === 0 ? { status: "confirmed" as const, answer: { by: "customer" as const, at: minute(59) } } : {}),
}));

async function search(client: TestMerchant["test"], params: Record<string, string>) {
  const response = await client.get(`/api/v1/orders?${new URLSearchParams(params)}`);
  expect(response.status, response.text).toBe(200);
  return response.body as { data: any[]; pagination: { hasMore: boolean; nextCursor: string | null } };
}

/** The externalOrderIds a REST search finds on its first page (newest first). */
async function found(text: string, extra: Record<string, string> = {}) {
  return (await search(shop.test, { search: text, limit: "100", ...extra })).data.map((order) => order.externalOrderId);
}

const ORDERS = `query Page($first: Int, $after: String, $filter: OrderFilter) {
  orders(first: $first, after: $after, filter: $filter) {
    edges { cursor node { id externalOrderId status } } pageInfo { hasNextPage endCursor } totalCount
  }
}`;

beforeAll(async () => {
  server = await startTestServer();
  shop = await server.merchant("Search Shop");
  other = await server.merchant("Other Shop");
  const ids = await seedOrders(server, shop.id, [...SHOP_ORDERS, ...PAGER_ORDERS]);
  [...SHOP_ORDERS, ...PAGER_ORDERS].forEach((order, i) => idsByExternal.set(order.externalOrderId!, ids[i]));
  await seedOrders(server, other.id, [
    { externalOrderId: "ORD-100", customerName: "Layla Elsewhere", customerPhone: "966501111111", createdAt: minute(1) },
  ]);
});
afterAll(() => server?.close());

describe("search: what matches", () => {
  it("finds by externalOrderId prefix (case-sensitive), newest first", async () => {
    expect(await found("ORD-1")).toEqual(["ORD-102", "ORD-101", "ORD-100"]);
    expect(await found("ORD-2000")).toEqual(["ORD-2000"]);
    expect(await found("ord-1")).toEqual([]);
  });

  it("finds by customerPhone prefix, with or without a leading +", async () => {
    expect(await found("96650111")).toEqual(["ORD-102", "ORD-100"]);
    expect(await found("+96650111")).toEqual(["ORD-102", "ORD-100"]);
    expect(await found("2010")).toEqual(["ORD-2000"]);
  });

  it("finds by customerName prefix ignoring case", async () => {
    expect(await found("layla")).toEqual(["ORD-101", "ORD-100"]);
    expect(await found("LAYLA H")).toEqual(["ORD-100"]);
    expect(await found("  omar ")).toEqual(["ORD-2000"]); // trimmed
  });

  it("matches prefixes only, never the middle of a field", async () => {
    expect(await found("Hassan")).toEqual([]);
    expect(await found("2000")).toEqual([]);
    expect(await found("1111")).toEqual([]);
  });

  it("takes % and _ and \\ literally", async () => {
    expect(await found("X%")).toEqual(["X%_1"]);
    expect(await found("X_")).toEqual(["X_1"]);
    expect(await found("%")).toEqual([]);
    expect(await found("_")).toEqual([]);
    expect(await found("A\\")).toEqual(["A\\B"]);
    expect(await found("A\\B")).toEqual(["A\\B"]);
  });

  it("stays in the caller's merchant and mode, and never shows an order still being sent", async () => {
    expect(await found("Layla")).not.toContain("HIDDEN-1");
    const others = await search(other.test, { search: "ORD-100" });
    expect(others.data.map((order) => order.customerName)).toEqual(["Layla Elsewhere"]);
    const live = await search(shop.live, { search: "layla" });
    expect(live.data.map((order) => order.externalOrderId)).toEqual(["ORD-103"]);
  });

  it("answers full orders, as the plain list does", async () => {
    const [viaSearch] = (await search(shop.test, { search: "ORD-2000" })).data;
    const viaGet = await shop.test.get(`/api/v1/orders/${idsByExternal.get("ORD-2000")}`);
    expect(viaSearch).toEqual(viaGet.body);
  });
});

describe("search with filters and pagination", () => {
  it("walks every match page by page, newest first, without repeats", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await search(shop.test, { search: "pager", limit: "10", ...(cursor ? { cursor } : {}) });
      seen.push(...page.data.map((order) => order.externalOrderId));
      cursor = page.pagination.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(25);
    const expected = PAGER_ORDERS.map((order) => ({ ext: order.externalOrderId!, id: idsByExternal.get(order.externalOrderId!)!, at: order.createdAt }))
      .sort((a, b) => (a.at !== b.at ? (a.at < b.at ? 1 : -1) : a.id < b.id ? 1 : -1))
      .map((order) => order.ext);
    expect(seen).toEqual(expected);
  });

  it("combines with status, createdFrom/createdTo and the exact filters", async () => {
    const confirmed = await found("pager", { status: "confirmed" });
    expect(confirmed).toHaveLength(9);
    expect(confirmed.every((ext) => Number(ext.slice(5)) % 3 === 0)).toBe(true);
    expect(await found("9665", { status: "confirmed,pending", createdTo: minute(8) })).toEqual(["ORD-101", "ORD-100"]);
    expect(await found("9665", { createdFrom: minute(2), createdTo: minute(9) })).toEqual(["ORD-102", "ORD-101"]);
    expect(await found("layla", { customerPhone: "966502222222" })).toEqual(["ORD-101"]);
    expect(await found("layla", { externalOrderId: "ORD-100" })).toEqual(["ORD-100"]);
  });

  it("answers the same pages over GraphQL, with totalCount", async () => {
    const client = new GraphQLClient(server.baseUrl, shop.keys.test);
    const first = await client.query(ORDERS, { first: 10, filter: { search: "Pager", status: ["CONFIRMED"] } });
    expect(first.body.errors, first.text).toBeUndefined();
    const connection = first.body.data.orders;
    expect(connection.totalCount).toBe(9);
    expect(connection.pageInfo.hasNextPage).toBe(false);
    expect(connection.edges.map((edge: any) => edge.node.externalOrderId)).toEqual(await found("pager", { status: "confirmed" }));
    const page1 = await client.query(ORDERS, { first: 10, filter: { search: "pager" } });
    const rest1 = await search(shop.test, { search: "pager", limit: "10" });
    expect(page1.body.data.orders.edges.map((edge: any) => edge.node.id)).toEqual(rest1.data.map((order) => order.id));
    expect(page1.body.data.orders.pageInfo.endCursor).toBe(rest1.pagination.nextCursor);
    expect(page1.body.data.orders.totalCount).toBe(25);
    const page2 = await client.query(ORDERS, { first: 10, after: page1.body.data.orders.pageInfo.endCursor, filter: { search: "pager" } });
    const rest2 = await search(shop.test, { search: "pager", limit: "10", cursor: rest1.pagination.nextCursor! });
    expect(page2.body.data.orders.edges.map((edge: any) => edge.node.id)).toEqual(rest2.data.map((order) => order.id));
  });

  it("lets a console viewer search", async () => {
    const viewer = await consoleSession(server, shop.id, "viewer");
    const response = await viewer.graphql.query(ORDERS, { filter: { search: "X_" } });
    expect(response.body.data.orders.edges.map((edge: any) => edge.node.externalOrderId)).toEqual(["X_1"]);
  });
});

describe("search refusals", () => {
  const bad: [string, string, string][] = [
    ["an empty text", "", "field.string.min"],
    ["only spaces", "   ", "field.string.min"],
    ["101 characters", "a".repeat(101), "field.string.max"],
    ["a NUL", "ORD\u0000", "field.format.no_nul"],
  ];

  it.each(bad)("REST answers 400 VALIDATION_ERROR for %s", async (_name, text) => {
    const response = await shop.test.get(`/api/v1/orders?${new URLSearchParams({ search: text })}`, { headers: { "accept-language": "ar" } });
    expect(response.status, response.text).toBe(400);
    expect(response.body).toMatchObject({ error: "VALIDATION_ERROR" });
    expect(response.body.details.map((detail: any) => detail.field)).toEqual(["search"]);
    expect(response.body.message).toMatch(/[\u0600-\u06FF]/);
  });

  it.each(bad)("GraphQL answers BAD_USER_INPUT for %s", async (_name, text) => {
    const response = await new GraphQLClient(server.baseUrl, shop.keys.test).query(ORDERS, { filter: { search: text } });
    // A NUL in any variable is refused before execution by the storability guard, naming the variable's path.
    const expected = text.includes("\u0000")
      ? { code: "BAD_USER_INPUT", field: ["variables", "filter", "search"] }
      : { code: "BAD_USER_INPUT", details: [{ field: ["filter", "search"] }] };
    expect(response.body.errors?.[0].extensions).toMatchObject(expected);
  });

  it("accepts 100 characters, and a NUL in the exact externalOrderId filter is refused too", async () => {
    expect((await search(shop.test, { search: "a".repeat(100) })).data).toEqual([]);
    const response = await shop.test.get(`/api/v1/orders?${new URLSearchParams({ externalOrderId: "ORD\u0000" })}`);
    expect(response.status).toBe(400);
    expect(response.body.details.map((detail: any) => detail.field)).toEqual(["externalOrderId"]);
  });
});
