import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/domain/idempotency/idempotency.service.ts";

describe("canonicalJson", () => {
  it("sorts object keys at every depth", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}');
  });

  it("is the same for the same content in any key order", () => {
    const one = { externalOrderId: "A-1", items: [{ productName: "x", quantity: 1 }], totalCost: 10 };
    const two = { totalCost: 10, items: [{ quantity: 1, productName: "x" }], externalOrderId: "A-1" };
    expect(canonicalJson(one)).toBe(canonicalJson(two));
  });

  it("keeps array order significant", () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it("leaves out undefined properties, like JSON.stringify", () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
  });

  it("distinguishes values that differ in type or content", () => {
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: "1" }));
    expect(canonicalJson({ a: null })).not.toBe(canonicalJson({}));
    expect(canonicalJson({ a: 1.5 })).not.toBe(canonicalJson({ a: 1.50001 }));
  });

  it("encodes scalars and strings as JSON", () => {
    expect(canonicalJson(null)).toBe("null");
    expect(canonicalJson(undefined)).toBe("null");
    expect(canonicalJson(true)).toBe("true");
    expect(canonicalJson(12.5)).toBe("12.5");
    expect(canonicalJson('say "hi"\n')).toBe('"say \\"hi\\"\\n"');
    expect(canonicalJson({ "ключ": "قيمة" })).toBe('{"ключ":"قيمة"}');
    expect(canonicalJson([])).toBe("[]");
    expect(canonicalJson({})).toBe("{}");
  });

  it("is valid JSON that parses back to the same value", () => {
    const value = { z: [1, "two", { b: false, a: null }], a: { nested: { deeper: 1e-7 } } };
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });
});
