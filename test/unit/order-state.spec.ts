import { describe, expect, it } from "vitest";
import {
  decideCustomerAction,
  decideDeliveryStatus,
  decideExpiry,
  decideMerchantCancel,
  failureReasonFrom,
  isTerminal,
  type DeliveryStatus,
  type OrderState,
  type Status,
} from "../../src/domain/orders/order-state.ts";

const state = (status: Status, deliveryStatus: DeliveryStatus | null = null, customerAction: OrderState["customerAction"] = null): OrderState => ({
  status,
  customerAction,
  deliveryStatus,
});

const pending = state("pending");
const confirmed = state("confirmed", "read", "approved");
const canceled = state("canceled", "read", "canceled");
const failed = state("failed", "failed");

describe("isTerminal", () => {
  it("only pending is not terminal", () => {
    expect(isTerminal("pending")).toBe(false);
    for (const status of ["confirmed", "canceled", "failed"] as const) expect(isTerminal(status)).toBe(true);
  });
});

describe("decideMerchantCancel (DELETE)", () => {
  it("cancels a pending order with order.canceled and customerAction canceled", () => {
    expect(decideMerchantCancel(pending)).toEqual({
      kind: "apply",
      change: { status: "canceled", customerAction: "canceled" },
      event: "order.canceled",
      step: "canceled",
    });
  });

  it("leaves a canceled order unchanged (idempotent DELETE, no second event)", () => {
    expect(decideMerchantCancel(canceled)).toEqual({ kind: "unchanged" });
    expect(decideMerchantCancel(state("canceled", null, "canceled"))).toEqual({ kind: "unchanged" });
  });

  it("rejects confirmed and failed orders, naming the status", () => {
    expect(decideMerchantCancel(confirmed)).toEqual({ kind: "rejected", status: "confirmed" });
    expect(decideMerchantCancel(failed)).toEqual({ kind: "rejected", status: "failed" });
  });
});

describe("decideCustomerAction (Approve / Cancel taps)", () => {
  it("approve confirms a pending order with order.confirmed", () => {
    expect(decideCustomerAction(pending, "approve")).toEqual({
      kind: "apply",
      change: { status: "confirmed", customerAction: "approved", deliveryStatus: "read" },
      event: "order.confirmed",
      step: "approved",
    });
  });

  it("cancel cancels a pending order with order.canceled", () => {
    expect(decideCustomerAction(pending, "cancel")).toEqual({
      kind: "apply",
      change: { status: "canceled", customerAction: "canceled", deliveryStatus: "read" },
      event: "order.canceled",
      step: "canceled",
    });
  });

  it("a pending order with any delivery status can still be answered, and a tap implies it was read", () => {
    for (const delivery of ["sent", "delivered", "read"] as const) {
      const decision = decideCustomerAction(state("pending", delivery), "approve");
      expect(decision.kind).toBe("apply");
      expect(decision.kind === "apply" && decision.change.deliveryStatus).toBe(delivery === "read" ? undefined : "read");
    }
  });

  it("refuses every tap once the order left pending, a repeat of the same answer included", () => {
    for (const current of [confirmed, canceled, failed, state("canceled", null, "canceled")]) {
      for (const action of ["approve", "cancel"] as const) {
        expect(decideCustomerAction(current, action)).toEqual({ kind: "rejected", status: current.status });
      }
    }
  });

  it("rejects the opposite answer and a tap on a failed order", () => {
    expect(decideCustomerAction(confirmed, "cancel")).toEqual({ kind: "rejected", status: "confirmed" });
    expect(decideCustomerAction(canceled, "approve")).toEqual({ kind: "rejected", status: "canceled" });
    expect(decideCustomerAction(failed, "approve")).toEqual({ kind: "rejected", status: "failed" });
    expect(decideCustomerAction(failed, "cancel")).toEqual({ kind: "rejected", status: "failed" });
  });
});

describe("decideDeliveryStatus", () => {
  const order: (DeliveryStatus | null)[] = [null, "sent", "delivered", "read"];

  it("moves forward only: null → sent → delivered → read", () => {
    for (let from = 0; from < order.length; from++) {
      for (let to = 1; to < order.length; to++) {
        const decision = decideDeliveryStatus(state("pending", order[from]), order[to] as DeliveryStatus);
        if (to > from) {
          expect(decision).toEqual({ kind: "apply", change: { deliveryStatus: order[to] }, event: null, step: `delivery_${order[to]}` });
        }
        else expect(decision).toEqual({ kind: "unchanged" });
      }
    }
  });

  it("a late delivered never overwrites read; skipping ahead is allowed", () => {
    expect(decideDeliveryStatus(state("pending", "read"), "delivered")).toEqual({ kind: "unchanged" });
    expect(decideDeliveryStatus(state("pending", "read"), "sent")).toEqual({ kind: "unchanged" });
    expect(decideDeliveryStatus(state("pending", null), "read")).toEqual({
      kind: "apply",
      change: { deliveryStatus: "read" },
      event: null,
      step: "delivery_read",
    });
  });

  it("progress reports on terminal orders still move forward without an event", () => {
    expect(decideDeliveryStatus(state("confirmed", "delivered", "approved"), "read")).toEqual({
      kind: "apply",
      change: { deliveryStatus: "read" },
      event: null,
      step: "delivery_read",
    });
  });

  it("a failed delivery status is final for deliveryStatus", () => {
    for (const report of ["sent", "delivered", "read"] as const) {
      expect(decideDeliveryStatus(failed, report)).toEqual({ kind: "unchanged" });
    }
  });

  it("failed while pending fails the order with order.failed and the failure", () => {
    const failure = { errorCode: 131026, failureReason: "Message undeliverable" };
    for (const delivery of [null, "sent", "delivered", "read"] as const) {
      expect(decideDeliveryStatus(state("pending", delivery), "failed", failure)).toEqual({
        kind: "apply",
        change: { status: "failed", deliveryStatus: "failed", failure },
        event: "order.failed",
        step: "failed",
      });
    }
  });

  it("failed without details records Unknown failure and a null errorCode", () => {
    const decision = decideDeliveryStatus(pending, "failed");
    expect(decision).toMatchObject({ kind: "apply", change: { failure: { errorCode: null, failureReason: "Unknown failure" } } });
  });

  it("failed after the order left pending changes nothing", () => {
    const failure = { errorCode: 131026, failureReason: "Message undeliverable" };
    for (const current of [confirmed, canceled, failed, state("confirmed", null, "approved")]) {
      expect(decideDeliveryStatus(current, "failed", failure)).toEqual({ kind: "unchanged" });
    }
  });
});

describe("failureReasonFrom (seed rule 3)", () => {
  it("takes the first error's message", () => {
    expect(failureReasonFrom([{ message: "(#131026) Message undeliverable", title: "Undeliverable" }, { message: "second" }])).toBe(
      "(#131026) Message undeliverable",
    );
  });

  it("falls back to the title, then to Unknown failure", () => {
    expect(failureReasonFrom([{ title: "Message undeliverable" }])).toBe("Message undeliverable");
    expect(failureReasonFrom([{ message: "", title: "Title only" }])).toBe("Title only");
    expect(failureReasonFrom([{ message: "   ", title: null }])).toBe("Unknown failure");
    expect(failureReasonFrom([{}])).toBe("Unknown failure");
    expect(failureReasonFrom([])).toBe("Unknown failure");
    expect(failureReasonFrom(undefined)).toBe("Unknown failure");
  });

  it("only looks at the first error", () => {
    expect(failureReasonFrom([{}, { message: "second error" }])).toBe("Unknown failure");
  });
});

describe("decideExpiry (confirmation policy)", () => {
  it("expires a pending order with order.expired and no customer action", () => {
    expect(decideExpiry(pending)).toEqual({ kind: "apply", change: { status: "expired" }, event: "order.expired", step: "expired" });
  });

  it("refuses every terminal order, naming its status", () => {
    for (const status of ["confirmed", "canceled", "failed", "expired"] as const) {
      expect(decideExpiry(state(status, "delivered"))).toEqual({ kind: "rejected", status });
    }
  });

  it("nothing moves an expired order: taps and cancels are refused, late delivery reports change no status", () => {
    const expired = state("expired", "delivered");
    expect(decideCustomerAction(expired, "approve")).toEqual({ kind: "rejected", status: "expired" });
    expect(decideMerchantCancel(expired)).toEqual({ kind: "rejected", status: "expired" });
    expect(decideDeliveryStatus(expired, "failed", { errorCode: 131026, failureReason: "x" })).toEqual({ kind: "unchanged" });
    expect(decideDeliveryStatus(expired, "read")).toMatchObject({ kind: "apply", change: { deliveryStatus: "read" }, event: null });
  });
});
