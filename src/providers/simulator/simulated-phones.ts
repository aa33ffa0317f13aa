import { EventEmitter } from "node:events";
import type { Language } from "../../domain/messaging/messaging-provider.ts";
import type { OrderView } from "../../domain/orders/order.view.ts";

/** A message as the simulated phone shows it. */
export interface SimulatedMessage {
  id: string;
  orderId: string;
  merchantId: string;
  /** The reminder's number (1..3), or null for the first message. */
  reminder: number | null;
  phone: string;
  language: Language;
  text: string;
  buttons: { approve: string; cancel: string };
  sentAt: string;
  /**
   * What the message is in the order's conversation (SPEC §11): the template (confirmation, reminder), a free-form
   * text of the merchant, the service's reply buttons or list, or the customer's own text or choice. Absent: the
   * template.
   */
  kind?: "confirmation" | "reminder" | "text" | "buttons" | "list" | "customer_text" | "customer_choice";
  /** Who wrote it: the service (templates, automatic replies), the merchant, or the customer. */
  sender?: "service" | "merchant" | "customer";
  /** A list's rows (its row ids are `ORDER:<id>`). */
  rows?: { id: string; title: string; description: string }[];
  /** Whether buttons are shown (templates and reply-buttons messages). */
  hasButtons?: boolean;
}

/** A test-mode order changed through the simulator (a tap or a delivery report, events or not). */
export interface SimulatedOrderChange {
  merchantId: string;
  order: OrderView;
}

/**
 * The simulated handsets: test-mode messages grouped by phone number, kept in memory (bounded) so the
 * /simulator page can show them. State changes themselves always live in the database.
 *
 * Emits "message" (a SimulatedMessage, when the simulator provider "sends" it, before the order is committed)
 * and "order" (a SimulatedOrderChange, after a simulated tap or delivery report has been applied).
 */
export class SimulatedPhones extends EventEmitter {
  /** Oldest first from `start`: the ones before it were dropped and are cut off in bulk (see deliver). */
  private messages: SimulatedMessage[] = [];
  private start = 0;
  private readonly byOrder = new Map<string, SimulatedMessage>();

  constructor(private readonly capacity = 1000) {
    super();
    // One listener per open /simulator page.
    this.setMaxListeners(0);
  }

  deliver(message: SimulatedMessage): void {
    this.messages.push(message);
    // A reminder never replaces the first message as "the order's message".
    // Neither does a message of the conversation (a reply, a customer's text).
    const template = message.kind === undefined || message.kind === "confirmation";
    if ((message.reminder === null && template) || !this.byOrder.has(message.orderId)) this.byOrder.set(message.orderId, message);
    if (this.messages.length - this.start > this.capacity) {
      const dropped = this.messages[this.start++];
      if (this.byOrder.get(dropped.orderId) === dropped) this.byOrder.delete(dropped.orderId);
      // Every send past the capacity drops one message: shifting the array each time would copy all the others.
      if (this.start >= this.capacity) {
        this.messages = this.messages.slice(this.start);
        this.start = 0;
      }
    }
    this.emit("message", message);
  }

  conversation(phone: string): SimulatedMessage[] {
    return this.all().filter((message) => message.phone === phone);
  }

  all(): SimulatedMessage[] {
    return this.messages.slice(this.start);
  }

  /** The message sent for an order, while it is kept; only test-mode orders have one. */
  messageOf(orderId: string): SimulatedMessage | undefined {
    return this.byOrder.get(orderId);
  }

  orderChanged(change: SimulatedOrderChange): void {
    this.emit("order", change);
  }
}
