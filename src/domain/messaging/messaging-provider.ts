/**
 * The port through which the order service sends the confirmation message. Adapters: the in-process
 * simulator (test mode) and the WhatsApp Cloud API (live mode).
 */
export type Language = "en" | "ar";

export interface ConfirmationItem {
  productName: string;
  variantName: string | null;
  quantity: number;
  unitPrice: number;
  totalPrice: number;
}

export interface OrderConfirmationMessage {
  orderId: string;
  /** The order's merchant (the simulator shows each merchant only its own conversations). */
  merchantId: string;
  /**
   * Set for a reminder (1..3, SPEC §9): the reminder template, with the same body parameters and the same
   * two quick-reply buttons, so a tap on it acts like a tap on the first message.
   */
  reminder?: number;
  externalOrderId: string;
  language: Language;
  customerName: string;
  /** Digits with country code, no leading + (the adapter formats it for the provider). */
  customerPhone: string;
  customerAddress: string | null;
  items: ConfirmationItem[];
  subtotal: number;
  shippingCost: number;
  totalCost: number;
  currency: string;
}

export type SendResult =
  /** The provider accepted the message (for WhatsApp: HTTP 200 with a wamid). */
  | { outcome: "accepted"; providerMessageId: string }
  /** The provider refused it synchronously: permanent for this message. */
  | { outcome: "rejected"; errorCode: number | null; failureReason: string }
  /** Unreachable, timed out, or still transiently failing after the bounded retry. */
  | { outcome: "unavailable"; errorCode: number | null; failureReason: string; detail: string }
  /** The provider for this mode has no configuration. */
  | { outcome: "not_configured"; detail: string };

export interface MessagingProvider {
  readonly name: string;
  sendOrderConfirmation(message: OrderConfirmationMessage): Promise<SendResult>;
}

/** Buttons carry the order and the action, so a tap can be correlated without any other state. */
export const BUTTON_PAYLOAD = {
  approve: (orderId: string) => `APPROVE:${orderId}`,
  cancel: (orderId: string) => `CANCEL:${orderId}`,
  parse(payload: string): { action: "approve" | "cancel"; orderId: string } | null {
    const match = /^(APPROVE|CANCEL):([0-9a-f-]{36})$/i.exec(payload.trim());
    if (!match) return null;
    return { action: match[1].toUpperCase() === "APPROVE" ? "approve" : "cancel", orderId: match[2].toLowerCase() };
  },
};

/** A row of an interactive list (Meta: id ≤ 200, title ≤ 24, description ≤ 72 characters). */
export interface ListRow {
  id: string;
  title: string;
  description: string;
}

/**
 * A free-form message of an order's conversation (SPEC §11), sent only inside the customer's 24-hour window: a
 * merchant's text, or the service's interactive reply buttons (same payloads as the template's) or list.
 */
export interface ConversationMessage {
  orderId: string;
  merchantId: string;
  customerPhone: string;
  language: Language;
  /** The customer's message this one answers (shown quoted), when there is one. */
  replyTo: string | null;
  content:
    | { type: "text"; body: string }
    | { type: "buttons"; body: string; buttons: { id: string; title: string }[] }
    | { type: "list"; body: string; button: string; rows: ListRow[] };
}

/** Sends the conversation's free-form messages and marks the customer's messages read (SPEC §11). */
export interface ConversationChannel {
  sendConversationMessage(message: ConversationMessage): Promise<SendResult>;
  /** Best effort: the customer sees blue ticks on a message the merchant has been shown. */
  markRead(providerMessageId: string): Promise<void>;
}

/** A provider that cannot send conversation messages (e.g. a test double) reports it as not configured. */
export function conversationChannelOf(provider: MessagingProvider): ConversationChannel {
  const channel = provider as MessagingProvider & Partial<ConversationChannel>;
  return {
    sendConversationMessage: (message) =>
      channel.sendConversationMessage
        ? channel.sendConversationMessage(message)
        : Promise.resolve({ outcome: "not_configured", detail: `${provider.name} sends no conversation messages` }),
    markRead: (id) => (channel.markRead ? channel.markRead(id) : Promise.resolve()),
  };
}
