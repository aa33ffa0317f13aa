/**
 * The order state machine, as pure functions: pending → confirmed | canceled | failed | expired (the last
 * only under a merchant's opt-in confirmation policy), nothing leaves a terminal state, and deliveryStatus only moves forward (null → sent → delivered → read; failed only
 * while pending). Repositories apply the decisions inside a transaction that holds the order's row lock.
 */
export type Status = "pending" | "confirmed" | "canceled" | "failed" | "expired";
export type CustomerAction = "approved" | "canceled";
export type DeliveryStatus = "sent" | "delivered" | "read" | "failed";
export const ORDER_EVENT_NAMES = [
  "order.created",
  "order.confirmed",
  "order.canceled",
  "order.failed",
  "order.expired",
] as const;
export type OrderEventName = (typeof ORDER_EVENT_NAMES)[number];
/**
 * Every event an endpoint may list: the order events above (an endpoint saved without `events` gets those) and the
 * opt-in ones, received only by endpoints that name them (SPEC §11's order.customer_message).
 */
export const SUBSCRIBABLE_EVENT_NAMES = [...ORDER_EVENT_NAMES, "order.customer_message"] as const;

export interface OrderState {
  status: Status;
  customerAction: CustomerAction | null;
  deliveryStatus: DeliveryStatus | null;
}

export interface StateChange {
  status?: Status;
  customerAction?: CustomerAction;
  deliveryStatus?: DeliveryStatus;
  failure?: { errorCode: number | null; failureReason: string };
}

/** What a change is called in the order's timeline (SPEC §10); reminder steps are recorded by the scheduler. */
export type TimelineStep =
  | "approved"
  | "canceled"
  | "failed"
  | "expired"
  | "delivery_sent"
  | "delivery_delivered"
  | "delivery_read";

export type Decision =
  /** Write `change` and its timeline `step`, and emit `event` when present. */
  | { kind: "apply"; change: StateChange; event: OrderEventName | null; step: TimelineStep }
  /** Already in the requested state: answer as success, write nothing (idempotent repeats). */
  | { kind: "unchanged" }
  /** Not allowed from the current state. */
  | { kind: "rejected"; status: Status };

const DELIVERY_RANK: Record<Exclude<DeliveryStatus, "failed">, number> = { sent: 1, delivered: 2, read: 3 };

export const isTerminal = (status: Status): boolean => status !== "pending";

/** The merchant cancels through the API. Canceling a canceled order is a no-op (DELETE is idempotent). */
export function decideMerchantCancel(state: OrderState): Decision {
  if (state.status === "canceled") return { kind: "unchanged" };
  if (state.status !== "pending") return { kind: "rejected", status: state.status };
  return { kind: "apply", change: { status: "canceled", customerAction: "canceled" }, event: "order.canceled", step: "canceled" };
}

/**
 * The merchant's `expireAfter` passed with no answer (the scheduler decides it). customerAction stays null:
 * nobody answered.
 */
export function decideExpiry(state: OrderState): Decision {
  if (state.status !== "pending") return { kind: "rejected", status: state.status };
  return { kind: "apply", change: { status: "expired" }, event: "order.expired", step: "expired" };
}

/**
 * The customer taps Approve or Cancel. Taps on orders that are no longer pending change nothing and are
 * refused, a repeat of the winning answer included (the simulator endpoint answers ORDER_NOT_PENDING).
 */
export function decideCustomerAction(state: OrderState, action: "approve" | "cancel"): Decision {
  if (state.status !== "pending") return { kind: "rejected", status: state.status };
  // A tap proves the message was read, even when the customer has read receipts turned off and the
  // provider never reports `read`.
  const read: StateChange = isBehind(state.deliveryStatus, "read") ? { deliveryStatus: "read" } : {};
  return action === "approve"
    ? { kind: "apply", change: { status: "confirmed", customerAction: "approved", ...read }, event: "order.confirmed", step: "approved" }
    : { kind: "apply", change: { status: "canceled", customerAction: "canceled", ...read }, event: "order.canceled", step: "canceled" };
}

function isBehind(current: DeliveryStatus | null, target: Exclude<DeliveryStatus, "failed">): boolean {
  if (current === "failed") return false;
  return current === null || DELIVERY_RANK[current] < DELIVERY_RANK[target];
}

/**
 * A delivery report from the provider. Progress reports never move backwards (a late `delivered` after
 * `read` is ignored); `failed` fails the order only while it is pending, and is otherwise recorded only
 * if nothing better is known.
 */
export function decideDeliveryStatus(
  state: OrderState,
  report: DeliveryStatus,
  failure?: { errorCode: number | null; failureReason: string },
): Decision {
  if (report === "failed") {
    if (state.status === "pending") {
      return {
        kind: "apply",
        change: {
          status: "failed",
          deliveryStatus: "failed",
          failure: failure ?? { errorCode: null, failureReason: "Unknown failure" },
        },
        event: "order.failed",
        step: "failed",
      };
    }
    return { kind: "unchanged" };
  }
  if (!isBehind(state.deliveryStatus, report)) return { kind: "unchanged" };
  return { kind: "apply", change: { deliveryStatus: report }, event: null, step: `delivery_${report}` };
}

/** failureReason per the seed: first error's message, else its title, else "Unknown failure". */
export function failureReasonFrom(errors: { message?: string | null; title?: string | null }[] | undefined): string {
  const first = errors?.[0];
  return first?.message?.trim() || first?.title?.trim() || "Unknown failure";
}
