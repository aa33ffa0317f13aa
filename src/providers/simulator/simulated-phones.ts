import { EventEmitter } from "node:events";
import type { Language } from "../../domain/messaging/messaging-provider.ts";

/** A message as the simulated phone shows it. */
export interface SimulatedMessage {
  id: string;
  orderId: string;
  phone: string;
  language: Language;
  text: string;
  buttons: { approve: string; cancel: string };
  sentAt: string;
}

/**
 * The simulated handsets: test-mode messages grouped by phone number, kept in memory (bounded) so the
 * /simulator page can show them. State changes themselves always live in the database.
 */
export class SimulatedPhones extends EventEmitter {
  private readonly messages: SimulatedMessage[] = [];

  constructor(private readonly capacity = 1000) {
    super();
  }

  deliver(message: SimulatedMessage): void {
    this.messages.push(message);
    if (this.messages.length > this.capacity) this.messages.splice(0, this.messages.length - this.capacity);
    this.emit("message", message);
  }

  conversation(phone: string): SimulatedMessage[] {
    return this.messages.filter((message) => message.phone === phone);
  }

  all(): SimulatedMessage[] {
    return [...this.messages];
  }
}
