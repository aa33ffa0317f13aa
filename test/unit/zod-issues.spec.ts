import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fieldPath, problemFromIssue } from "../../src/i18n/zod-issues.ts";
import { createOrderInput } from "../../src/domain/orders/order.schemas.ts";
import { listOrdersQuery } from "../../src/http/schemas.ts";
import { hasMessage } from "../../src/i18n/messages.ts";
import { orderInput } from "../support/fixtures.ts";

function problems(schema: z.ZodType, data: unknown) {
  const result = schema.safeParse(data, { reportInput: true });
  if (result.success) throw new Error("expected a validation failure");
  return result.error.issues.map((issue) => problemFromIssue(issue));
}

describe("fieldPath", () => {
  it.each([
    [["items", 0, "quantity"], undefined, "items[0].quantity"],
    [["customerPhone"], undefined, "customerPhone"],
    [["a", "b", "c"], undefined, "a.b.c"],
    [["items", 2], undefined, "items[2]"],
    [[0, "x"], undefined, "[0].x"],
    [["matrix", 1, 2, "cell"], undefined, "matrix[1][2].cell"],
    [[], undefined, "body"],
    [[], "query", "query"],
    [["limit"], "query", "query.limit"],
  ] as const)("%j (root %s) → %s", (path, root, expected) => {
    expect(fieldPath(path, root)).toBe(expected);
  });
});

describe("problemFromIssue on the create-order schema", () => {
  it("names nested item fields with indexes", () => {
    const input = orderInput();
    input.items[1] = { ...input.items[1], quantity: -1 } as any;
    expect(problems(createOrderInput, input)).toEqual([{ field: "items[1].quantity", key: "field.number.gt", params: { min: 0 } }]);
  });

  it("reports a missing field as required, and a wrong type by the expected type", () => {
    const { customerName: _removed, ...input } = orderInput();
    expect(problems(createOrderInput, input)).toEqual([{ field: "customerName", key: "field.required" }]);
    expect(problems(createOrderInput, orderInput({ subtotal: "149.99" }))).toEqual([{ field: "subtotal", key: "field.type.number" }]);
    expect(problems(createOrderInput, orderInput({ customerName: 5 }))).toEqual([{ field: "customerName", key: "field.type.string" }]);
    expect(problems(createOrderInput, orderInput({ items: {} }))).toEqual([{ field: "items", key: "field.type.array" }]);
  });

  it("maps string and array bounds with their limits", () => {
    expect(problems(createOrderInput, orderInput({ externalOrderId: "x".repeat(101) }))).toEqual([
      { field: "externalOrderId", key: "field.string.max", params: { max: 100 } },
    ]);
    expect(problems(createOrderInput, orderInput({ customerName: "" }))).toEqual([
      { field: "customerName", key: "field.string.min", params: { min: 1 } },
    ]);
    expect(problems(createOrderInput, orderInput({ items: [] }))).toEqual([{ field: "items", key: "field.array.min", params: { min: 1 } }]);
  });

  it("maps the schema's own catalogue keys", () => {
    expect(problems(createOrderInput, orderInput({ customerPhone: "+966501234567" }))).toEqual([
      { field: "customerPhone", key: "field.format.phone" },
    ]);
    expect(problems(createOrderInput, orderInput({ currency: "XYZ" }))).toEqual([{ field: "currency", key: "field.format.currency" }]);
    expect(problems(createOrderInput, orderInput({ totalCost: 1.23456 }))).toEqual([{ field: "totalCost", key: "field.number.decimals" }]);
    expect(problems(createOrderInput, orderInput({ totalCost: -1 }))).toEqual([{ field: "totalCost", key: "field.number.nonnegative" }]);
    expect(problems(createOrderInput, orderInput({ totalCost: 1e13 }))).toEqual([{ field: "totalCost", key: "field.number.max_money" }]);
  });

  it("produces only keys the catalogue knows", () => {
    const bad = orderInput({
      externalOrderId: "",
      customerPhone: "0",
      currency: "??",
      subtotal: "1",
      shippingCost: -1,
      totalCost: 1e-9,
      items: [{ productName: "", quantity: 0, unitPrice: 1e13, totalPrice: "x" }],
    });
    for (const problem of problems(createOrderInput, bad)) expect(hasMessage(problem.key), problem.key).toBe(true);
  });
});

describe("problemFromIssue on the list query", () => {
  it("maps limit, status, dates and cursor", () => {
    expect(problems(listOrdersQuery, { limit: "0" })).toEqual([{ field: "limit", key: "field.number.gte", params: { min: 1 } }]);
    expect(problems(listOrdersQuery, { limit: "101" })).toEqual([{ field: "limit", key: "field.number.lte", params: { max: 100 } }]);
    expect(problems(listOrdersQuery, { limit: "abc" })).toEqual([{ field: "limit", key: "field.type.integer" }]);
    expect(problems(listOrdersQuery, { status: "shipped" })).toEqual([
      { field: "status", key: "field.enum", params: { values: "pending, confirmed, canceled, failed, expired" } },
    ]);
    expect(problems(listOrdersQuery, { createdFrom: "yesterday" })).toEqual([{ field: "createdFrom", key: "field.format.datetime" }]);
    expect(problems(listOrdersQuery, { cursor: "garbage" })).toEqual([{ field: "cursor", key: "field.format.cursor" }]);
  });

  it("accepts good values and normalises them", () => {
    const parsed = listOrdersQuery.parse({ status: ["pending", "confirmed,failed"], limit: "5", createdFrom: "2026-01-01T00:00:00+03:00" });
    expect(parsed.status).toEqual(["pending", "confirmed", "failed"]);
    expect(parsed.limit).toBe(5);
    expect(parsed.createdFrom?.toISOString()).toBe("2025-12-31T21:00:00.000Z");
    expect(listOrdersQuery.parse({}).limit).toBe(20);
  });
});
