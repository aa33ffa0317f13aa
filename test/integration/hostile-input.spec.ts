import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { orderInput } from "../support/fixtures.ts";
import { GraphQLClient } from "../support/graphql.ts";
import { wsUrl } from "../support/graphql-ws.ts";
import { rawRequest } from "../support/raw-http.ts";
import { TEST_APP_SECRET, newInboundId, quickReplyCallback, sendCallback, statusCallback } from "../support/meta-callbacks.ts";

/**
 * Issue 13, classes 1–3: input that only PostgreSQL refuses is a 400 at the edge (or, from Meta, stored as far
 * as it fits and answered 200); /docs paths that are not files are 404; GraphQL list arguments and documents
 * are bounded before any work. Real HTTP and websockets, on PGlite and PostgreSQL.
 */
let server: TestServer;
let shop: TestMerchant;
let gql: GraphQLClient;

beforeAll(async () => {
  server = await startTestServer({ WHATSAPP_APP_SECRET: TEST_APP_SECRET });
  shop = await server.merchant("Hostile Input Shop");
  gql = new GraphQLClient(server.baseUrl, shop.keys.test);
});
afterAll(() => server?.close());

const prisma = () => server.app.services.database.prisma;
const NUL = "\u0000";
const INTERNALS = /stack|at \w+ \(|\.ts:\d|node_modules|prisma|SELECT |INSERT |invalid byte sequence|Maximum call stack/i;

function expectValidation(response: { status: number; body: any; text: string }, field: string) {
  expect(response.status, response.text).toBe(400);
  expect(response.body.error).toBe("VALIDATION_ERROR");
  expect(response.body.details.map((detail: { field: string }) => detail.field)).toContain(field);
  expect(response.text).not.toMatch(INTERNALS);
}

/** A forged keyset cursor for an instant (as text) and any UUID. */
const cursorAt = (iso: string) => Buffer.from(`${iso}|00000000-0000-4000-8000-000000000000`).toString("base64url");

async function placeTestOrder(): Promise<{ id: string; wamid: string }> {
  const response = await shop.test.post("/api/v1/orders", orderInput());
  expect(response.status, response.text).toBe(201);
  const row = await prisma().order.findUniqueOrThrow({ where: { id: response.body.id } });
  return { id: row.id, wamid: row.providerMessageId! };
}

describe("class 1: text with a NUL character", () => {
  it.each([
    ["externalOrderId", { externalOrderId: `A${NUL}B` }],
    ["customerName", { customerName: `Layla${NUL}` }],
    ["customerAddress", { customerAddress: `${NUL}Riyadh` }],
    ["note", { note: `a${NUL}` }],
    ["items[0].productName", { items: [{ productName: `P${NUL}`, quantity: 1, unitPrice: 1, totalPrice: 1 }] }],
    ["items[0].variantName", { items: [{ productName: "P", variantName: NUL, quantity: 1, unitPrice: 1, totalPrice: 1 }] }],
  ])("create with a NUL in %s → 400 naming the field, nothing stored (en and ar)", async (field, overrides) => {
    const before = await prisma().order.count();
    const response = await shop.test.post("/api/v1/orders", orderInput(overrides));
    expectValidation(response, field);
    expect(response.body.details[0].message).toBe("must not contain the NUL character (\\u0000)");
    const arabic = await shop.test.post("/api/v1/orders", orderInput(overrides), { headers: { "accept-language": "ar" } });
    expectValidation(arabic, field);
    expect(arabic.body.message).toMatch(/[\u0600-\u06FF]/);
    expect(await prisma().order.count()).toBe(before);
  });

  it("an unpaired surrogate (\\ud800) in a body, a query or GraphQL variables → 400, in a Meta id → ignored (200)", async () => {
    const created = await shop.test.post("/api/v1/orders", orderInput({ customerName: "Layla \ud800" }));
    expectValidation(created, "customerName");
    expect(created.body.details[0].message).toBe("must be valid Unicode text (it contains an unpaired surrogate)");
    // Invalid UTF-8 in a query string is decoded to U+FFFD, which is storable text: an ordinary filter.
    expect((await shop.test.get("/api/v1/orders?externalOrderId=%ED%A0%80")).status).toBe(200);
    const graphql = await gql.query(`query($id: String) { orders(filter: { externalOrderId: $id }) { edges { cursor } } }`, { id: "\udfff" });
    expect(graphql.status, graphql.text).toBe(400);
    expect(graphql.body.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    const { id } = await placeTestOrder();
    const tap = quickReplyCallback({ wamid: null, payload: `CANCEL:${id}`, messageId: "\udfff x" });
    expect((await sendCallback(server.baseUrl, tap)).status).toBe(200);
    expect((await shop.test.get(`/api/v1/orders/${id}`)).body.status).toBe("pending");
  });

  it("a NUL in an object key of the body is refused too", async () => {
    const response = await shop.test.post("/api/v1/orders", undefined, {
      rawBody: JSON.stringify({ ...orderInput(), [`x${NUL}`]: 1 }),
      headers: { "content-type": "application/json" },
    });
    expectValidation(response, `x${NUL}`);
  });

  it.each(["externalOrderId=A%00B", "customerPhone=9665%00", "status=pending%00", "createdFrom=2026-01-01T00:00:00Z%00"])(
    "list filter %s → 400",
    async (query) => {
      const response = await shop.test.get(`/api/v1/orders?${query}`);
      expectValidation(response, query.split("=")[0]);
    },
  );

  it("webhook endpoint fields and delivery-log filters with a NUL → 400", async () => {
    expectValidation(await shop.test.post("/api/v1/webhook-endpoints", { url: `https://example.com/${NUL}` }), "url");
    expectValidation(
      await shop.test.post("/api/v1/webhook-endpoints", { url: "https://example.com/hook", description: `d${NUL}` }),
      "description",
    );
    expectValidation(await shop.test.get("/api/v1/webhook-deliveries?orderId=%00"), "orderId");
  });

  it("GraphQL createOrder, filters and literals with a NUL → 400 BAD_USER_INPUT naming the variable", async () => {
    const before = await prisma().order.count();
    const created = await gql.query(
      `mutation($input: CreateOrderInput!) { createOrder(input: $input) { order { id } userErrors { code } } }`,
      { input: orderInput({ customerName: `a${NUL}b` }) },
    );
    expect(created.status, created.text).toBe(400);
    expect(created.body.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    expect(created.body.errors?.[0].extensions?.field).toEqual(["variables", "input", "customerName"]);
    expect(created.text).not.toMatch(INTERNALS);

    const filtered = await gql.query(`query($id: String) { orders(filter: { externalOrderId: $id }) { edges { cursor } } }`, { id: NUL });
    expect(filtered.status, filtered.text).toBe(400);
    expect(filtered.body.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");

    const literal = await gql.query(`{ orders(filter: { externalOrderId: "a\\u0000" }) { edges { cursor } } }`);
    expect(literal.status, literal.text).toBe(400);
    expect(literal.body.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    expect(await prisma().order.count()).toBe(before);
  });
});

describe("class 1: instants outside PostgreSQL's range", () => {
  it.each([
    ["createdFrom", "0000-01-01T00:00:00Z"],
    ["createdTo", "0001-01-01T00:30:00%2B01:00"],
    ["createdFrom", "%2B275760-09-13T00:00:00Z"],
    ["createdTo", "-000001-01-01T00:00:00Z"],
  ])("%s=%s → 400", async (field, value) => {
    expectValidation(await shop.test.get(`/api/v1/orders?${field}=${value}`), field);
  });

  it("the bounds themselves are accepted", async () => {
    const response = await shop.test.get("/api/v1/orders?createdFrom=0001-01-01T00:00:00Z&createdTo=9999-12-31T23:59:59.999Z");
    expect(response.status, response.text).toBe(200);
  });

  it.each(["-000001-01-01T00:00:00.000Z", "+275760-09-13T00:00:00.000Z", "0000-01-01T00:00:00.000Z"])(
    "a cursor decoding to %s → 400 on REST and GraphQL",
    async (iso) => {
      expectValidation(await shop.test.get(`/api/v1/orders?cursor=${cursorAt(iso)}`), "cursor");
      expectValidation(await shop.test.get(`/api/v1/webhook-deliveries?cursor=${cursorAt(iso)}`), "cursor");
      const page = await gql.query(`query($after: String) { orders(after: $after) { edges { cursor } } }`, { after: cursorAt(iso) });
      expect(page.body.errors?.[0].extensions?.code, page.text).toBe("BAD_USER_INPUT");
    },
  );

  it("GraphQL DateTime filters outside the range → 400, never an internal error", async () => {
    const viaVariable = await gql.query(`query($from: DateTime) { orders(filter: { createdFrom: $from }) { edges { cursor } } }`, {
      from: "0000-01-01T00:00:00Z",
    });
    expect(viaVariable.status, viaVariable.text).toBe(400);
    expect(viaVariable.text).toContain("0001-01-01T00:00:00Z");
    const literal = await gql.query(`{ orders(filter: { createdFrom: "0000-01-01T00:00:00Z" }) { edges { cursor } } }`);
    expect(literal.status, literal.text).toBe(400);
    expect(literal.body.errors?.[0].extensions?.code).toBe("GRAPHQL_VALIDATION_FAILED");
  });
});

describe("class 1: integers beyond int4, ids longer than their column", () => {
  it("the test delivery endpoint refuses errorCode 2147483648 and stores 2147483647", async () => {
    const { id } = await placeTestOrder();
    expectValidation(await shop.test.post(`/api/v1/test/orders/${id}/delivery`, { status: "failed", errorCode: 2147483648 }), "errorCode");
    const stored = await shop.test.post(`/api/v1/test/orders/${id}/delivery`, { status: "failed", errorCode: 2147483647 });
    expect(stored.status, stored.text).toBe(200);
    expect(stored.body).toMatchObject({ status: "failed", errorCode: 2147483647 });
  });

  it("a Meta failure with code 99999999999 is stored without the code, the order fails, Meta gets 200", async () => {
    const { id, wamid } = await placeTestOrder();
    const body = statusCallback(wamid, "failed");
    body.entry[0].changes[0].value.statuses[0].errors[0].code = 99999999999;
    const response = await sendCallback(server.baseUrl, body);
    expect(response.status, response.text).toBe(200);
    const order = (await shop.test.get(`/api/v1/orders/${id}`)).body;
    expect(order).toMatchObject({ status: "failed", deliveryStatus: "failed", errorCode: null });
    expect(order.failureReason).toBeTruthy();
    expect((await server.outbox(id)).map((event) => event.type)).toEqual(["order.created", "order.failed"]);
  });

  it("a Meta failure text with NULs and 5,000 characters is stored without the NULs, cut to 1,000", async () => {
    const { id, wamid } = await placeTestOrder();
    const body = statusCallback(wamid, "failed");
    body.entry[0].changes[0].value.statuses[0].errors[0] = { code: "131026", message: `Un${NUL}deliverable ${"x".repeat(5000)}` };
    expect((await sendCallback(server.baseUrl, body)).status).toBe(200);
    const order = (await shop.test.get(`/api/v1/orders/${id}`)).body;
    expect(order.errorCode).toBe(131026);
    expect(order.failureReason).toMatch(/^Undeliverable x+$/);
    expect(order.failureReason).toHaveLength(1000);
  });

  it("Meta ids with a NUL or longer than 255 characters are ignored (200), even with an order hint", async () => {
    const { id } = await placeTestOrder();
    for (const wamid of [`wamid.${NUL}x`, `wamid.${"x".repeat(5000)}`]) {
      const response = await sendCallback(server.baseUrl, statusCallback(wamid, "failed", { orderId: id }));
      expect(response.status, response.text).toBe(200);
    }
    const tap = quickReplyCallback({ wamid: `wamid.${NUL}`, payload: `APPROVE:${id}`, messageId: `${newInboundId()}${NUL}` });
    expect((await sendCallback(server.baseUrl, tap)).status).toBe(200);
    const byContext = quickReplyCallback({ wamid: `wamid.${NUL}`, payload: "not ours", text: "Approve" });
    expect((await sendCallback(server.baseUrl, byContext)).status).toBe(200);
    const order = (await shop.test.get(`/api/v1/orders/${id}`)).body;
    expect(order.status).toBe("pending");
    const keys = (await prisma().providerEvent.findMany({ select: { key: true } })).map((event) => event.key);
    expect(keys.filter((key) => key.includes(NUL) || key.length > 300)).toEqual([]);
  });
});

describe("class 2: /docs paths that are not files", () => {
  it.each([
    "/docs/static/../../../../etc/passwd",
    "/docs/static/..%2f..%2f..%2fetc%2fpasswd",
    "/docs/static/%2e%2e/%2e%2e/package.json",
    "/docs/static/%00",
    "/docs/static/nothing-here.js",
    "/docs/..%5c..%5cpackage.json",
  ])("GET %s → 404 NOT_FOUND, nothing of the file", async (path) => {
    const response = await rawRequest(server.baseUrl, `GET ${path} HTTP/1.1`);
    expect(response.status, response.body).toBe(404);
    expect(JSON.parse(response.body)).toMatchObject({ success: false, error: "NOT_FOUND" });
    expect(response.body).not.toMatch(/root:|"dependencies"/);
  });

  it("the documentation itself is still served", async () => {
    expect((await rawRequest(server.baseUrl, "GET /docs/static/index.html HTTP/1.1")).status).toBeLessThan(400);
    expect((await rawRequest(server.baseUrl, "GET /docs/json HTTP/1.1")).status).toBe(200);
  });
});

describe("class 3: GraphQL list arguments and documents are bounded", () => {
  const STATUS_QUERY = `query($status: [OrderStatus!]) { orders(filter: { status: $status }) { edges { cursor } } }`;

  it("a status filter of 50,000 entries → 400 BAD_USER_INPUT; 21 → 400 naming filter.status; 20 → 200", async () => {
    const huge = await gql.query(STATUS_QUERY, { status: Array(50_000).fill("PENDING") });
    expect(huge.status, huge.text.slice(0, 300)).toBe(400);
    expect(huge.body.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    const over = await gql.query(STATUS_QUERY, { status: Array(21).fill("PENDING") });
    expect(over.body.errors?.[0].extensions?.code, over.text).toBe("BAD_USER_INPUT");
    expect(over.body.errors?.[0].extensions?.details?.[0].field).toEqual(["filter", "status"]);
    const bound = await gql.query(STATUS_QUERY, { status: Array(20).fill("PENDING") });
    expect(bound.status, bound.text).toBe(200);
    expect(bound.body.errors).toBeUndefined();
  });

  it("REST's status filter has the same bound", async () => {
    expectValidation(await shop.test.get(`/api/v1/orders?status=${Array(21).fill("pending").join(",")}`), "status");
    expect((await shop.test.get(`/api/v1/orders?status=${Array(20).fill("pending").join(",")}`)).status).toBe(200);
  });

  it("a document nested 3,000 deep → 400 GRAPHQL_PARSE_FAILED over HTTP, no stack message", async () => {
    const deep = `{${"orders{".repeat(3000)}${"}".repeat(3001)}`;
    const response = await gql.query(deep);
    expect(response.status, response.text).toBe(400);
    expect(response.body.errors?.[0].extensions?.code).toBe("GRAPHQL_PARSE_FAILED");
    expect(response.text).not.toMatch(INTERNALS);
    const values = await gql.query(`{ orders(first: ${"[".repeat(3000)}1${"]".repeat(3000)}) { edges { cursor } } }`);
    expect(values.status).toBe(400);
    expect(values.text).not.toMatch(INTERNALS);
  });

  it("a document over 32 KiB → 400 before parsing", async () => {
    const padded = `{ __typename }${" ".repeat(33 * 1024)}`;
    const post = await gql.query(padded);
    expect(post.status).toBe(400);
    expect(post.body.errors?.[0].extensions?.code).toBe("GRAPHQL_PARSE_FAILED");
    expect(post.body.errors?.[0].message).toContain("32768");
    const justUnder = await gql.query(`{ __typename }${" ".repeat(32 * 1024 - 20)}`);
    expect(justUnder.status, justUnder.text).toBe(200);
  });

  it("over the websocket: a deep or oversized document is an error message, the socket stays usable; 64 KiB+ closes 1009", async () => {
    const socket = new WebSocket(wsUrl(server), "graphql-transport-ws");
    const messages: any[] = [];
    const closed = new Promise<number>((resolve) => socket.on("close", (code) => resolve(code)));
    socket.on("message", (data) => messages.push(JSON.parse(String(data))));
    await new Promise((resolve) => socket.on("open", resolve));
    socket.send(JSON.stringify({ type: "connection_init", payload: { apiKey: shop.keys.test } }));
    await waitFor(() => messages.some((message) => message.type === "connection_ack"));

    socket.send(JSON.stringify({ id: "deep", type: "subscribe", payload: { query: `subscription{${"a{".repeat(3000)}${"}".repeat(3001)}` } }));
    socket.send(JSON.stringify({ id: "big", type: "subscribe", payload: { query: `subscription { orderStatusChanged { event } }${" ".repeat(40_000)}` } }));
    socket.send(JSON.stringify({ id: "nul", type: "subscribe", payload: { query: `subscription($id: ID) { orderStatusChanged(orderId: $id) { event } }`, variables: { id: NUL } } }));
    await waitFor(() => messages.filter((message) => message.type === "error").length === 3);
    const errors = Object.fromEntries(messages.filter((m) => m.type === "error").map((m) => [m.id, m.payload[0]]));
    expect(errors.deep.extensions.code).toBe("GRAPHQL_PARSE_FAILED");
    expect(errors.big.extensions.code).toBe("GRAPHQL_PARSE_FAILED");
    expect(errors.nul.extensions.code).toBe("BAD_USER_INPUT");
    expect(JSON.stringify(errors)).not.toMatch(INTERNALS);
    expect(socket.readyState).toBe(WebSocket.OPEN);

    socket.send(JSON.stringify({ id: "huge", type: "subscribe", payload: { query: `subscription { orderStatusChanged { event } }${" ".repeat(70_000)}` } }));
    expect(await closed).toBe(1009);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
