import { DomainError } from "../errors.ts";

/**
 * A merchant reply outside the customer's 24-hour service window (SPEC §11): WhatsApp only delivers free-form
 * messages within 24 hours of the customer's last message. Nothing was sent.
 */
export class ConversationClosedError extends DomainError {
  readonly code = "CONVERSATION_CLOSED";
  constructor(readonly lastCustomerMessageAt: string | null) {
    super(lastCustomerMessageAt ? `The customer last wrote at ${lastCustomerMessageAt}, more than 24 hours ago` : "The customer has not written about this order");
  }
}

/** Too many merchant replies to one order in a short time (a bound against loops and floods). */
export class ReplyRateLimitedError extends DomainError {
  readonly code = "RATE_LIMITED";
  constructor(readonly retryAfterSeconds: number) {
    super(`Too many replies to this order; retry in ${retryAfterSeconds} s`);
  }
}
