import { describe, expect, it } from "vitest";
import { createOrderInput, decimalPlaces, MAX_MONEY, significantDigits } from "../../src/domain/orders/order.schemas.ts";
import { orderInput } from "../support/fixtures.ts";

describe("decimalPlaces", () => {
  it.each([
    [0, 0],
    [5, 0],
    [149.99, 2],
    [1.0001, 4],
    [0.0001, 4],
    [123.456, 3],
    [1e12, 0],
    [1e21, 0],
    [1.5e21, 0],
    [1e-7, 7],
    [1.5e-7, 8],
    [1.23e-5, 7],
    [2.5e-10, 11],
    [0.1 + 0.2, 17],
    [-12.345, 3],
  ])("%s has %s decimals", (value, expected) => {
    expect(decimalPlaces(value)).toBe(expected);
  });
});

const parse = (overrides: Record<string, unknown>) => createOrderInput.safeParse(orderInput(overrides));
const fieldsOf = (overrides: Record<string, unknown>) => {
  const result = parse(overrides);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join("."));
};

describe("createOrderInput money fields", () => {
  it("accepts up to 4 decimals, zero and the maximum", () => {
    expect(parse({ subtotal: 1.2345, shippingCost: 0, totalCost: MAX_MONEY }).success).toBe(true);
  });

  it.each([
    ["five decimals", 1.23456],
    ["an exponent form beyond 4 decimals", 1e-7],
    ["negative", -0.01],
    ["above 1e12", MAX_MONEY + 1],
    ["a numeric string", "149.99"],
    ["infinity", Number.POSITIVE_INFINITY],
    ["NaN", Number.NaN],
    ["null", null],
  ])("rejects %s", (_name, value) => {
    expect(fieldsOf({ totalCost: value })).toEqual(["totalCost"]);
  });

  it("checks item money and quantity the same way", () => {
    expect(fieldsOf({ items: [{ productName: "x", quantity: 0, unitPrice: 1.00001, totalPrice: -1 }] })).toEqual([
      "items.0.quantity",
      "items.0.unitPrice",
      "items.0.totalPrice",
    ]);
    expect(parse({ items: [{ productName: "x", quantity: 0.5, unitPrice: 2, totalPrice: 1 }] }).success).toBe(true);
  });
});

describe("createOrderInput currency", () => {
  it.each([
    ["sar", "SAR"],
    ["Usd", "USD"],
    [" eur ", "EUR"],
    ["EGP", "EGP"],
    ["che", "CHE"],
  ])("normalises %j to %s", (input, expected) => {
    const result = parse({ currency: input });
    expect(result.success).toBe(true);
    if (result.success) expect(result.data.currency).toBe(expected);
  });

  it.each(["XYZ", "US", "USDD", "12A", "", "S A"])("rejects %j", (currency) => {
    expect(fieldsOf({ currency })).toEqual(["currency"]);
  });

  it("rejects a non-string currency", () => {
    expect(fieldsOf({ currency: 840 })).toEqual(["currency"]);
  });
});

describe("createOrderInput other bounds", () => {
  it("accepts the fixture, ignores unknown fields, keeps note", () => {
    const result = parse({ unknownField: 1 });
    expect(result.success).toBe(true);
    if (result.success) {
      expect(result.data).not.toHaveProperty("unknownField");
      expect(result.data.note).toBe("Leave at the door");
    }
  });

  it("bounds externalOrderId to 1–100 characters", () => {
    expect(parse({ externalOrderId: "x".repeat(100) }).success).toBe(true);
    expect(fieldsOf({ externalOrderId: "x".repeat(101) })).toEqual(["externalOrderId"]);
    expect(fieldsOf({ externalOrderId: "" })).toEqual(["externalOrderId"]);
    expect(fieldsOf({ externalOrderId: "   " })).toEqual(["externalOrderId"]);
  });

  it("bounds customerName, customerAddress and note", () => {
    expect(parse({ customerName: "n".repeat(120), customerAddress: "a".repeat(500), note: "n".repeat(1000) }).success).toBe(true);
    expect(fieldsOf({ customerName: "n".repeat(121) })).toEqual(["customerName"]);
    expect(fieldsOf({ customerAddress: "a".repeat(501) })).toEqual(["customerAddress"]);
    expect(fieldsOf({ note: "n".repeat(1001) })).toEqual(["note"]);
  });

  it("accepts 8–15 digit phones without + or a leading 0", () => {
    for (const phone of ["12345678", "123456789012345", "966501234567"]) expect(parse({ customerPhone: phone }).success).toBe(true);
    for (const phone of ["1234567", "1234567890123456", "+966501234567", "0966501234567", "9665 0123 4567", "96650123456a"]) {
      expect(fieldsOf({ customerPhone: phone })).toEqual(["customerPhone"]);
    }
  });

  it("needs 1–100 items with names of 1–200 characters", () => {
    const item = { productName: "p", quantity: 1, unitPrice: 1, totalPrice: 1 };
    expect(parse({ items: Array.from({ length: 100 }, () => item) }).success).toBe(true);
    expect(fieldsOf({ items: [] })).toEqual(["items"]);
    expect(fieldsOf({ items: Array.from({ length: 101 }, () => item) })).toEqual(["items"]);
    expect(fieldsOf({ items: [{ ...item, productName: "p".repeat(201) }] })).toEqual(["items.0.productName"]);
    expect(fieldsOf({ items: [{ ...item, variantName: "v".repeat(201) }] })).toEqual(["items.0.variantName"]);
    expect(fieldsOf({ items: "none" })).toEqual(["items"]);
  });

  it("reports every missing required field", () => {
    const result = createOrderInput.safeParse({});
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(result.error.issues.map((issue) => issue.path.join(".")).sort()).toEqual(
        ["currency", "customerName", "customerPhone", "externalOrderId", "items", "shippingCost", "subtotal", "totalCost"].sort(),
      );
    }
  });
});

describe("significantDigits", () => {
  it.each([
    [0.1, 1],
    [0.0001, 1],
    [100, 3],
    [149.99, 5],
    [99999999999.9999, 15],
    [999999999999.99, 14],
    [999999999999.9998, 16],
    [1e-7, 1],
    [1e21, 1],
  ])("%s has %i", (value, expected) => {
    expect(significantDigits(value)).toBe(expected);
  });
});
