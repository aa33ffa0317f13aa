import { randomBytes } from "node:crypto";
import { fixture, newInboundId } from "./meta-callbacks.ts";

/**
 * Meta-shaped inbound messages of a conversation (SPEC §11): a customer's text (with or without `context`, the
 * quoted message) and a choice from an interactive list, built from the text-message fixture's envelope.
 */
function envelope(messages: unknown[], statuses: unknown[] = []) {
  const body = fixture("webhook-text-message.json");
  const value = body.entry[0].changes[0].value;
  value.messages = messages;
  if (statuses.length) value.statuses = statuses;
  if (messages.length === 0) delete value.messages;
  return body;
}

export function textMessage(options: { from: string; body: string; contextId?: string | null; messageId?: string }) {
  const message: Record<string, unknown> = {
    from: options.from,
    id: options.messageId ?? newInboundId(),
    timestamp: String(Math.floor(Date.now() / 1000)),
    type: "text",
    text: { body: options.body },
  };
  if (options.contextId) message.context = { from: "15550102030", id: options.contextId };
  return message;
}

export function listReplyMessage(options: { from: string; rowId: string; title: string; contextId: string; messageId?: string }) {
  return {
    from: options.from,
    id: options.messageId ?? newInboundId(),
    timestamp: String(Math.floor(Date.now() / 1000)),
    context: { from: "15550102030", id: options.contextId },
    type: "interactive",
    interactive: { type: "list_reply", list_reply: { id: options.rowId, title: options.title, description: "" } },
  };
}

export function buttonReplyMessage(options: { from: string; id: string; title: string; contextId: string; messageId?: string }) {
  return {
    from: options.from,
    id: options.messageId ?? newInboundId(),
    timestamp: String(Math.floor(Date.now() / 1000)),
    context: { from: "15550102030", id: options.contextId },
    type: "interactive",
    interactive: { type: "button_reply", button_reply: { id: options.id, title: options.title } },
  };
}

export function statusItem(wamid: string, status: "sent" | "delivered" | "read" | "failed", recipient: string) {
  const item: Record<string, unknown> = {
    id: wamid,
    status,
    timestamp: String(Math.floor(Date.now() / 1000)),
    recipient_id: recipient,
  };
  if (status === "failed") item.errors = [{ code: 131026, title: "Message undeliverable", message: "Message undeliverable" }];
  return item;
}

/** One notification carrying these messages and statuses (Meta batches them). */
export function conversationCallback(messages: unknown[], statuses: unknown[] = []) {
  return envelope(messages, statuses);
}

/** A random customer phone (digits with a country code, never one of the simulator's magic numbers). */
export const randomPhone = () => `9665${randomBytes(4).readUInt32BE(0).toString().padStart(8, "0").slice(0, 8)}`;
