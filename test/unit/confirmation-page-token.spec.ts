import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PageTokens, PAGE_TOKEN_LENGTH } from "../../src/domain/confirmation-page/page-token.ts";
import { decideDeliveryStatus } from "../../src/domain/orders/order-state.ts";

describe("PageTokens", () => {
  const tokens = new PageTokens(randomBytes(32));
  const orderId = "019ab2c3-d4e5-7f60-8a1b-2c3d4e5f6a7b";

  it("is URL-safe, 43 characters, the same every time, and names its order", () => {
    const token = tokens.tokenFor(orderId);
    expect(PAGE_TOKEN_LENGTH).toBe(43);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokens.tokenFor(orderId)).toBe(token);
    expect(tokens.orderIdOf(token)).toBe(orderId);
  });

  it("refuses a token of another key, a changed bit, another order's tag, or a malformed one", () => {
    const token = tokens.tokenFor(orderId);
    expect(new PageTokens(randomBytes(32)).orderIdOf(token)).toBeNull();
    const bytes = Buffer.from(token, "base64url");
    for (let bit = 0; bit < bytes.length * 8; bit += 13) {
      const flipped = Buffer.from(bytes);
      flipped[bit >> 3] ^= 1 << (bit & 7);
      expect(tokens.orderIdOf(flipped.toString("base64url"))).toBeNull();
    }
    const other = tokens.tokenFor("019ab2c3-d4e5-7f60-8a1b-2c3d4e5f6a7c");
    expect(tokens.orderIdOf(`${other.slice(0, 22)}${token.slice(22)}`)).toBeNull();
    for (const bad of ["", "x", `${token}A`, token.slice(1), `${token.slice(0, 42)}=`, "../../etc/passwd"]) expect(tokens.orderIdOf(bad)).toBeNull();
  });
});

describe("decideDeliveryStatus with an SMS fallback", () => {
  const pending = { status: "pending" as const, customerAction: null, deliveryStatus: "sent" as const };
  const failure = { errorCode: 131026, failureReason: "Message undeliverable" };

  it("a listed code keeps the order pending and asks for the SMS", () => {
    expect(decideDeliveryStatus({ ...pending, smsFallbackCodes: [131026] }, "failed", failure)).toEqual({
      kind: "apply",
      change: { deliveryStatus: "failed" },
      event: null,
      step: "message_failed",
      smsFallback: failure,
    });
  });

  it("an unlisted code, no codes, or no code at all fail the order as before", () => {
    for (const codes of [[131049], [], null]) {
      expect(decideDeliveryStatus({ ...pending, smsFallbackCodes: codes }, "failed", failure)).toMatchObject({ event: "order.failed" });
    }
    expect(decideDeliveryStatus({ ...pending, smsFallbackCodes: [131026] }, "failed", { errorCode: null, failureReason: "x" })).toMatchObject({
      event: "order.failed",
    });
  });

  it("once in fallback, further failures and late progress reports change nothing", () => {
    const inFallback = { ...pending, deliveryStatus: "failed" as const, smsFallbackCodes: [131026] };
    expect(decideDeliveryStatus(inFallback, "failed", failure)).toEqual({ kind: "unchanged" });
    expect(decideDeliveryStatus(inFallback, "delivered")).toEqual({ kind: "unchanged" });
  });
});
