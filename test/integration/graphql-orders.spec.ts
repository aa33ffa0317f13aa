import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import pg from "pg";
import { getIntrospectionQuery } from "graphql";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { asGraphQLOrder, GraphQLClient, ORDER_SELECTION } from "../support/graphql.ts";
import { orderInput } from "../support/fixtures.ts";

/**
 * /graphql over real HTTP against a real database: queries, mutations and their userErrors, tenant isolation,
 * authentication, limits and hardening, and the number of statements a page of orders costs.
 */
let server: TestServer;
let shop: TestMerchant;
let gql: GraphQLClient;
let anonymous: GraphQLClient;

beforeAll(async () => {
  server = await startTestServer();
  shop = await server.merchant("GraphQL Shop");
  anonymous = new GraphQLClient(server.baseUrl);
  gql = anonymous.withKey(shop.keys.test);
});
afterAll(() => server?.close());

const ARABIC = /[\u0600-\u06FF]/;

const CREATE = `mutation Create($input: CreateOrderInput!) {
  createOrder(input: $input) { order { ${ORDER_SELECTION} } userErrors { code message field errorCode } }
}`;
const CANCEL = `mutation Cancel($id: ID!) {
  cancelOrder(id: $id) { order { ${ORDER_SELECTION} } userErrors { code message field errorCode } }
}`;
const ORDER = `query One($id: ID!) { order(id: $id) { ${ORDER_SELECTION} } }`;
const ORDERS = `query Page($first: Int, $after: String, $filter: OrderFilter) {
  orders(first: $first, after: $after, filter: $filter) {
    edges { cursor node { id externalOrderId status createdAt items { id } } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    totalCount
  }
}`;


async function createViaGraphQL(client: GraphQLClient, overrides: Record<string, unknown> = {}) {
  const { note: _note, ...rest } = orderInput(overrides);
  const response = await client.query(CREATE, { input: { ...rest, note: "graphql note" } });
  expect(response.status).toBe(200);
  return response.body.data!.createOrder as { order: any; userErrors: any[] };
}

describe("authentication", () => {
  it("answers { __typename } without a key (GraphQL-over-HTTP clients probe with it)", async () => {
    const response = await anonymous.query("{ __typename }");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { __typename: "Query" } });
  });

  it("refuses an operation touching data without a key: 401 UNAUTHENTICATED, no data, localised", async () => {
    const response = await anonymous.query(`{ orders { totalCount } }`);
    expect(response.status).toBe(401);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors![0].extensions).toEqual({ code: "UNAUTHENTICATED" });
    expect(response.body.errors![0].message).toMatch(/X-API-Key/);

    const arabic = await anonymous.withHeaders({ "accept-language": "ar" }).query(`mutation { cancelOrder(id: "x") { order { id } } }`);
    expect(arabic.status).toBe(401);
    expect(arabic.body.errors![0].message).toMatch(ARABIC);
  });

  it("refuses an invalid or revoked key the same way", async () => {
    const bad = await anonymous.withKey(`ek_test_${"x".repeat(40)}`).query(`{ order(id: "x") { id } }`);
    expect(bad.status).toBe(401);
    expect(bad.body.errors![0]).toMatchObject({ message: "Invalid or revoked API key", extensions: { code: "UNAUTHENTICATED" } });

    const other = await server.merchant("Revoked Shop");
    const keys = await server.app.services.merchantService.listKeys(other.id);
    await server.app.services.merchantService.revokeKey(keys.find((key) => key.mode === "test")!.id);
    const revoked = await anonymous.withKey(other.keys.test).query(`{ orders { totalCount } }`);
    expect(revoked.status).toBe(401);
  });
});

describe("createOrder", () => {
  it("creates the order, sends the message and writes order.created: the same data REST and webhooks carry", async () => {
    const before = server.app.services.phones.all().length;
    const { order, userErrors } = await createViaGraphQL(gql, { currency: "sar" });
    expect(userErrors).toEqual([]);
    expect(order).toMatchObject({ status: "PENDING", customerAction: null, deliveryStatus: null, currency: "SAR" });
    expect(order).not.toHaveProperty("note");
    expect(server.app.services.phones.all().length).toBe(before + 1);

    const outbox = await server.outbox(order.id);
    expect(outbox.map((event) => event.type)).toEqual(["order.created"]);
    expect(asGraphQLOrder(outbox[0].payload.data)).toEqual(order);

    const rest = await shop.test.get(`/api/v1/orders/${order.id}`);
    expect(asGraphQLOrder(rest.body)).toEqual(order);
  });

  it("reports every field problem as a VALIDATION_ERROR userError with its path into the input; stores nothing", async () => {
    const count = () => server.app.services.database.prisma.order.count({ where: { merchantId: shop.id } });
    const stored = await count();
    const { order, userErrors } = await createViaGraphQL(gql, {
      customerPhone: "+966 50",
      currency: "XX",
      items: [{ productName: "A", quantity: 0, unitPrice: 1.23456, totalPrice: 1 }],
    });
    expect(order).toBeNull();
    expect(userErrors.every((error) => error.code === "VALIDATION_ERROR" && error.errorCode === null)).toBe(true);
    expect(userErrors.map((error) => error.field)).toEqual(
      expect.arrayContaining([
        ["input", "customerPhone"],
        ["input", "currency"],
        ["input", "items", "0", "quantity"],
        ["input", "items", "0", "unitPrice"],
      ]),
    );
    const quantity = userErrors.find((error) => error.field.join(".") === "input.items.0.quantity");
    expect(quantity.message).toBe("items[0].quantity must be greater than 0");
    expect(await count()).toBe(stored);
  });

  it("honours Idempotency-Key like REST: a repeat returns the first payload, sends nothing and writes no event", async () => {
    const keyed = gql.withHeaders({ "idempotency-key": `gql-${Date.now()}` });
    const sent = server.app.services.phones.all().length;
    const first = await createViaGraphQL(keyed, { externalOrderId: `IDEM-${Date.now()}` });
    expect(first.userErrors).toEqual([]);
    const { note: _note, ...rest } = orderInput({ externalOrderId: first.order.externalOrderId });
    const repeat = await keyed.query(CREATE, { input: { ...rest, note: "graphql note" } });
    expect(repeat.body.data!.createOrder).toEqual(first);
    expect(server.app.services.phones.all().length).toBe(sent + 1);
    expect((await server.outbox(first.order.id)).map((event) => event.type)).toEqual(["order.created"]);

    // The same key with another input is refused, as REST's 409 IDEMPOTENCY_KEY_REUSED.
    const other = await keyed.query(CREATE, { input: { ...rest, note: "graphql note", customerName: "Someone Else" } });
    expect(other.body.data!.createOrder).toMatchObject({ order: null, userErrors: [{ code: "IDEMPOTENCY_KEY_REUSED", field: null }] });
  });

  it("does not store refused input under an Idempotency-Key, and checks the key's format", async () => {
    const keyed = gql.withHeaders({ "idempotency-key": `gql-fix-${Date.now()}` });
    const invalid = await createViaGraphQL(keyed, { externalOrderId: `FIX-${Date.now()}`, currency: "XX" });
    expect(invalid.userErrors[0]).toMatchObject({ code: "VALIDATION_ERROR", field: ["input", "currency"] });
    const fixed = await createViaGraphQL(keyed, { externalOrderId: `FIX-${Date.now()}` });
    expect(fixed.userErrors).toEqual([]);
    expect(fixed.order.status).toBe("PENDING");

    const badKey = await createViaGraphQL(gql.withHeaders({ "idempotency-key": "x".repeat(256) }));
    expect(badKey).toMatchObject({ order: null, userErrors: [{ code: "VALIDATION_ERROR", field: ["Idempotency-Key"] }] });
  });

  it("localises userErrors with Accept-Language: ar", async () => {
    const { userErrors } = await createViaGraphQL(gql.withHeaders({ "accept-language": "ar-EG,ar;q=0.9" }), { customerPhone: "12" });
    expect(userErrors).toHaveLength(1);
    expect(userErrors[0].field).toEqual(["input", "customerPhone"]);
    expect(userErrors[0].message).toMatch(ARABIC);
  });

  it("leaves missing required fields and wrong types to GraphQL itself: a 400 request error", async () => {
    const { customerName: _name, ...input } = orderInput();
    const missing = await gql.query(CREATE, { input });
    expect(missing.status).toBe(400);
    expect(missing.body.errors![0].extensions!.code).toBe("BAD_USER_INPUT");

    const text = await gql.query(CREATE, { input: { ...orderInput(), subtotal: "149.99" } });
    expect(text.status).toBe(400);
  });

  it("answers PROVIDER_REJECTED with the order stored FAILED, and writes no event", async () => {
    const { order, userErrors } = await createViaGraphQL(gql, { customerPhone: "999131030" });
    expect(userErrors).toEqual([
      {
        code: "PROVIDER_REJECTED",
        message: "The confirmation message could not be sent: (#131030) Recipient phone number not in allowed list",
        field: null,
        errorCode: 131030,
      },
    ]);
    expect(order).toMatchObject({
      status: "FAILED",
      deliveryStatus: "FAILED",
      errorCode: 131030,
      failureReason: "(#131030) Recipient phone number not in allowed list",
    });
    expect(await server.outbox(order.id)).toEqual([]);
  });

  it("answers PROVIDER_UNAVAILABLE with the order stored FAILED", async () => {
    const { order, userErrors } = await createViaGraphQL(gql, { customerPhone: "9990000000" });
    expect(userErrors).toHaveLength(1);
    expect(userErrors[0]).toMatchObject({ code: "PROVIDER_UNAVAILABLE", field: null });
    expect(order.status).toBe("FAILED");
  });

  it("answers DUPLICATE_EXTERNAL_ORDER_ID for a taken externalOrderId and sends nothing", async () => {
    const first = await createViaGraphQL(gql);
    const sent = server.app.services.phones.all().length;
    const again = await createViaGraphQL(gql, { externalOrderId: first.order.externalOrderId });
    expect(again.order).toBeNull();
    expect(again.userErrors).toEqual([
      {
        code: "DUPLICATE_EXTERNAL_ORDER_ID",
        message: `An order with externalOrderId "${first.order.externalOrderId}" already exists`,
        field: ["input", "externalOrderId"],
        errorCode: null,
      },
    ]);
    expect(server.app.services.phones.all().length).toBe(sent);
  });
});

describe("cancelOrder", () => {
  it("cancels a pending order once (order.canceled), then returns it unchanged", async () => {
    const { order } = await createViaGraphQL(gql);
    const canceled = await gql.query(CANCEL, { id: order.id });
    expect(canceled.body.data!.cancelOrder.userErrors).toEqual([]);
    expect(canceled.body.data!.cancelOrder.order).toMatchObject({ id: order.id, status: "CANCELED", customerAction: "CANCELED" });
    const again = await gql.query(CANCEL, { id: order.id });
    expect(again.body.data!.cancelOrder).toEqual(canceled.body.data!.cancelOrder);
    expect((await server.outbox(order.id)).map((event) => event.type)).toEqual(["order.created", "order.canceled"]);
  });

  it("answers ORDER_NOT_PENDING for a confirmed order, with the order as it is (Arabic too)", async () => {
    const { order } = await createViaGraphQL(gql);
    await shop.test.post(`/api/v1/test/orders/${order.id}/customer-action`, { action: "approve" });
    const response = await gql.query(CANCEL, { id: order.id });
    expect(response.body.data!.cancelOrder.order).toMatchObject({ id: order.id, status: "CONFIRMED", customerAction: "APPROVED" });
    expect(response.body.data!.cancelOrder.userErrors).toEqual([
      { code: "ORDER_NOT_PENDING", message: "The order is confirmed and is no longer pending", field: ["id"], errorCode: null },
    ]);
    const arabic = await gql.withHeaders({ "accept-language": "ar" }).query(CANCEL, { id: order.id });
    expect(arabic.body.data!.cancelOrder.userErrors[0].message).toMatch(ARABIC);
  });

  it("answers NOT_FOUND for unknown, malformed and other merchants' ids, and changes nothing", async () => {
    const other = await server.merchant("Other Shop");
    const { order: foreign } = await createViaGraphQL(new GraphQLClient(server.baseUrl, other.keys.test));
    for (const id of [foreign.id, "00000000-0000-7000-8000-000000000000", "not-an-id"]) {
      const response = await gql.query(CANCEL, { id });
      expect(response.body.data!.cancelOrder).toEqual({
        order: null,
        userErrors: [{ code: "NOT_FOUND", message: "Order not found", field: ["id"], errorCode: null }],
      });
    }
    const still = await other.test.get(`/api/v1/orders/${foreign.id}`);
    expect(still.body.status).toBe("pending");
  });
});

describe("order and orders", () => {
  let pageShop: TestMerchant;
  let client: GraphQLClient;
  const created: any[] = [];

  beforeAll(async () => {
    pageShop = await server.merchant("Paging Shop");
    client = new GraphQLClient(server.baseUrl, pageShop.keys.test);
    for (let index = 0; index < 5; index += 1) {
      created.push((await createViaGraphQL(client, { customerPhone: index % 2 ? "966500000001" : "966500000002" })).order);
    }
    await client.query(CANCEL, { id: created[0].id });
  });

  it("reads one order exactly as REST does (enums in GraphQL style)", async () => {
    const rest = await pageShop.test.get(`/api/v1/orders/${created[1].id}`);
    const response = await client.query(ORDER, { id: created[1].id });
    expect(response.status).toBe(200);
    expect(response.body.data!.order).toEqual(asGraphQLOrder(rest.body));
  });

  it("answers null for unknown, malformed and other merchants' ids, and a test key never sees live orders", async () => {
    const live = await createViaGraphQL(new GraphQLClient(server.baseUrl, pageShop.keys.live));
    expect(live.order.status).toBe("FAILED"); // live mode without WhatsApp configured: stored failed
    for (const id of [live.order.id, "00000000-0000-7000-8000-000000000000", "nope"]) {
      const response = await client.query(ORDER, { id });
      expect(response.body).toEqual({ data: { order: null } });
    }
    const other = await gql.query(ORDER, { id: created[1].id });
    expect(other.body).toEqual({ data: { order: null } });
    const page = await client.query(ORDERS, { first: 100 });
    expect(page.body.data!.orders.edges.map((edge: any) => edge.node.id)).not.toContain(live.order.id);
    expect(page.body.data!.orders.totalCount).toBe(5);
  });

  it("pages newest first with Relay cursors, the REST list's order and cursors, and totalCount", async () => {
    const newestFirst = [...created].reverse().map((order) => order.id);
    const first = await client.query(ORDERS, { first: 2 });
    const connection = first.body.data!.orders;
    expect(connection.edges.map((edge: any) => edge.node.id)).toEqual(newestFirst.slice(0, 2));
    expect(connection.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: connection.edges[0].cursor,
      endCursor: connection.edges[1].cursor,
    });
    expect(connection.totalCount).toBe(5);
    const rest = await pageShop.test.get("/api/v1/orders?limit=2");
    expect(connection.pageInfo.endCursor).toBe(rest.body.pagination.nextCursor);

    const seen: string[] = [...connection.edges.map((edge: any) => edge.node.id)];
    let after = connection.pageInfo.endCursor;
    for (;;) {
      const next = (await client.query(ORDERS, { first: 2, after })).body.data!.orders;
      seen.push(...next.edges.map((edge: any) => edge.node.id));
      if (!next.pageInfo.hasNextPage) break;
      after = next.pageInfo.endCursor;
    }
    expect(seen).toEqual(newestFirst);
  });

  it("defaults to 20 per page and answers an empty page with null cursors", async () => {
    const all = await client.query(`{ orders { edges { node { id } } pageInfo { hasNextPage endCursor } } }`);
    expect(all.body.data!.orders.edges).toHaveLength(5);
    const empty = await client.query(ORDERS, { filter: { externalOrderId: "nothing-like-this" } });
    expect(empty.body.data!.orders).toEqual({
      edges: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
      totalCount: 0,
    });
  });

  it("filters by status, externalOrderId, customerPhone and creation time; totalCount follows the filter", async () => {
    const ids = async (filter: Record<string, unknown>) => {
      const data = (await client.query(ORDERS, { filter })).body.data!.orders;
      expect(data.totalCount).toBe(data.edges.length);
      return data.edges.map((edge: any) => edge.node.id).sort();
    };
    expect(await ids({ status: ["CANCELED"] })).toEqual([created[0].id]);
    expect(await ids({ status: ["PENDING", "CANCELED"] })).toHaveLength(5);
    expect(await ids({ status: [] })).toHaveLength(5);
    expect(await ids({ externalOrderId: created[2].externalOrderId })).toEqual([created[2].id]);
    expect(await ids({ customerPhone: "966500000001" })).toEqual([created[1].id, created[3].id].sort());
    expect(await ids({ createdFrom: created[3].createdAt })).toEqual([created[3].id, created[4].id].sort());
    expect(await ids({ createdTo: created[1].createdAt })).toEqual([created[0].id]);
    expect(await ids({ createdFrom: created[1].createdAt, createdTo: created[3].createdAt, status: ["PENDING"] })).toEqual(
      [created[1].id, created[2].id].sort(),
    );
  });

  it("refuses arguments out of bounds with BAD_USER_INPUT naming each argument", async () => {
    const response = await client.query(ORDERS, { first: 101, after: "bogus!", filter: { customerPhone: "+9665" } });
    expect(response.status).toBe(200);
    expect(response.body.data).toBeNull();
    const [error] = response.body.errors!;
    expect(error.extensions!.code).toBe("BAD_USER_INPUT");
    expect(error.extensions!.details.map((detail: any) => detail.field)).toEqual([["first"], ["after"], ["filter", "customerPhone"]]);
    expect(error.message).toMatch(/^The request is invalid: first must be at most 100/);

    const zero = await client.withHeaders({ "accept-language": "ar" }).query(ORDERS, { first: 0 });
    expect(zero.body.errors![0].message).toMatch(ARABIC);

    const badDate = await client.query(ORDERS, { filter: { createdFrom: "yesterday" } });
    expect(badDate.status).toBe(400);
    expect(badDate.body.errors![0].extensions!.code).toBe("BAD_USER_INPUT");
  });
});

describe("statements per request (no N+1)", () => {
  let bulk: GraphQLClient;
  let ids: string[] = [];

  beforeAll(async () => {
    const bulkShop = await server.merchant("Bulk Shop");
    bulk = new GraphQLClient(server.baseUrl, bulkShop.keys.test);
    for (let index = 0; index < 50; index += 1) ids.push((await createViaGraphQL(bulk)).order.id);
  }, 60_000);

  /**
   * Statements on orders and their items sent while `run` runs (pg's Client.query, which Prisma's adapter and the
   * repositories' plain reads both use). Background workers of the same process (outbox and webhook sweeps)
   * touch other tables and are not counted.
   */
  async function countStatements(run: () => Promise<unknown>): Promise<number> {
    const spy = vi.spyOn(pg.Client.prototype, "query");
    try {
      await run();
      const texts = spy.mock.calls.map((call) => String((call[0] as { text?: string })?.text ?? call[0]));
      // The background workers' polls (webhooks, SMS, conversation and store outboxes) are not the request's.
      return texts.filter((text) => /\border(s|_items|_counts)\b/.test(text) && !/order_events|webhook|sms_messages|order_messages|store_/.test(text)).length;
    } finally {
      spy.mockRestore();
    }
  }

  it("loads 50 orders with their items and totalCount in a bounded number of statements", async () => {
    let page: any;
    const statements = await countStatements(async () => {
      page = (await bulk.query(ORDERS, { first: 50 })).body.data!.orders;
    });
    expect(page.edges).toHaveLength(50);
    expect(page.edges.every((edge: any) => edge.node.items.length === 2)).toBe(true);
    // the page of orders with their items (one statement), the count (of the maintained counts)
    expect(statements).toBe(2);
    // totalCount and totalCountPrecision share that one count: no more statements than totalCount alone
    const both = await countStatements(async () => {
      const connection = (await bulk.query(`{ orders(first: 50) { edges { node { id } } totalCount totalCountPrecision } }`)).body.data!.orders;
      expect([connection.totalCount, connection.totalCountPrecision]).toEqual([page.totalCount, "EXACT"]);
    });
    expect(both).toBe(statements);
  });

  it("batches aliased order(id:) reads into one query (DataLoader)", async () => {
    const selection = ids.map((id, index) => `o${index}: order(id: "${id}") { id items { productName } }`).join("\n");
    let data: any;
    const statements = await countStatements(async () => {
      data = (await bulk.query(`{ ${selection} }`)).body.data;
    });
    expect(Object.keys(data)).toHaveLength(50);
    expect(Object.values(data).every((order: any) => order.items.length === 2)).toBe(true);
    // the orders and their items (one IN query), whatever the number of ids
    expect(statements).toBe(2);
    // one id: the same single statement (order with its items as JSON) as REST's GET
    const single = await countStatements(() => bulk.query(ORDER, { id: ids[0] }));
    expect(single).toBe(1);
  });
});

describe("hardening", () => {
  it("refuses a subscription sent over HTTP with 400, pointing to the websocket, without running it", async () => {
    const response = await gql.query(`subscription { orderStatusChanged { event } }`);
    expect(response.status).toBe(400);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors).toEqual([
      expect.objectContaining({ message: expect.stringContaining("graphql-transport-ws"), extensions: { code: "BAD_REQUEST" } }),
    ]);
    const arabic = await gql.withHeaders({ "accept-language": "ar" }).query(`subscription { orderStatusChanged { event } }`);
    expect(arabic.body.errors?.[0].message).toMatch(ARABIC);
  });

  it("stays out of the REST OpenAPI document", async () => {
    const document = await server.api.get("/api/v1/openapi.json");
    expect(Object.keys(document.body.paths)).not.toContain("/graphql");
  });

  it("refuses batched requests (an array body)", async () => {
    const response = await gql.post([{ query: "{ __typename }" }, { query: "{ __typename }" }]);
    expect(response.status).toBe(400);
    expect(response.text).toMatch(/batching/i);
  });

  it("refuses simple requests that a browser would send cross-site (CSRF prevention)", async () => {
    const get = await gql.raw("GET", undefined, {}, "?query=%7B__typename%7D");
    expect(get.status).toBe(400);
    expect(get.text).toMatch(/CSRF|preflight/i);
    const form = await gql.raw("POST", "query=%7B__typename%7D", { "content-type": "application/x-www-form-urlencoded" });
    expect(form.status).toBe(415);
    const plain = await gql.raw("POST", JSON.stringify({ query: "{ __typename }" }), { "content-type": "text/plain" });
    expect(plain.status).toBe(415);
    // A non-simple GET (preflight header) is served.
    const preflighted = await gql.raw("GET", undefined, { "apollo-require-preflight": "true" }, "?query=%7B__typename%7D");
    expect(preflighted.status).toBe(200);
  });

  it("refuses documents deeper than the depth limit", async () => {
    const response = await gql.query(`{ __type(name: "Order") { fields { type { ofType { ofType { ofType { name } } } } } } }`);
    expect(response.status).toBe(400);
    expect(response.body.errors![0].message).toMatch(/depth limit of 6/);
    expect(response.body.errors![0].extensions!.code).toBe("GRAPHQL_VALIDATION_FAILED");
  });

  it("refuses documents above the cost limit (aliases and variable page sizes count)", async () => {
    const page = (alias: string, first: string) => `${alias}: orders(first: ${first}) { edges { node { id items { id } } } }`;
    const two = await gql.query(`{ ${page("a", "100")} ${page("b", "100")} }`);
    expect(two.status).toBe(200);
    const three = await gql.query(`{ ${page("a", "100")} ${page("b", "100")} ${page("c", "100")} }`);
    expect(three.status).toBe(400);
    expect(three.body.errors![0].message).toMatch(/costs 1200, more than the limit of 1000/);
    const variables = await gql.query(`query($n: Int) { ${page("a", "$n")} ${page("b", "$n")} ${page("c", "$n")} }`, { n: 1 });
    expect(variables.status).toBe(400);
  });

  it("serves the standard introspection query outside production, and never sends a stack trace", async () => {
    const response = await anonymous.query(getIntrospectionQuery());
    expect(response.status).toBe(200);
    expect(response.body.data!.__schema.queryType.name).toBe("Query");
    const invalid = await gql.query("{ orderz }");
    expect(invalid.status).toBe(400);
    expect(invalid.text).not.toMatch(/stacktrace|\.ts:\d+/);
    expect(invalid.body.errors![0].message).toMatch(/Did you mean "order"/);
  });
});

describe("unexpected errors", () => {
  it("masks a bug: a localised message with the request id, nothing of the cause", async () => {
    const spy = vi
      .spyOn(server.app.services.orderService, "list")
      .mockRejectedValueOnce(new Error("connection to 10.0.0.7 lost in orders_pkey"));
    const response = await gql.withHeaders({ "x-request-id": "req-graphql-1" }).query(`{ orders { totalCount } }`);
    spy.mockRestore();
    expect(response.body.data).toBeNull();
    expect(response.body.errors).toEqual([
      {
        message: "An unexpected error occurred; quote request id req-graphql-1 when reporting it",
        locations: [{ line: 1, column: 3 }],
        path: ["orders"],
        extensions: { code: "INTERNAL_SERVER_ERROR", requestId: "req-graphql-1" },
      },
    ]);
    expect(response.text).not.toMatch(/10\.0\.0\.7|orders_pkey|stacktrace/);
  });
});

describe("production mode", () => {
  let production: TestServer;
  beforeAll(async () => {
    production = await startTestServer({ NODE_ENV: "production", SECRETS_KEY: Buffer.alloc(32, 9).toString("base64") });
  });
  afterAll(() => production?.close());

  it("refuses introspection and hides field suggestions", async () => {
    const client = new GraphQLClient(production.baseUrl);
    const introspection = await client.query(getIntrospectionQuery());
    expect(introspection.status).toBe(400);
    expect(introspection.body.errors![0].extensions!.code).toBe("GRAPHQL_VALIDATION_FAILED");
    expect(introspection.body.errors![0].message).toMatch(/introspection/i);
    const typo = await client.query("{ orderz }");
    expect(typo.status).toBe(400);
    expect(typo.body.errors![0].message).not.toMatch(/Did you mean/);
  });
});

describe("rate limit", () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({ RATE_LIMIT_MAX: "3" });
  });
  afterAll(() => limited?.close());

  it("counts GraphQL requests per key like REST, and answers 429 in GraphQL's shape", async () => {
    const merchant = await limited.merchant();
    const client = new GraphQLClient(limited.baseUrl, merchant.keys.test);
    for (let index = 0; index < 3; index += 1) expect((await client.query("{ orders { totalCount } }")).status).toBe(200);
    const refused = await client.withHeaders({ "accept-language": "ar" }).query("{ orders { totalCount } }");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.body.errors![0].extensions!.code).toBe("RATE_LIMITED");
    expect(refused.body.errors![0].message).toMatch(ARABIC);
    // REST shares the same per-key budget; the other key of the merchant has its own.
    expect((await merchant.test.get("/api/v1/orders")).status).toBe(429);
    expect((await new GraphQLClient(limited.baseUrl, merchant.keys.live).query("{ orders { totalCount } }")).status).toBe(200);
  });
});
