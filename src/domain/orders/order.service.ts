import type { Logger } from "pino";
import {
  DuplicateExternalOrderIdError,
  NotFoundError,
  OrderNotPendingError,
  ProviderRejectedError,
  ProviderUnavailableError,
} from "../errors.ts";
import { isUuid } from "../ids.ts";
import type { Language, MessagingProvider, OrderConfirmationMessage, SendResult } from "../messaging/messaging-provider.ts";
import type { OrderEventBus } from "./order-events.bus.ts";
import { setTimeout as sleep } from "node:timers/promises";
import { planSchedule } from "../confirmation/confirmation-policy.ts";
import {
  decideCustomerAction,
  decideDeliveryStatus,
  decideExpiry,
  decideMerchantCancel,
  type Decision,
  type DeliveryStatus,
  type OrderState,
} from "./order-state.ts";
import { customerActor, merchantActor, providerActor, SCHEDULER, type Actor, type TimelineEntry, type Via } from "./order-timeline.ts";
import type {
  DeliveryReport,
  DeliveryReportOutcome,
  MerchantScope,
  OrderRepository,
  ProviderEventKey,
  TransitionResult,
  WithinTransition,
} from "./order.repository.ts";
import type { CreateOrderInput, OrderFilter } from "./order.schemas.ts";
import { keysetPage, readPageRequest, type PageRequest } from "./order-page.ts";
import type { TotalCount } from "./order-count.ts";
import { toOrderView, type OrderView } from "./order.view.ts";
import type { RecordedAnswer } from "./customer-answer.ts";

const PROVIDER_EVENT_RETENTION_MS = 8 * 24 * 60 * 60 * 1000;
/** Longest a tap or cancel waits for a reminder send in flight (its own timeout bounds the send far below). */
const REMINDER_WAIT_MS = 30_000;
/** At most this many timeline steps are returned (an order has a handful; the bound is for safety). */
export const MAX_TIMELINE_ENTRIES = 200;

export interface OrderPage {
  orders: OrderView[];
  limit: number;
  hasMore: boolean;
  nextCursor: string | null;
}

/** Lets the composition root count outcomes (metrics) without the domain knowing about Prometheus. */
export interface OrderObserver {
  createOutcome(mode: MerchantScope["mode"], outcome: SendResult["outcome"]): void;
}

export interface ProviderRouter {
  forMode(mode: MerchantScope["mode"]): MessagingProvider;
}

/** Bounds one transaction's locks and statement sizes when a callback carries thousands of reports. */
const DELIVERY_REPORTS_PER_TRANSACTION = 1_000;

/**
 * Every business rule about orders, called alike by REST, GraphQL, the simulator and provider callbacks.
 */
export class OrderService {
  /** Called after a change queued an SMS fallback (the composition root wakes the SMS sender with it). */
  onSmsQueued: () => void = () => undefined;

  constructor(
    private readonly orders: OrderRepository,
    private readonly providers: ProviderRouter,
    private readonly bus: OrderEventBus,
    private readonly logger: Logger,
    private readonly observer: OrderObserver = { createOutcome: () => undefined },
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Claims the externalOrderId, sends the confirmation, then records the provider's answer: accepted
   * orders become `pending` with `order.created`; rejected or unsent ones are stored `failed` without an
   * event, and the caller gets a typed error carrying that order.
   */
  async create(scope: MerchantScope, input: CreateOrderInput, language: Language, via: Via = "rest"): Promise<OrderView> {
    const claimed = await this.orders.insertSending(scope, input, language, this.clock());
    if ("duplicateOf" in claimed) throw new DuplicateExternalOrderIdError(claimed.duplicateOf, input.externalOrderId);
    const { inserted: draft, policy } = claimed;
    const provider = this.providers.forMode(scope.mode);
    const result = await provider.sendOrderConfirmation(confirmationOf(draft, language, scope.merchantId)).catch((error: unknown) => {
      this.logger.error({ err: error, orderId: draft.id, provider: provider.name }, "provider send threw");
      return { outcome: "unavailable", errorCode: null, failureReason: "Unknown failure", detail: String(error) } as const;
    });
    this.observer.createOutcome(scope.mode, result.outcome);
    switch (result.outcome) {
      case "accepted": {
        // Delays count from the moment the order became pending (SPEC §9).
        const pendingAt = this.clock();
        const schedule = planSchedule(policy, pendingAt);
        const accepted = await this.orders.markAccepted(draft, result.providerMessageId, pendingAt, schedule, via);
        if (!accepted) {
          // Slower than the abandoned-send deadline: the order was already failed; report it as such.
          this.logger.error({ orderId: draft.id }, "send accepted after the order was failed as abandoned");
          const failure = { errorCode: null, failureReason: "Unknown failure" };
          const order = await this.orders.markSendFailed(draft.id, failure, this.clock(), via);
          throw new ProviderUnavailableError(order, order.errorCode, order.failureReason ?? "Unknown failure", "unreachable");
        }
        this.bus.publish(accepted.event);
        return accepted.order;
      }
      case "rejected": {
        const order = await this.orders.markSendFailed(draft.id, result, this.clock(), via);
        throw new ProviderRejectedError(order, result.errorCode, result.failureReason);
      }
      case "unavailable": {
        this.logger.warn({ orderId: draft.id, provider: provider.name, detail: result.detail }, "provider unavailable");
        const order = await this.orders.markSendFailed(draft.id, result, this.clock(), via);
        throw new ProviderUnavailableError(order, result.errorCode, result.failureReason, "unreachable");
      }
      case "not_configured": {
        const failure = { errorCode: null, failureReason: "Unknown failure" };
        const order = await this.orders.markSendFailed(draft.id, failure, this.clock(), via);
        this.logger.warn({ orderId: draft.id, detail: result.detail }, "live order without WhatsApp configuration");
        throw new ProviderUnavailableError(order, null, failure.failureReason, "not_configured");
      }
    }
  }

  /** Sends abandoned by a crash (see OrderRepository.failAbandonedSends); safe to run on every instance. */
  async failAbandonedSends(olderThanMs: number): Promise<number> {
    const now = this.clock();
    return this.orders.failAbandonedSends(new Date(now.getTime() - olderThanMs), now);
  }

  /** Dedupe records of provider callbacks outlive Meta's retries (7 days) by a day, then go. */
  async purgeProviderEvents(): Promise<number> {
    return this.orders.purgeProviderEvents(new Date(this.clock().getTime() - PROVIDER_EVENT_RETENTION_MS));
  }

  async get(scope: MerchantScope, id: string): Promise<OrderView> {
    const order = isUuid(id) ? await this.orders.findVisible(scope, id.toLowerCase()) : null;
    if (!order) throw new NotFoundError("order");
    return order;
  }

  /** Several orders of the caller at once, keyed by id; unknown, foreign or invisible ids are left out. */
  async getMany(scope: MerchantScope, ids: string[]): Promise<Map<string, OrderView>> {
    const valid = [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];
    return valid.length ? this.orders.findVisibleMany(scope, valid) : new Map();
  }

  /** Newest first, keyset-paginated. `cursor` is the opaque `nextCursor` of the previous page. */
  async list(scope: MerchantScope, filter: OrderFilter, page: PageRequest): Promise<OrderPage> {
    const { limit, after } = readPageRequest(page);
    const views = await this.orders.list(scope, filter, limit + 1, after);
    const { rows, hasMore, nextCursor } = keysetPage(views, limit, (order) => ({ createdAt: new Date(order.createdAt), id: order.id }));
    return { orders: rows, limit, hasMore, nextCursor };
  }

  /** How many orders match `filter` across all pages (GraphQL's totalCount), exact or capped (order-count.ts). */
  async count(scope: MerchantScope, filter: OrderFilter): Promise<TotalCount> {
    return this.orders.count(scope, filter);
  }

  /**
   * The list as CSV (SPEC §15): the same filters, newest first, at most MAX_EXPORT_ROWS rows, streamed in batches.
   * `truncated`: more orders match than the file holds (it has the newest ones).
   */
  async exportCsv(scope: MerchantScope, filter: OrderFilter): Promise<{ truncated: boolean; chunks: AsyncGenerator<string> }> {
    const truncated = await this.orders.exportExceedsLimit(scope, filter);
    return { truncated, chunks: this.orders.exportCsv(scope, filter) };
  }

  /** The order's recorded steps, oldest first (SPEC §10); 404 for an order the scope cannot see. */
  async timeline(scope: MerchantScope, id: string): Promise<TimelineEntry[]> {
    const order = await this.get(scope, id);
    return this.timelineOfVisible(order);
  }

  /** The timeline of an order the caller was already given (GraphQL's Order.timeline). */
  async timelineOfVisible(order: Pick<OrderView, "id">): Promise<TimelineEntry[]> {
    return this.orders.timeline(order.id, MAX_TIMELINE_ENTRIES);
  }

  /** DELETE: pending → canceled (+ order.canceled); canceled stays as is; confirmed/failed/expired → 409. */
  async cancel(scope: MerchantScope, id: string, via: Via = "rest"): Promise<OrderView> {
    return this.settle(await this.transition(id, scope, decideMerchantCancel, merchantActor(via)));
  }

  /** The merchant's `expireAfter` passed with no answer: pending → expired (+ order.expired). */
  async expire(orderId: string): Promise<TransitionResult> {
    return this.transition(orderId, null, decideExpiry, SCHEDULER);
  }

  /**
   * The customer tapped a button (simulator or WhatsApp). With a scope (simulator endpoint) a tap on an
   * order that is no longer pending is reported as ORDER_NOT_PENDING; provider callbacks pass no scope and
   * ignore the outcome. `providerEvent` (callbacks) makes a repeat of the same callback a no-op
   * (`duplicate`), recorded in the transaction of the change.
   */
  async applyCustomerAction(
    orderId: string,
    action: "approve" | "cancel",
    scope: MerchantScope | null = null,
    providerEvent: ProviderEventKey | null = null,
    via: Via = "whatsapp",
    within?: WithinTransition,
    detail?: Record<string, unknown>,
  ): Promise<TransitionResult> {
    const base = customerActor(via, providerEvent?.key.replace(/^message:/, "") ?? null);
    const actor = detail ? { ...base, detail: { ...base.detail, ...detail } } : base;
    return this.transition(orderId, scope, (state) => decideCustomerAction(state, action), actor, providerEvent, within);
  }

  /**
   * A customer's message (SPEC §11) under the order's lock: `decide` is the tap's decision when the words are a
   * clear answer (the same state machine), "unchanged" otherwise; `within` records the message in the same
   * transaction whatever was decided.
   */
  async applyCustomerMessage(
    orderId: string,
    decide: (state: OrderState) => Decision,
    actor: Actor,
    providerEvent: ProviderEventKey | null,
    within: WithinTransition,
    scope: MerchantScope | null = null,
  ): Promise<TransitionResult> {
    return this.transition(orderId, scope, decide, actor, providerEvent, within);
  }

  /**
   * The customer's answer given outside WhatsApp (a phone call, in person), recorded by the merchant's team (SPEC
   * §15): the same decision and transition as the customer's tap (decideCustomerAction under the order's lock,
   * the same event and the end of reminders), so against a racing tap exactly one wins and the other is refused.
   * The timeline step names who recorded it (`by`), how the customer answered (`via`) and the team's note.
   * Only a pending order of the scope: ORDER_NOT_PENDING otherwise, NOT_FOUND for anyone else's.
   */
  async recordCustomerAnswer(scope: MerchantScope, id: string, answer: RecordedAnswer): Promise<OrderView> {
    const detail: Record<string, unknown> = { via: answer.channel, by: answer.by };
    if (answer.note) detail.note = answer.note;
    const actor: Actor = { source: "merchant", detail };
    return this.settle(await this.transition(id, scope, (state) => decideCustomerAction(state, answer.action), actor));
  }

  /** The mode and customer phone of an order, by id alone (provider callbacks check who answered); null if none. */
  async customerOf(orderId: string): Promise<{ mode: "live" | "test"; customerPhone: string } | null> {
    return isUuid(orderId) ? this.orders.customerOf(orderId) : null;
  }

  async applyDeliveryStatus(
    orderId: string,
    status: DeliveryStatus,
    failure?: { errorCode: number | null; failureReason: string },
    scope: MerchantScope | null = null,
    providerEvent: ProviderEventKey | null = null,
  ): Promise<TransitionResult> {
    const actor = scope ? { source: "provider" as const, detail: { via: "simulator" } } : providerActor();
    return this.transition(orderId, scope, (state) => decideDeliveryStatus(state, status, failure), actor, providerEvent);
  }

  /**
   * Many delivery reports (a provider's batched callback) applied with set-based statements, a chunk per
   * transaction; each report's outcome is what applyDeliveryStatus would have answered in turn.
   */
  async applyDeliveryReports(reports: readonly DeliveryReport[]): Promise<DeliveryReportOutcome[]> {
    const outcomes: DeliveryReportOutcome[] = [];
    for (let start = 0; start < reports.length; start += DELIVERY_REPORTS_PER_TRANSACTION) {
      const chunk = reports.slice(start, start + DELIVERY_REPORTS_PER_TRANSACTION);
      const valid = chunk.filter((report) => isUuid(report.orderId)).map((report) => ({ ...report, orderId: report.orderId.toLowerCase() }));
      const applied = await this.orders.applyDeliveryReports(valid, this.clock());
      for (const event of applied.events) this.bus.publish(event);
      if (applied.smsQueued) this.onSmsQueued();
      let next = 0;
      for (const report of chunk) outcomes.push(isUuid(report.orderId) ? applied.outcomes[next++] : "not_found");
    }
    return outcomes;
  }

  /** The orders of many provider message ids, in one query. */
  async orderIdsForProviderMessages(providerMessageIds: string[]): Promise<Map<string, string>> {
    return this.orders.findIdsByProviderMessageIds(providerMessageIds.filter(Boolean));
  }

  /** The order a provider's message id belongs to (callbacks name the message they report on). */
  async orderIdForProviderMessage(providerMessageId: string): Promise<string | null> {
    return providerMessageId ? this.orders.findIdByProviderMessageId(providerMessageId) : null;
  }

  /** Throws the domain error for an outcome that the caller must see as a failure. */
  settle(result: TransitionResult): OrderView {
    if (result.outcome === "not_found" || result.outcome === "sending" || result.outcome === "reminder_in_flight") {
      throw new NotFoundError("order");
    }
    if (result.outcome === "rejected") throw new OrderNotPendingError(result.order.id, result.status);
    return result.order;
  }

  /**
   * Applies `decide` under the order's lock. While a reminder of the order is being sent, a change that ends
   * `pending` waits (briefly, bounded) for the send's result, so a reminder is never sent after a tap or a
   * cancel; past the bound (a worker that died mid-send) it goes ahead.
   */
  private async transition(
    id: string,
    scope: MerchantScope | null,
    decide: (state: OrderState) => Decision,
    actor: Actor,
    providerEvent: ProviderEventKey | null = null,
    within?: WithinTransition,
  ): Promise<TransitionResult> {
    if (!isUuid(id)) return { outcome: "not_found" };
    const deadline = Date.now() + REMINDER_WAIT_MS;
    for (let pause = 10; ; pause = Math.min(pause * 2, 250)) {
      const waitForReminder = Date.now() < deadline;
      const result = await this.orders.transition(id.toLowerCase(), scope, decide, this.clock, actor, {
        providerEvent,
        waitForReminder,
        within,
      });
      if (result.outcome === "reminder_in_flight") {
        await sleep(pause);
        continue;
      }
      if (result.outcome === "applied" && result.event) this.bus.publish(result.event);
      if ("also" in result) for (const event of result.also ?? []) this.bus.publish(event);
      if (result.outcome === "applied" && result.smsQueued) this.onSmsQueued();
      return result;
    }
  }
}

export function confirmationOf(order: OrderView, language: Language, merchantId: string): OrderConfirmationMessage {
  return {
    orderId: order.id,
    merchantId,
    externalOrderId: order.externalOrderId,
    language,
    customerName: order.customerName,
    customerPhone: order.customerPhone,
    customerAddress: order.customerAddress,
    items: order.items.map(({ productName, variantName, quantity, unitPrice, totalPrice }) => ({
      productName,
      variantName,
      quantity,
      unitPrice,
      totalPrice,
    })),
    subtotal: order.subtotal,
    shippingCost: order.shippingCost,
    totalCost: order.totalCost,
    currency: order.currency,
  };
}
