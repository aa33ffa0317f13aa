import { EventEmitter } from "node:events";
import type { StoredEvent } from "./order.repository.ts";

/**
 * In-process notification of committed order events. Published only after the transaction that wrote
 * the event has committed; consumers (webhook dispatcher, GraphQL subscriptions) treat it as a wake-up and
 * the outbox as the truth.
 */
export class OrderEventBus {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  publish(event: StoredEvent): void {
    this.emitter.emit("event", event);
  }

  subscribe(listener: (event: StoredEvent) => void): () => void {
    this.emitter.on("event", listener);
    return () => this.emitter.off("event", listener);
  }
}
