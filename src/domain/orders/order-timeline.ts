import type { TimelineStep } from "./order-state.ts";

/**
 * The order's timeline (SPEC §10): every recorded step, written in the transaction of the change it
 * describes, so it never disagrees with the order. Orders created before the timeline existed show less.
 */
export type TimelineKind =
  | "created"
  | "message_sent"
  | TimelineStep
  | "reminder_sent"
  | "reminder_failed"
  | "reminder_delivered"
  | "reminder_read"
  /** A customer's text that was not a clear answer, or came after the order was answered (SPEC §11). */
  | "customer_message";

/** Who caused the step: the customer (a tap), the merchant (REST/GraphQL), the provider (WhatsApp), or our scheduler. */
export type TimelineSource = "customer" | "merchant" | "provider" | "scheduler";

/** Through which door a merchant or customer acted (kept in the entry's detail). */
export type Via = "rest" | "graphql" | "whatsapp" | "simulator" | "text" | "store";

export interface TimelineEntry {
  at: string;
  kind: TimelineKind;
  source: TimelineSource;
  detail: Record<string, unknown> | null;
}

/** Who is asking for a transition, recorded with its timeline step. */
export interface Actor {
  source: TimelineSource;
  detail?: Record<string, unknown>;
}

export const merchantActor = (via: Via): Actor => ({ source: "merchant", detail: { via } });
export const customerActor = (via: Via, messageId?: string | null): Actor => ({
  source: "customer",
  detail: messageId ? { via, messageId } : { via },
});
export const providerActor = (providerMessageId?: string | null): Actor => ({
  source: "provider",
  detail: providerMessageId ? { providerMessageId } : undefined,
});
export const SCHEDULER: Actor = { source: "scheduler" };
