import { describe, expect, it } from "vitest";
import { isCodPaymentMethod } from "../../src/providers/store-support/cod.ts";
import { money, sumMoney, supportedLanguage } from "../../src/providers/store-support/mapped-order.ts";
import { normalisePhone } from "../../src/providers/store-support/phone.ts";
import { failureOfError, failureOfStatus, StoreNetworkError } from "../../src/providers/store-support/store-http.ts";

describe("store phone numbers", () => {
  it.each([
    ["0501234567", "SA", "966501234567"],
    ["050 123 4567", "sa", "966501234567"],
    ["+966 50 123 4567", null, "966501234567"],
    ["00966501234567", "EG", "966501234567"],
    ["966501234567", "SA", "966501234567"],
    ["٠٥٠١٢٣٤٥٦٧", "SA", "966501234567"],
    ["۰۵۰۱۲۳۴۵۶۷", "SA", "966501234567"],
    ["01012345678", "EG", "201012345678"],
    ["+201012345678", "SA", "201012345678"],
    ["(415) 555-2671", "US", "14155552671"],
  ])("%s in %s → %s", (raw, country, expected) => {
    expect(normalisePhone(raw, country)).toBe(expected);
  });

  it.each([
    ["12345", "SA"],
    ["0501234567", null],
    ["0501234567", "XX"],
    ["999123456789", "SA"],
    ["", "SA"],
    ["x".repeat(100), "SA"],
  ])("%s in %s is no phone", (raw, country) => {
    expect(normalisePhone(raw, country)).toBeNull();
  });
});

describe("COD payment method ids", () => {
  it("match whole ids, case-insensitive", () => {
    expect(isCodPaymentMethod("cod", ["cod"])).toBe(true);
    expect(isCodPaymentMethod(" COD ", ["cod"])).toBe(true);
    expect(isCodPaymentMethod("cod_card", ["cod"])).toBe(false);
    expect(isCodPaymentMethod("", ["cod"])).toBe(false);
    expect(isCodPaymentMethod(null, ["cod"])).toBe(false);
    expect(isCodPaymentMethod("cash", ["cod", "Cash"])).toBe(true);
  });
});

describe("store money", () => {
  it("reads decimal text and sums without drift", () => {
    expect(money("29.35")).toBe(29.35);
    expect(money(" 5 ")).toBe(5);
    expect(money("1e3")).toBeNaN();
    expect(money(null)).toBeNaN();
    expect(sumMoney([0.1, 0.2])).toBe(0.3);
    expect(supportedLanguage("ar_SA")).toBe("ar");
    expect(supportedLanguage("fr")).toBeNull();
  });
});

describe("store call outcomes", () => {
  const response = (status: number, headers: Record<string, string> = {}) => ({ status, headers, body: "" });

  it("retries 429 and 5xx after the Retry-After the store gave (seconds)", () => {
    expect(failureOfStatus(response(429, { "retry-after": "7" }), "")).toMatchObject({ retryable: true, retryAfterMs: 7000, status: 429 });
    expect(failureOfStatus(response(503), "down")).toMatchObject({ retryable: true, retryAfterMs: null, detail: "HTTP 503: down" });
    expect(failureOfStatus(response(408), "")).toMatchObject({ retryable: true });
  });

  it("treats other 4xx as permanent, 401 as unauthorized", () => {
    expect(failureOfStatus(response(400, { "retry-after": "7" }), "")).toMatchObject({ retryable: false, retryAfterMs: null, unauthorized: false });
    expect(failureOfStatus(response(401), "")).toMatchObject({ retryable: false, unauthorized: true });
    expect(failureOfStatus(response(404), "")).toMatchObject({ retryable: false });
  });

  it("retries timeouts and network errors, never a blocked address", () => {
    expect(failureOfError(new StoreNetworkError("timeout", "t"))).toMatchObject({ retryable: true, status: null });
    expect(failureOfError(new StoreNetworkError("network", "n"))).toMatchObject({ retryable: true });
    expect(failureOfError(new StoreNetworkError("blocked", "b"))).toMatchObject({ retryable: false });
    expect(() => failureOfError(new TypeError("bug"))).toThrow(TypeError);
  });
});
