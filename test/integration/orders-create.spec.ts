import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import type { ApiClient, ApiResponse } from "../support/api.ts";
import { ISO_MS, ITEM_FIELDS, ORDER_FIELDS, orderInput } from "../support/fixtures.ts";

/**
 * POST /api/v1/orders: every create-path row of the seed and SPEC §3, over real HTTP, with exact status
 * codes and exact body shapes, in English and Arabic.
 */
let server: TestServer;
let shop: TestMerchant;

beforeAll(async () => {
  server = await startTestServer();
  shop = await server.merchant("Create Shop");
});
afterAll(() => server?.close());

const ARABIC = /[\u0600-\u06FF]/;
const VALIDATION_KEYS = ["success", "message", "error", "errorCode", "failureReason", "details"];
const FAMILY_KEYS = ["success", "message", "error"];

/** Text of `n` characters. */
const chars = (n: number, c = "x") => c.repeat(n);

function sentMessages(): number {
  return server.app.services.phones.all().length;
}

async function storedOrders(merchantId: string): Promise<number> {
  return server.app.services.database.prisma.order.count({ where: { merchantId } });
}

async function eventsOf(orderId: string) {
  return server.app.services.database.prisma.orderEvent.findMany({ where: { orderId } });
}

async function findByExternalId(client: ApiClient, externalOrderId: string) {
  const list = await client.get(`/api/v1/orders?externalOrderId=${encodeURIComponent(externalOrderId)}`);
  expect(list.status).toBe(200);
  expect(list.body.data).toHaveLength(1);
  return list.body.data[0];
}

/** SPEC §3's validation body, exactly: `{ success, message, error, errorCode: null, failureReason, details }`. */
function expectValidationError(response: ApiResponse, language: "en" | "ar" = "en") {
  expect(response.status).toBe(400);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  expect(response.headers.get("content-language")).toBe(language);
  const body = response.body;
  expect(Object.keys(body).sort()).toEqual([...VALIDATION_KEYS].sort());
  expect(body.success).toBe(false);
  expect(body.error).toBe("VALIDATION_ERROR");
  expect(body.errorCode).toBeNull();
  expect(typeof body.message).toBe("string");
  expect(body.failureReason).toBe(body.message);
  expect(Array.isArray(body.details)).toBe(true);
  expect(body.details.length).toBeGreaterThan(0);
  for (const detail of body.details) {
    expect(Object.keys(detail).sort()).toEqual(["field", "message"]);
    expect(typeof detail.field).toBe("string");
    expect(typeof detail.message).toBe("string");
    expect(detail.message.length).toBeGreaterThan(0);
    if (language === "ar") expect(detail.message).toMatch(ARABIC);
    else expect(detail.message).not.toMatch(ARABIC);
  }
  if (language === "ar") expect(body.message).toMatch(/^الطلب غير صالح: /);
  else expect(body.message).toMatch(/^The request is invalid: /);
  return body as { message: string; details: { field: string; message: string }[] };
}

function fieldsOf(body: { details: { field: string }[] }): string[] {
  return body.details.map((detail) => detail.field);
}

function expectFamilyError(response: ApiResponse, status: number, code: string, extra: string[] = []) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  expect(Object.keys(response.body).sort()).toEqual([...FAMILY_KEYS, ...extra].sort());
  expect(response.body.success).toBe(false);
  expect(response.body.error).toBe(code);
  expect(typeof response.body.message).toBe("string");
  expect(response.body.message.length).toBeGreaterThan(0);
}

describe("201: a valid order", () => {
  it("returns the seed's order with exact keys, JSON types, null customerAction/deliveryStatus and item ids", async () => {
    const before = sentMessages();
    const input = orderInput({ currency: "usd" });
    const created = await shop.test.post("/api/v1/orders", input);
    expect(created.status).toBe(201);
    expect(created.headers.get("content-language")).toBe("en");
    expect(created.headers.get("x-request-id")).toBeTruthy();
    const order = created.body;
    expect(Object.keys(order)).toEqual(ORDER_FIELDS);
    expect(order).toEqual({
      id: expect.any(String),
      externalOrderId: input.externalOrderId,
      status: "pending",
      customerAction: null,
      deliveryStatus: null,
      customerName: input.customerName,
      customerPhone: input.customerPhone,
      customerAddress: input.customerAddress,
      subtotal: 149.99,
      shippingCost: 15,
      totalCost: 164.99,
      currency: "USD",
      failureReason: null,
      errorCode: null,
      items: [
        { id: expect.any(String), productName: "Arabic coffee", variantName: "500 g", quantity: 1, unitPrice: 99.99, totalPrice: 99.99 },
        { id: expect.any(String), productName: "Dates", variantName: null, quantity: 2, unitPrice: 25, totalPrice: 50 },
      ],
      createdAt: expect.stringMatching(ISO_MS),
      updatedAt: expect.stringMatching(ISO_MS),
    });
    for (const item of order.items) expect(Object.keys(item)).toEqual(ITEM_FIELDS);
    expect(order.items[0].id).not.toBe(order.items[1].id);
    expect(created.text).not.toContain("note");
    expect(created.text).not.toContain("Leave at the door");

    // One message went to the simulated phone, and the order reads back identically.
    expect(sentMessages()).toBe(before + 1);
    expect(server.app.services.phones.all().at(-1)).toMatchObject({ orderId: order.id, phone: input.customerPhone, language: "en" });
    const fetched = await shop.test.get(`/api/v1/orders/${order.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(order);
    expect((await eventsOf(order.id)).map((event) => event.type)).toEqual(["order.created"]);
  });

  it("stores optional fields as null when they are omitted", async () => {
    const { customerAddress: _a, note: _n, ...input } = orderInput();
    const created = await shop.test.post("/api/v1/orders", {
      ...input,
      items: [{ productName: "Tea", quantity: 3, unitPrice: 2.5, totalPrice: 7.5 }],
    });
    expect(created.status).toBe(201);
    expect(created.body.customerAddress).toBeNull();
    expect(created.body.items).toEqual([
      { id: expect.any(String), productName: "Tea", variantName: null, quantity: 3, unitPrice: 2.5, totalPrice: 7.5 },
    ]);
  });

  it("ignores unknown body fields, including ones that look like server-assigned fields", async () => {
    const input = orderInput({
      id: "00000000-0000-0000-0000-000000000000",
      status: "confirmed",
      customerAction: "approved",
      deliveryStatus: "read",
      errorCode: 1,
      createdAt: "2000-01-01T00:00:00.000Z",
      somethingElse: { nested: true },
      items: [{ productName: "Dates", quantity: 1, unitPrice: 5, totalPrice: 5, id: "item-1", sku: "D-1" }],
    });
    const created = await shop.test.post("/api/v1/orders", input);
    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(ORDER_FIELDS);
    expect(created.body).toMatchObject({ status: "pending", customerAction: null, deliveryStatus: null, errorCode: null });
    expect(created.body.id).not.toBe("00000000-0000-0000-0000-000000000000");
    expect(created.body.createdAt).not.toBe("2000-01-01T00:00:00.000Z");
    expect(Object.keys(created.body.items[0])).toEqual(ITEM_FIELDS);
    expect(created.body.items[0].id).not.toBe("item-1");
    expect(created.text).not.toContain("somethingElse");
    expect(created.text).not.toContain("sku");
  });

  it("accepts every bound at its limit", async () => {
    const created = await shop.test.post(
      "/api/v1/orders",
      orderInput({
        externalOrderId: chars(100, "b"),
        customerName: chars(120, "n"),
        customerPhone: "123456789012345",
        customerAddress: chars(500, "a"),
        note: chars(1000, "z"),
        subtotal: 1e12,
        shippingCost: 0,
        totalCost: 1e12,
        currency: "eUr",
        items: Array.from({ length: 100 }, (_, i) => ({
          productName: i === 0 ? chars(200, "p") : `P${i}`,
          variantName: i === 0 ? chars(200, "v") : undefined,
          quantity: i === 1 ? 0.0001 : 1,
          unitPrice: 0,
          totalPrice: 0,
        })),
      }),
    );
    expect(created.status).toBe(201);
    expect(created.body.externalOrderId).toHaveLength(100);
    expect(created.body.customerName).toHaveLength(120);
    expect(created.body.customerPhone).toBe("123456789012345");
    expect(created.body.customerAddress).toHaveLength(500);
    expect(created.body.currency).toBe("EUR");
    expect(created.body.subtotal).toBe(1e12);
    expect(created.body.items).toHaveLength(100);
    expect(created.body.items[0].productName).toHaveLength(200);
    expect(created.body.items[0].variantName).toHaveLength(200);
    expect(created.body.items[1].quantity).toBe(0.0001);
    expect(created.body.items.map((item: { productName: string }) => item.productName).slice(1, 4)).toEqual(["P1", "P2", "P3"]);

    const shortest = await shop.test.post("/api/v1/orders", orderInput({ externalOrderId: "1", customerName: "N", customerPhone: "12345678" }));
    expect(shortest.status).toBe(201);
    expect(shortest.body).toMatchObject({ externalOrderId: "1", customerName: "N", customerPhone: "12345678" });
  });

  it("accepts application/json with a charset parameter", async () => {
    const created = await shop.test.post("/api/v1/orders", undefined, {
      rawBody: JSON.stringify(orderInput()),
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(created.status).toBe(201);
  });
});

describe("money is exact", () => {
  it("returns decimal amounts exactly as sent, on create, get and in the outbox", async () => {
    const input = orderInput({
      subtotal: 0.3,
      shippingCost: 0.1,
      totalCost: 0.4,
      items: [
        { productName: "A", quantity: 3, unitPrice: 0.1, totalPrice: 0.3 },
        { productName: "B", quantity: 1.5, unitPrice: 12.3456, totalPrice: 18.5184 },
        { productName: "C", quantity: 1, unitPrice: 99999999999.9999, totalPrice: 999999999999.99 },
        { productName: "D", quantity: 7, unitPrice: 0.0001, totalPrice: 0.0007 },
      ],
    });
    const created = await shop.test.post("/api/v1/orders", input);
    expect(created.status).toBe(201);
    const expectMoney = (order: any) => {
      expect(order).toMatchObject({ subtotal: 0.3, shippingCost: 0.1, totalCost: 0.4 });
      expect(order.items.map(({ quantity, unitPrice, totalPrice }: any) => [quantity, unitPrice, totalPrice])).toEqual([
        [3, 0.1, 0.3],
        [1.5, 12.3456, 18.5184],
        [1, 99999999999.9999, 999999999999.99],
        [7, 0.0001, 0.0007],
      ]);
    };
    expectMoney(created.body);
    // JSON numbers in the wire text, written the shortest way (no 0.30000000000000004, no strings).
    expect(created.text).toContain('"subtotal":0.3,');
    expect(created.text).toContain('"unitPrice":99999999999.9999,');
    expect(created.text).toContain('"totalPrice":999999999999.99}');
    expect(created.text).toContain('"totalPrice":18.5184}');
    expect(created.text).not.toContain("0000000000000004");

    const fetched = await shop.test.get(`/api/v1/orders/${created.body.id}`);
    expectMoney(fetched.body);
    const [event] = await eventsOf(created.body.id);
    expectMoney((event.payload as any).data);

    // Stored as exact decimals, not binary floating point.
    const [row] = await server.app.services.database.prisma.$queryRaw<{ subtotal: string; max: string }[]>`
      SELECT o.subtotal::text AS subtotal, max(i.unit_price)::text AS max
        FROM orders o JOIN order_items i ON i.order_id = o.id WHERE o.id = ${created.body.id}::uuid GROUP BY o.subtotal`;
    expect(Number(row.subtotal)).toBe(0.3);
    expect(row.max).toBe("99999999999.9999");
  });

  it("refuses amounts with more than 15 significant digits instead of storing them altered", async () => {
    // 999999999999.9997 cannot survive JSON number parsing: it arrives as 999999999999.9998.
    const input = orderInput({ totalCost: 999999999999.9997 });
    const refused = await shop.test.post("/api/v1/orders", input, { headers: { "accept-language": "ar" } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("VALIDATION_ERROR");
    expect(refused.body.details).toEqual([{ field: "totalCost", message: expect.stringContaining("15") }]);
    expect(refused.body.details[0].message).toMatch(/[\u0600-\u06FF]/);
    expect((await shop.test.get(`/api/v1/orders?externalOrderId=${input.externalOrderId}`)).body.data).toEqual([]);
  });
});

describe("400 VALIDATION_ERROR", () => {
  let strict: TestMerchant;
  beforeAll(async () => {
    strict = await server.merchant("Validation Shop");
  });

  /** Each case: a body transformation, and the field paths that must be reported. */
  const cases: [string, (body: Record<string, any>) => unknown, string[]][] = [
    ["externalOrderId missing", ({ externalOrderId: _, ...rest }) => rest, ["externalOrderId"]],
    ["externalOrderId empty", (b) => ({ ...b, externalOrderId: "" }), ["externalOrderId"]],
    ["externalOrderId blank", (b) => ({ ...b, externalOrderId: "   " }), ["externalOrderId"]],
    ["externalOrderId 101 chars", (b) => ({ ...b, externalOrderId: chars(101) }), ["externalOrderId"]],
    ["externalOrderId a number", (b) => ({ ...b, externalOrderId: 12345 }), ["externalOrderId"]],
    ["customerName missing", ({ customerName: _, ...rest }) => rest, ["customerName"]],
    ["customerName empty", (b) => ({ ...b, customerName: "" }), ["customerName"]],
    ["customerName 121 chars", (b) => ({ ...b, customerName: chars(121) }), ["customerName"]],
    ["customerPhone missing", ({ customerPhone: _, ...rest }) => rest, ["customerPhone"]],
    ["customerPhone with +", (b) => ({ ...b, customerPhone: "+966501234567" }), ["customerPhone"]],
    ["customerPhone with a leading 0", (b) => ({ ...b, customerPhone: "0966501234567" }), ["customerPhone"]],
    ["customerPhone 7 digits", (b) => ({ ...b, customerPhone: "1234567" }), ["customerPhone"]],
    ["customerPhone 16 digits", (b) => ({ ...b, customerPhone: "1234567890123456" }), ["customerPhone"]],
    ["customerPhone with a letter", (b) => ({ ...b, customerPhone: "96650123456a" }), ["customerPhone"]],
    ["customerPhone with spaces inside", (b) => ({ ...b, customerPhone: "966 50 123 4567" }), ["customerPhone"]],
    ["customerPhone a number", (b) => ({ ...b, customerPhone: 966501234567 }), ["customerPhone"]],
    ["customerAddress 501 chars", (b) => ({ ...b, customerAddress: chars(501) }), ["customerAddress"]],
    ["customerAddress not a string", (b) => ({ ...b, customerAddress: { line1: "x" } }), ["customerAddress"]],
    ["note 1001 chars", (b) => ({ ...b, note: chars(1001) }), ["note"]],
    ["currency missing", ({ currency: _, ...rest }) => rest, ["currency"]],
    ["currency not ISO 4217", (b) => ({ ...b, currency: "ABC" }), ["currency"]],
    ["currency two letters", (b) => ({ ...b, currency: "SA" }), ["currency"]],
    ["currency four letters", (b) => ({ ...b, currency: "SARR" }), ["currency"]],
    ["currency a symbol", (b) => ({ ...b, currency: "$" }), ["currency"]],
    ["subtotal missing", ({ subtotal: _, ...rest }) => rest, ["subtotal"]],
    ["subtotal as a string", (b) => ({ ...b, subtotal: "149.99" }), ["subtotal"]],
    ["subtotal null", (b) => ({ ...b, subtotal: null }), ["subtotal"]],
    ["subtotal negative", (b) => ({ ...b, subtotal: -0.01 }), ["subtotal"]],
    ["shippingCost over 1e12", (b) => ({ ...b, shippingCost: 1e12 + 0.01 }), ["shippingCost"]],
    ["totalCost with 5 decimals", (b) => ({ ...b, totalCost: 164.99001 }), ["totalCost"]],
    ["totalCost as a boolean", (b) => ({ ...b, totalCost: true }), ["totalCost"]],
    ["items missing", ({ items: _, ...rest }) => rest, ["items"]],
    ["items empty", (b) => ({ ...b, items: [] }), ["items"]],
    ["items not an array", (b) => ({ ...b, items: { productName: "x" } }), ["items"]],
    [
      "101 items",
      (b) => ({ ...b, items: Array.from({ length: 101 }, () => ({ productName: "x", quantity: 1, unitPrice: 1, totalPrice: 1 })) }),
      ["items"],
    ],
    ["an item that is not an object", (b) => ({ ...b, items: ["coffee"] }), ["items[0]"]],
    ["items[0].productName missing", (b) => ({ ...b, items: [{ quantity: 1, unitPrice: 1, totalPrice: 1 }] }), ["items[0].productName"]],
    ["items[1].productName empty", (b) => ({ ...b, items: [b.items[0], { ...b.items[1], productName: "" }] }), ["items[1].productName"]],
    ["items[0].productName 201 chars", (b) => ({ ...b, items: [{ ...b.items[0], productName: chars(201) }] }), ["items[0].productName"]],
    ["items[0].variantName 201 chars", (b) => ({ ...b, items: [{ ...b.items[0], variantName: chars(201) }] }), ["items[0].variantName"]],
    ["items[0].quantity zero", (b) => ({ ...b, items: [{ ...b.items[0], quantity: 0 }] }), ["items[0].quantity"]],
    ["items[0].quantity negative", (b) => ({ ...b, items: [{ ...b.items[0], quantity: -1 }] }), ["items[0].quantity"]],
    ["items[0].quantity missing", (b) => ({ ...b, items: [{ productName: "x", unitPrice: 1, totalPrice: 1 }] }), ["items[0].quantity"]],
    ["items[1].unitPrice as a string", (b) => ({ ...b, items: [b.items[0], { ...b.items[1], unitPrice: "25" }] }), ["items[1].unitPrice"]],
    ["items[0].unitPrice negative", (b) => ({ ...b, items: [{ ...b.items[0], unitPrice: -5 }] }), ["items[0].unitPrice"]],
    ["items[0].totalPrice with 5 decimals", (b) => ({ ...b, items: [{ ...b.items[0], totalPrice: 0.00001 }] }), ["items[0].totalPrice"]],
    ["items[0].totalPrice over 1e12", (b) => ({ ...b, items: [{ ...b.items[0], totalPrice: 2e12 }] }), ["items[0].totalPrice"]],
    ["body is an array", () => [], ["body"]],
    ["body is a JSON string", () => "order", ["body"]],
    ["body is null", () => null, ["body"]],
  ];

  it.each(cases)("%s", async (_name, mutate, fields) => {
    const storedBefore = await storedOrders(strict.id);
    const sentBefore = sentMessages();
    const response = await strict.test.post("/api/v1/orders", mutate(orderInput()));
    const body = expectValidationError(response);
    expect(fieldsOf(body)).toEqual(fields);
    // The summary names every field.
    for (const field of fields) expect(body.message).toContain(field);
    expect(await storedOrders(strict.id)).toBe(storedBefore);
    expect(sentMessages()).toBe(sentBefore);
  });

  it("uses readable English detail messages", async () => {
    const input = orderInput();
    const cases: [unknown, { field: string; message: string }][] = [
      [{ ...input, externalOrderId: undefined }, { field: "externalOrderId", message: "is required" }],
      [{ ...input, customerName: "" }, { field: "customerName", message: "must not be empty" }],
      [{ ...input, customerName: chars(121) }, { field: "customerName", message: "must be at most 120 characters" }],
      [{ ...input, subtotal: "149.99" }, { field: "subtotal", message: "must be a number" }],
      [{ ...input, subtotal: -1 }, { field: "subtotal", message: "must be zero or more" }],
      [{ ...input, totalCost: 1.23456 }, { field: "totalCost", message: "must have at most 4 decimal places" }],
      [{ ...input, items: [] }, { field: "items", message: "must contain at least 1 item(s)" }],
      [{ ...input, items: [{ ...input.items[0], quantity: 0 }] }, { field: "items[0].quantity", message: "must be greater than 0" }],
      [
        { ...input, customerPhone: "+966501234567" },
        { field: "customerPhone", message: "must be 8–15 digits with the country code, without + or a leading 0" },
      ],
      [{ ...input, currency: "ABC" }, { field: "currency", message: "must be a 3-letter ISO 4217 currency code" }],
    ];
    for (const [body, detail] of cases) {
      const response = await strict.test.post("/api/v1/orders", body);
      const error = expectValidationError(response);
      expect(error.details).toEqual([detail]);
      expect(error.message).toBe(`The request is invalid: ${detail.field} ${detail.message}`);
    }
  });

  it("reports every problem at once, in one message and one detail each", async () => {
    const input = orderInput();
    const response = await strict.test.post("/api/v1/orders", {
      ...input,
      customerPhone: "0123",
      subtotal: "149.99",
      items: [{ ...input.items[0], quantity: 0 }, { ...input.items[1], productName: "" }],
    });
    const body = expectValidationError(response);
    expect(fieldsOf(body).sort()).toEqual(["customerPhone", "items[0].quantity", "items[1].productName", "subtotal"].sort());
    expect(body.message.split("; ")).toHaveLength(4);
  });

  it("rejects a non-finite number (1e999 parses to Infinity)", async () => {
    const text = JSON.stringify(orderInput({ subtotal: 123456 })).replace('"subtotal":123456', '"subtotal":1e999');
    const response = await strict.test.post("/api/v1/orders", undefined, { rawBody: text, headers: { "content-type": "application/json" } });
    const body = expectValidationError(response);
    expect(fieldsOf(body)).toEqual(["subtotal"]);
  });

  it("answers invalid JSON and an empty body with a body-level problem", async () => {
    const cases: [string, string][] = [
      ['{"externalOrderId": "A-1",', "must be a valid JSON object"],
      ["{'single': 'quotes'}", "must be a valid JSON object"],
      ["", "is required"],
      ["   ", "is required"],
    ];
    for (const [rawBody, message] of cases) {
      const storedBefore = await storedOrders(strict.id);
      const response = await strict.test.post("/api/v1/orders", undefined, { rawBody, headers: { "content-type": "application/json" } });
      const body = expectValidationError(response);
      expect(body.details).toEqual([{ field: "body", message }]);
      expect(await storedOrders(strict.id)).toBe(storedBefore);
    }
  });

  it("stores nothing: the order list is unchanged after validation errors", async () => {
    const fresh = await server.merchant("Untouched Shop");
    await fresh.test.post("/api/v1/orders", orderInput({ customerPhone: "+1" }));
    await fresh.test.post("/api/v1/orders", orderInput({ items: [] }));
    await fresh.test.post("/api/v1/orders", undefined, { rawBody: "{", headers: { "content-type": "application/json" } });
    const list = await fresh.test.get("/api/v1/orders");
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
    expect(await storedOrders(fresh.id)).toBe(0);
    // And the externalOrderId of a rejected body is still free.
    const input = orderInput();
    expectValidationError(await fresh.test.post("/api/v1/orders", { ...input, subtotal: "1" }));
    expect((await fresh.test.post("/api/v1/orders", input)).status).toBe(201);
  });

  describe("in Arabic", () => {
    const arabicHeaders = ["ar", "ar-EG", "ar;q=0.9, en;q=0.8", "en;q=0.1, ar;q=0.9", "AR"];
    it.each(arabicHeaders)("Accept-Language: %s localises message and every details[].message", async (acceptLanguage) => {
      const input = orderInput();
      const response = await strict.test.post(
        "/api/v1/orders",
        { ...input, customerPhone: "+966", items: [{ ...input.items[0], quantity: 0 }] },
        { headers: { "accept-language": acceptLanguage } },
      );
      const body = expectValidationError(response, "ar");
      expect(fieldsOf(body)).toEqual(["customerPhone", "items[0].quantity"]);
      expect(body.details[1].message).toBe("يجب أن يكون أكبر من 0");
      // Field paths stay as the client wrote them; problems are joined with the Arabic separator.
      expect(body.message).toContain("customerPhone");
      expect(body.message).toContain("items[0].quantity");
      expect(body.message).toContain("؛ ");
    });

    it("localises the invalid-JSON problem", async () => {
      const response = await strict.test.post("/api/v1/orders", undefined, {
        rawBody: "{nope",
        headers: { "content-type": "application/json", "accept-language": "ar" },
      });
      const body = expectValidationError(response, "ar");
      expect(body.details).toEqual([{ field: "body", message: "يجب أن يكون كائن JSON صالحًا" }]);
    });

    it.each(["fr", "fr-FR, de;q=0.8", "ar;q=0.1, en;q=0.9", "*", "x-klingon"])("Accept-Language: %s falls back to English", async (acceptLanguage) => {
      const response = await strict.test.post("/api/v1/orders", { ...orderInput(), items: [] }, { headers: { "accept-language": acceptLanguage } });
      const body = expectValidationError(response, "en");
      expect(body.details).toEqual([{ field: "items", message: "must contain at least 1 item(s)" }]);
    });
  });
});

describe("415 UNSUPPORTED_MEDIA_TYPE and 413 PAYLOAD_TOO_LARGE", () => {
  const json = () => JSON.stringify(orderInput());

  it.each([
    ["text/plain", { "content-type": "text/plain" }],
    ["text/plain with charset", { "content-type": "text/plain; charset=utf-8" }],
    ["form-encoded", { "content-type": "application/x-www-form-urlencoded" }],
    ["multipart", { "content-type": "multipart/form-data; boundary=x" }],
    ["application/xml", { "content-type": "application/xml" }],
  ])("%s → 415", async (_name, headers) => {
    const before = await storedOrders(shop.id);
    const response = await shop.test.post("/api/v1/orders", undefined, { rawBody: json(), headers });
    expectFamilyError(response, 415, "UNSUPPORTED_MEDIA_TYPE");
    expect(response.body.message).toBe("Content-Type must be application/json");
    expect(await storedOrders(shop.id)).toBe(before);
  });

  it("a body without any Content-Type → 415", async () => {
    const before = await storedOrders(shop.id);
    // A Buffer body makes fetch send no Content-Type at all.
    const response = await shop.test.post("/api/v1/orders", undefined, { rawBody: Buffer.from(json()) });
    expectFamilyError(response, 415, "UNSUPPORTED_MEDIA_TYPE");
    expect(await storedOrders(shop.id)).toBe(before);
  });

  it("localises 415 in Arabic", async () => {
    const response = await shop.test.post("/api/v1/orders", undefined, {
      rawBody: json(),
      headers: { "content-type": "text/plain", "accept-language": "ar-EG" },
    });
    expectFamilyError(response, 415, "UNSUPPORTED_MEDIA_TYPE");
    expect(response.body.message).toMatch(ARABIC);
    expect(response.headers.get("content-language")).toBe("ar");
  });

  it("a body over 1 MiB → 413, in English and Arabic, and nothing is stored", async () => {
    const before = await storedOrders(shop.id);
    const big = JSON.stringify(orderInput({ note: chars(1024 * 1024) }));
    expect(Buffer.byteLength(big)).toBeGreaterThan(1024 * 1024);
    const response = await shop.test.post("/api/v1/orders", undefined, { rawBody: big, headers: { "content-type": "application/json" } });
    expectFamilyError(response, 413, "PAYLOAD_TOO_LARGE");
    expect(response.body.message).toBe("The request body is larger than 1 MiB");

    const arabic = await shop.test.post("/api/v1/orders", undefined, {
      rawBody: big,
      headers: { "content-type": "application/json", "accept-language": "ar" },
    });
    expectFamilyError(arabic, 413, "PAYLOAD_TOO_LARGE");
    expect(arabic.body.message).toMatch(ARABIC);
    expect(await storedOrders(shop.id)).toBe(before);
  });

  it("a body just under 1 MiB is parsed (and then validated)", async () => {
    const padded = JSON.stringify(orderInput({ padding: chars(1024 * 1024 - 2000) }));
    expect(Buffer.byteLength(padded)).toBeLessThan(1024 * 1024);
    const response = await shop.test.post("/api/v1/orders", undefined, { rawBody: padded, headers: { "content-type": "application/json" } });
    expect(response.status).toBe(201);
  });
});

describe("409 DUPLICATE_EXTERNAL_ORDER_ID", () => {
  it("answers with the existing order's id and sends no second message", async () => {
    const input = orderInput();
    const first = await shop.test.post("/api/v1/orders", input);
    expect(first.status).toBe(201);
    const sent = sentMessages();
    const stored = await storedOrders(shop.id);

    const again = await shop.test.post("/api/v1/orders", { ...input, customerName: "Someone Else", totalCost: 1 });
    expectFamilyError(again, 409, "DUPLICATE_EXTERNAL_ORDER_ID", ["orderId"]);
    expect(again.body.orderId).toBe(first.body.id);
    expect(again.body.message).toBe(`An order with externalOrderId "${input.externalOrderId}" already exists`);

    const arabic = await shop.test.post("/api/v1/orders", input, { headers: { "accept-language": "ar" } });
    expectFamilyError(arabic, 409, "DUPLICATE_EXTERNAL_ORDER_ID", ["orderId"]);
    expect(arabic.body.orderId).toBe(first.body.id);
    expect(arabic.body.message).toMatch(ARABIC);
    expect(arabic.body.message).toContain(input.externalOrderId);
    expect(arabic.headers.get("content-language")).toBe("ar");

    expect(sentMessages()).toBe(sent);
    expect(await storedOrders(shop.id)).toBe(stored);
    expect((await shop.test.get(`/api/v1/orders/${first.body.id}`)).body).toEqual(first.body);
    expect((await eventsOf(first.body.id)).length).toBe(1);
  });

  it("compares the trimmed externalOrderId", async () => {
    const input = orderInput();
    const first = await shop.test.post("/api/v1/orders", input);
    const padded = await shop.test.post("/api/v1/orders", { ...input, externalOrderId: `  ${input.externalOrderId} ` });
    expectFamilyError(padded, 409, "DUPLICATE_EXTERNAL_ORDER_ID", ["orderId"]);
    expect(padded.body.orderId).toBe(first.body.id);
  });

  it("also holds for an externalOrderId whose order failed", async () => {
    const input = orderInput({ customerPhone: "999131030" });
    expect((await shop.test.post("/api/v1/orders", input)).status).toBe(400);
    const failed = await findByExternalId(shop.test, input.externalOrderId);
    const again = await shop.test.post("/api/v1/orders", { ...input, customerPhone: "966501234567" });
    expectFamilyError(again, 409, "DUPLICATE_EXTERNAL_ORDER_ID", ["orderId"]);
    expect(again.body.orderId).toBe(failed.id);
  });

  it("is scoped to the merchant: another merchant may use the same externalOrderId", async () => {
    const input = orderInput();
    const mine = await shop.test.post("/api/v1/orders", input);
    const other = await server.merchant("Neighbour Shop");
    const theirs = await other.test.post("/api/v1/orders", input);
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it("10 concurrent creates with one externalOrderId: exactly one 201, nine 409, one message", async () => {
    const input = orderInput();
    const sent = sentMessages();
    const responses = await Promise.all(Array.from({ length: 10 }, () => shop.test.post("/api/v1/orders", input)));
    const created = responses.filter((response) => response.status === 201);
    const conflicts = responses.filter((response) => response.status === 409);
    expect(created).toHaveLength(1);
    expect(conflicts).toHaveLength(9);
    for (const conflict of conflicts) {
      expectFamilyError(conflict, 409, "DUPLICATE_EXTERNAL_ORDER_ID", ["orderId"]);
      expect(conflict.body.orderId).toBe(created[0].body.id);
    }
    expect(sentMessages()).toBe(sent + 1);
    const rows = await server.app.services.database.prisma.order.findMany({
      where: { merchantId: shop.id, externalOrderId: input.externalOrderId },
    });
    expect(rows).toHaveLength(1);
    expect((await eventsOf(created[0].body.id)).map((event) => event.type)).toEqual(["order.created"]);
  });
});

describe("400 provider rejection (seed body: exactly message, errorCode, failureReason)", () => {
  const rejections: [string, number, string][] = [
    ["999131030", 131030, "(#131030) Recipient phone number not in allowed list"],
    ["999132015", 132015, "(#132015) Template is Paused"],
    ["999131045", 131045, "(#131045) Incorrect certificate"],
    ["999000190", 190, "Error validating access token: Session has expired"],
    ["999123456", 123456, "(#123456) Simulated rejection"],
  ];

  it.each(rejections)("customerPhone %s → 400 with errorCode %i, order stored failed, no event", async (phone, code, reason) => {
    const sent = sentMessages();
    const input = orderInput({ customerPhone: phone });
    const response = await shop.test.post("/api/v1/orders", input);
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("content-language")).toBe("en");
    expect(Object.keys(response.body).sort()).toEqual(["errorCode", "failureReason", "message"]);
    expect(response.body).toEqual({
      message: `The confirmation message could not be sent: ${reason}`,
      errorCode: code,
      failureReason: reason,
    });
    expect(Number.isInteger(response.body.errorCode)).toBe(true);
    expect(response.body.message).toContain(response.body.failureReason);

    const stored = await findByExternalId(shop.test, input.externalOrderId);
    expect(Object.keys(stored)).toEqual(ORDER_FIELDS);
    expect(stored).toMatchObject({
      externalOrderId: input.externalOrderId,
      status: "failed",
      customerAction: null,
      deliveryStatus: "failed",
      errorCode: code,
      failureReason: reason,
      customerPhone: phone,
    });
    const fetched = await shop.test.get(`/api/v1/orders/${stored.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(stored);
    expect(fetched.text).not.toContain("note");

    expect(await eventsOf(stored.id)).toEqual([]);
    expect(sentMessages()).toBe(sent);
  });

  it("localises the message around the provider's text in Arabic; failureReason stays the provider's", async () => {
    for (const acceptLanguage of ["ar", "ar-EG", "ar;q=0.9, en;q=0.8"]) {
      const input = orderInput({ customerPhone: "999132015" });
      const response = await shop.test.post("/api/v1/orders", input, { headers: { "accept-language": acceptLanguage } });
      expect(response.status).toBe(400);
      expect(response.headers.get("content-language")).toBe("ar");
      expect(Object.keys(response.body).sort()).toEqual(["errorCode", "failureReason", "message"]);
      expect(response.body.errorCode).toBe(132015);
      expect(response.body.failureReason).toBe("(#132015) Template is Paused");
      expect(response.body.message).toMatch(ARABIC);
      expect(response.body.message).toContain("(#132015) Template is Paused");
      const stored = await findByExternalId(shop.test, input.externalOrderId);
      expect(stored).toMatchObject({ status: "failed", deliveryStatus: "failed", errorCode: 132015, failureReason: "(#132015) Template is Paused" });
    }
  });

  it("shows the failed order among failed orders in the list", async () => {
    const input = orderInput({ customerPhone: "999133010" });
    expect((await shop.test.post("/api/v1/orders", input)).status).toBe(400);
    const failed = await shop.test.get("/api/v1/orders?status=failed&limit=100");
    expect(failed.body.data.map((order: { externalOrderId: string }) => order.externalOrderId)).toContain(input.externalOrderId);
  });
});

describe("502 PROVIDER_UNAVAILABLE", () => {
  it("the simulator's unreachable number: 502 with the family body, order stored failed, no event", async () => {
    const input = orderInput({ customerPhone: "9990000000" });
    const response = await shop.test.post("/api/v1/orders", input);
    expectFamilyError(response, 502, "PROVIDER_UNAVAILABLE", ["errorCode", "failureReason"]);
    expect(response.body).toEqual({
      success: false,
      message: expect.stringContaining("unavailable"),
      error: "PROVIDER_UNAVAILABLE",
      errorCode: null,
      failureReason: "Unknown failure",
    });
    const stored = await findByExternalId(shop.test, input.externalOrderId);
    expect(stored).toMatchObject({ status: "failed", deliveryStatus: "failed", customerAction: null, errorCode: null, failureReason: "Unknown failure" });
    expect(await eventsOf(stored.id)).toEqual([]);

    const arabic = await shop.test.post("/api/v1/orders", orderInput({ customerPhone: "9990000000" }), { headers: { "accept-language": "ar" } });
    expectFamilyError(arabic, 502, "PROVIDER_UNAVAILABLE", ["errorCode", "failureReason"]);
    expect(arabic.body.message).toMatch(ARABIC);
    expect(arabic.headers.get("content-language")).toBe("ar");
  });

  it("a live-mode key without WhatsApp configuration: 502 naming the env vars, order stored failed, no event, no message", async () => {
    const sent = sentMessages();
    const input = orderInput();
    const response = await shop.live.post("/api/v1/orders", input);
    expectFamilyError(response, 502, "PROVIDER_UNAVAILABLE", ["errorCode", "failureReason"]);
    expect(response.body.errorCode).toBeNull();
    expect(typeof response.body.failureReason).toBe("string");
    for (const variable of ["WHATSAPP_PHONE_NUMBER_ID", "WHATSAPP_ACCESS_TOKEN"]) expect(response.body.message).toContain(variable);

    const stored = await findByExternalId(shop.live, input.externalOrderId);
    expect(stored).toMatchObject({ status: "failed", deliveryStatus: "failed", errorCode: null });
    expect(await eventsOf(stored.id)).toEqual([]);
    expect(sentMessages()).toBe(sent);
    // Live and test orders are separate worlds: the test key does not see it.
    expect((await shop.test.get(`/api/v1/orders/${stored.id}`)).status).toBe(404);

    const arabic = await shop.live.post("/api/v1/orders", orderInput(), { headers: { "accept-language": "ar" } });
    expectFamilyError(arabic, 502, "PROVIDER_UNAVAILABLE", ["errorCode", "failureReason"]);
    expect(arabic.body.message).toMatch(ARABIC);
    expect(arabic.body.message).toContain("WHATSAPP_ACCESS_TOKEN");
  });
});
