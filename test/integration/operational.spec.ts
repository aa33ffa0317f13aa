import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { ORDER_FIELDS, orderInput } from "../support/fixtures.ts";

let server: TestServer;
let shop: TestMerchant;

beforeAll(async () => {
  server = await startTestServer();
  shop = await server.merchant();
});
afterAll(() => server?.close());

/** No key, a malformed key and an unknown one: public endpoints answer all of them alike. */
const anonymous = () => [
  server.api,
  server.api.withKey("not-a-key"),
  server.api.withKey(`ek_test_${"0".repeat(40)}`),
];

describe("health", () => {
  it("GET /healthz answers 200 without an API key", async () => {
    for (const client of anonymous()) {
      const response = await client.get("/healthz");
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: "ok" });
      expect(response.headers.get("x-request-id")).toBeTruthy();
    }
  });

  it("GET /readyz answers 200 with the database ok, without an API key", async () => {
    for (const client of anonymous()) {
      const response = await client.get("/readyz");
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ database: "ok" });
    }
  });

  it("keeps a caller's well-formed request id", async () => {
    const response = await server.api.get("/healthz", { headers: { "x-request-id": "trace-abc.123" } });
    expect(response.headers.get("x-request-id")).toBe("trace-abc.123");
  });
});

describe("metrics", () => {
  it("GET /metrics serves Prometheus text with request durations and order counters, without an API key", async () => {
    expect((await shop.test.post("/api/v1/orders", orderInput())).status).toBe(201);
    expect((await shop.test.get("/api/v1/orders")).status).toBe(200);

    for (const client of anonymous()) {
      const response = await client.get("/metrics");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
      expect(response.text).toContain("# TYPE http_request_duration_seconds histogram");
      expect(response.text).toMatch(/^(orders_created_total|order_events_total)\{[^}]*\} [1-9]/m);
    }
    const text = (await server.api.get("/metrics")).text;
    expect(text).toMatch(/^http_request_duration_seconds_count\{[^}]*route="\/api\/v1\/orders"[^}]*status="201"[^}]*\} [1-9]/m);
    expect(text).toMatch(/^http_request_duration_seconds_bucket\{[^}]*le="\+Inf"[^}]*\} \d+/m);
    expect(text).toMatch(/^order_events_total\{event="order\.created"\} [1-9]/m);
    // Every non-comment line is a Prometheus sample: name{labels} value.
    for (const line of text.split("\n").filter((l) => l && !l.startsWith("#"))) {
      expect(line).toMatch(/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? \S+( \d+)?$/);
    }
  });

  it("counts order events by name", async () => {
    const created = (await shop.test.post("/api/v1/orders", orderInput())).body;
    await shop.test.delete(`/api/v1/orders/${created.id}`);
    expect((await server.api.get("/metrics")).text).toMatch(/^order_events_total\{event="order\.canceled"\} [1-9]/m);
  });
});

describe("OpenAPI document", () => {
  let doc: any;
  const resolve = (schema: any) => (schema?.$ref ? doc.components.schemas[schema.$ref.split("/").pop()] : schema);

  beforeAll(async () => {
    const response = await server.api.get("/api/v1/openapi.json");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    doc = response.body;
  });

  it("is OpenAPI 3.1 and needs no API key", async () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    for (const client of anonymous()) expect((await client.get("/api/v1/openapi.json")).status).toBe(200);
  });

  it("documents the order endpoints and the test endpoints", () => {
    expect(Object.keys(doc.paths["/api/v1/orders"]).sort()).toEqual(expect.arrayContaining(["get", "post"]));
    expect(Object.keys(doc.paths["/api/v1/orders/{id}"]).sort()).toEqual(expect.arrayContaining(["delete", "get"]));
    expect(doc.paths["/api/v1/test/orders/{id}/customer-action"].post).toBeDefined();
    expect(doc.paths["/api/v1/test/orders/{id}/delivery"].post).toBeDefined();
    for (const path of Object.keys(doc.paths)) expect(path).not.toMatch(/:id/);
  });

  it("declares the X-API-Key security scheme and applies it to the API", () => {
    const schemes = Object.values(doc.components.securitySchemes) as any[];
    expect(schemes).toContainEqual({ type: "apiKey", in: "header", name: "X-API-Key" });
    const [name] = Object.entries(doc.components.securitySchemes).find(([, scheme]: any) => scheme.name === "X-API-Key")!;
    const requirement = (operation: any) => operation.security ?? doc.security;
    for (const operation of [
      doc.paths["/api/v1/orders"].post,
      doc.paths["/api/v1/orders"].get,
      doc.paths["/api/v1/orders/{id}"].get,
      doc.paths["/api/v1/orders/{id}"].delete,
      doc.paths["/api/v1/test/orders/{id}/delivery"].post,
    ]) {
      expect(requirement(operation)).toContainEqual({ [name]: [] });
    }
    if (doc.paths["/healthz"]) expect(doc.paths["/healthz"].get.security).toEqual([]);
  });

  it("describes the create request with the validating schema's bounds", () => {
    const body = doc.paths["/api/v1/orders"].post.requestBody;
    expect(body.required).toBe(true);
    const schema = resolve(body.content["application/json"].schema);
    expect(schema.type).toBe("object");
    expect([...schema.required].sort()).toEqual(
      ["currency", "customerName", "customerPhone", "externalOrderId", "items", "shippingCost", "subtotal", "totalCost"].sort(),
    );
    const p = schema.properties;
    expect(p.externalOrderId).toMatchObject({ type: "string", minLength: 1, maxLength: 100 });
    expect(p.customerName).toMatchObject({ type: "string", minLength: 1, maxLength: 120 });
    expect(p.customerPhone).toMatchObject({ type: "string", pattern: "^[1-9]\\d{7,14}$" });
    expect(p.customerAddress).toMatchObject({ type: "string", maxLength: 500 });
    expect(p.note).toMatchObject({ type: "string", maxLength: 1000 });
    expect(p.currency).toMatchObject({ type: "string" });
    for (const money of ["subtotal", "shippingCost", "totalCost"]) {
      expect(p[money]).toMatchObject({ type: "number", minimum: 0, maximum: 1e12 });
    }
    expect(p.items).toMatchObject({ type: "array", minItems: 1, maxItems: 100 });
    const item = resolve(p.items.items);
    expect([...item.required].sort()).toEqual(["productName", "quantity", "totalPrice", "unitPrice"]);
    expect(item.properties.productName).toMatchObject({ type: "string", minLength: 1, maxLength: 200 });
    expect(item.properties.variantName).toMatchObject({ type: "string", maxLength: 200 });
    expect(item.properties.quantity).toMatchObject({ type: "number", exclusiveMinimum: 0 });
    expect(item.properties.unitPrice).toMatchObject({ type: "number", minimum: 0 });
  });

  it("describes responses with the Order schema and its error codes", () => {
    const created = doc.paths["/api/v1/orders"].post.responses;
    expect(Object.keys(created)).toEqual(expect.arrayContaining(["201", "400", "409", "401"]));
    const order = resolve(created["201"].content["application/json"].schema);
    expect(Object.keys(order.properties)).toEqual(ORDER_FIELDS);
    expect(order.properties).not.toHaveProperty("note");
    expect(order.properties.status.enum).toEqual(["pending", "confirmed", "canceled", "failed", "expired"]);
    expect(Object.keys(doc.paths["/api/v1/orders/{id}"].get.responses)).toEqual(expect.arrayContaining(["200", "404"]));
    expect(Object.keys(doc.paths["/api/v1/orders/{id}"].delete.responses)).toEqual(expect.arrayContaining(["200", "404", "409"]));
    const page = resolve(doc.paths["/api/v1/orders"].get.responses["200"].content["application/json"].schema);
    expect(Object.keys(page.properties)).toEqual(["data", "pagination"]);
  });

  it("documents the list filters and the limit bounds", () => {
    const parameters = doc.paths["/api/v1/orders"].get.parameters as any[];
    const byName = Object.fromEntries(parameters.filter((p) => p.in === "query").map((p) => [p.name, p]));
    expect(Object.keys(byName).sort()).toEqual(
      ["createdFrom", "createdTo", "cursor", "customerPhone", "externalOrderId", "limit", "needsFollowUp", "needsReply", "search", "status"].sort(),
    );
    expect(byName.limit.schema).toMatchObject({ minimum: 1, maximum: 100, default: 20 });
    expect(byName.search.schema).toMatchObject({ type: "string", minLength: 1, maxLength: 100 });
    expect(byName.createdFrom.schema).toMatchObject({ type: "string", format: "date-time" });
    const path = doc.paths["/api/v1/orders/{id}"].get.parameters.find((p: any) => p.in === "path");
    expect(path).toMatchObject({ name: "id", required: true });
  });

  it("documents the order statistics: parameters, bounds and the OrderStats shape", () => {
    const operation = doc.paths["/api/v1/stats/orders"].get;
    const byName = Object.fromEntries((operation.parameters as any[]).filter((p) => p.in === "query").map((p) => [p.name, p]));
    expect(Object.keys(byName).sort()).toEqual(["from", "interval", "timeZone", "to"]);
    expect(byName.from).toMatchObject({ required: true, schema: { type: "string", format: "date-time" } });
    expect(byName.interval.schema).toMatchObject({ enum: ["day", "hour"], default: "day" });
    expect(byName.timeZone.schema).toMatchObject({ default: "UTC" });
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["200", "400", "401"]));
    const stats = resolve(operation.responses["200"].content["application/json"].schema);
    expect(Object.keys(stats.properties)).toEqual(["from", "to", "timeZone", "interval", "totals", "buckets"]);
    expect(Object.keys(stats.properties.totals.properties)).toEqual(expect.arrayContaining(["confirmationRate", "answerRate", "failuresByErrorCode"]));
  });

  it("documents the simulator bodies", () => {
    const action = resolve(doc.paths["/api/v1/test/orders/{id}/customer-action"].post.requestBody.content["application/json"].schema);
    expect(action.properties.action.enum).toEqual(["approve", "cancel"]);
    const delivery = resolve(doc.paths["/api/v1/test/orders/{id}/delivery"].post.requestBody.content["application/json"].schema);
    expect(delivery.properties.status.enum).toEqual(["sent", "delivered", "read", "failed"]);
    expect(delivery.properties.errorCode.type).toBe("integer");
  });
});

describe("/docs", () => {
  it("serves the HTML UI without an API key", async () => {
    for (const client of anonymous()) {
      const response = await client.get("/docs");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      expect(response.text).toMatch(/<html/i);
    }
  });

  it("serves its static assets without an API key", async () => {
    const html = (await server.api.get("/docs")).text;
    const script = /src="([^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeTruthy();
    const response = await server.api.get(new URL(script!, `${server.baseUrl}/docs`).pathname);
    expect(response.status).toBe(200);
  });
});

describe("everything else under /api/v1 needs a key", () => {
  it.each([
    ["GET", "/api/v1/orders"],
    ["POST", "/api/v1/orders"],
    ["GET", "/api/v1/orders/0192f3a4-5b6c-7d8e-9f00-112233445566"],
    ["DELETE", "/api/v1/orders/0192f3a4-5b6c-7d8e-9f00-112233445566"],
  ])("%s %s → 401", async (method, path) => {
    const response = await server.api.request(method, path, method === "POST" ? orderInput() : undefined);
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ success: false, error: "UNAUTHORIZED" });
  });
});
