import { NotFoundError } from "../errors.ts";
import { isUuid } from "../ids.ts";
import { keysetPage, readPageRequest, type PageRequest } from "../orders/order-page.ts";
import type { MerchantScope } from "../orders/order.repository.ts";
import type { DeliveryFilter, DeliveryRecord, DeliveryStatus, WebhookDeliveryRepository } from "./webhook-delivery.repository.ts";

export const DELIVERY_STATUSES = ["pending", "succeeded", "dead"] as const satisfies readonly DeliveryStatus[];

export interface WebhookAttemptView {
  at: string;
  /** Null when no response arrived (timeout, refused, blocked address). */
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

/** One event for one endpoint, as the delivery log shows it (SPEC §4). */
export interface WebhookDeliveryView {
  id: string;
  /** The event id: the `webhook-id` header of every attempt. */
  eventId: string;
  event: string;
  orderId: string;
  endpointId: string;
  status: DeliveryStatus;
  attempts: WebhookAttemptView[];
  createdAt: string;
}

export interface WebhookDeliveryPage {
  deliveries: WebhookDeliveryView[];
  limit: number;
  hasMore: boolean;
  nextCursor: string | null;
}

/** Lets the composition root wake the dispatcher without the domain depending on it. */
export interface RetryListener {
  retryRequested(): void;
}

/** The merchant's view of webhook deliveries: the log, and manual redelivery. */
export class WebhookDeliveryService {
  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly listener: RetryListener = { retryRequested: () => undefined },
  ) {}

  /** Newest first, keyset-paginated like the order list. */
  async list(scope: MerchantScope, filter: DeliveryFilter, page: PageRequest): Promise<WebhookDeliveryPage> {
    const { limit, after } = readPageRequest(page);
    // A malformed id matches nothing (the transports validate ids; this keeps the query well-typed anyway).
    if ((filter.endpointId && !isUuid(filter.endpointId)) || (filter.orderId && !isUuid(filter.orderId))) {
      return { deliveries: [], limit, hasMore: false, nextCursor: null };
    }
    const { rows, hasMore, nextCursor } = keysetPage(await this.deliveries.list(scope, normalise(filter), limit + 1, after), limit);
    return { deliveries: rows.map(toDeliveryView), limit, hasMore, nextCursor };
  }

  async get(scope: MerchantScope, id: string): Promise<WebhookDeliveryView> {
    const record = isUuid(id) ? await this.deliveries.find(scope, id.toLowerCase()) : null;
    if (!record) throw new NotFoundError("webhookDelivery");
    return toDeliveryView(record);
  }

  /**
   * Redeliver now: a pending delivery becomes due at once; a succeeded or dead one becomes pending with exactly
   * one more attempt allowed (it does not restart the retry schedule). The same webhook-id is sent, so a
   * receiver that already processed it can recognise the repeat.
   */
  async retry(scope: MerchantScope, id: string): Promise<WebhookDeliveryView> {
    const record = isUuid(id) ? await this.deliveries.retry(scope, id.toLowerCase()) : null;
    if (!record) throw new NotFoundError("webhookDelivery");
    this.listener.retryRequested();
    return toDeliveryView(record);
  }
}

function normalise(filter: DeliveryFilter): DeliveryFilter {
  return {
    ...filter,
    endpointId: filter.endpointId?.toLowerCase(),
    orderId: filter.orderId?.toLowerCase(),
  };
}

export function toDeliveryView(record: DeliveryRecord): WebhookDeliveryView {
  return {
    id: record.id,
    eventId: record.eventId,
    event: record.eventType,
    orderId: record.orderId,
    endpointId: record.endpointId,
    status: record.status,
    attempts: record.attempts.map((attempt) => ({
      at: attempt.attemptedAt.toISOString(),
      statusCode: attempt.statusCode,
      durationMs: attempt.durationMs,
      error: attempt.error,
    })),
    createdAt: record.createdAt.toISOString(),
  };
}
