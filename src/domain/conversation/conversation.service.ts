import type { Logger } from "pino";
import { NotFoundError } from "../errors.ts";
import { isUuid } from "../ids.ts";
import { buttonTitles, formatMoney, renderConfirmationText, renderReminderText } from "../messaging/confirmation-text.ts";
import { BUTTON_PAYLOAD, type Language, type ListRow } from "../messaging/messaging-provider.ts";
import type { OrderEventBus } from "../orders/order-events.bus.ts";
import { decideCustomerAction, type Decision, type OrderState } from "../orders/order-state.ts";
import type { MerchantScope, ProviderEventKey, TransitionResult, WithinTransition } from "../orders/order.repository.ts";
import { confirmationOf, type OrderService, type ProviderRouter } from "../orders/order.service.ts";
import type { OrderView } from "../orders/order.view.ts";
import type { Via } from "../orders/order-timeline.ts";
import { ConversationClosedError, ReplyRateLimitedError } from "./conversation-errors.ts";
import type {
  ConversationOrder,
  ConversationRepository,
  ConversationRow,
  KnownMessage,
  MessageDirection,
  MessageKind,
  MessageSender,
  MessageStatusReport,
} from "./conversation.repository.ts";
import { understandAnswer } from "./customer-answer.ts";
import { conversationChannelOf } from "../messaging/messaging-provider.ts";

/** The conversation as clients see it (SPEC §11). */
export interface OrderMessageView {
  id: string;
  direction: MessageDirection;
  sender: MessageSender;
  kind: MessageKind;
  text: string | null;
  at: string;
  /** sent / delivered / read / failed for outbound (null while it is still being sent); null inbound. */
  status: string | null;
}

/** What rendering the confirmation and reminders needs of the order (REST's view and GraphQL's source both have it). */
export type ConversationSubject = Pick<
  OrderView,
  "id" | "externalOrderId" | "customerName" | "customerPhone" | "customerAddress" | "items" | "subtotal" | "shippingCost" | "totalCost" | "currency"
>;

/** At most this many messages of an order are returned (the newest ones, oldest first). */
export const MAX_CONVERSATION_MESSAGES = 200;
/** WhatsApp's customer-service window: free-form messages only within 24 h of the customer's last message. */
export const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;
/** A text is stored up to WhatsApp's own limit. */
export const MAX_TEXT_LENGTH = 4096;
/** At most this many merchant messages per order per hour (a bound against loops and floods). */
export const MAX_REPLIES_PER_HOUR = 20;
/** Read receipts sent to the provider at the same time, and waiting at most. */
const MARK_READ_CONCURRENCY = 4;
const MARK_READ_QUEUE = 5_000;
/** Orders offered in one "which order?" list (Meta allows 10 rows). */
export const MAX_LIST_ORDERS = 10;

const TEXTS = {
  en: {
    askButtons: (ref: string) => `Please tap a button to confirm or cancel order ${ref}.`,
    whichOrder: "Which order do you mean?",
    chooseOrder: "Choose order",
  },
  ar: {
    askButtons: (ref: string) => `يرجى الضغط على أحد الزرين لتأكيد الطلب ${ref} أو إلغائه.`,
    whichOrder: "أي طلب تقصد؟",
    chooseOrder: "اختر الطلب",
  },
} as const;

const languageOf = (value: string): Language => (value === "ar" ? "ar" : "en");

/** A customer's text or choice as a provider callback or the simulator reports it. */
export interface InboundMessage {
  text: string;
  /** The provider's id of the customer's message (null in the simulator's direct route). */
  providerMessageId: string | null;
  providerEvent: ProviderEventKey | null;
  via: Via;
}

export interface ConversationServiceDeps {
  repository: ConversationRepository;
  orders: OrderService;
  providers: ProviderRouter;
  bus: OrderEventBus;
  logger: Logger;
  /** Called after a message was queued for sending (the conversation sender looks at once). */
  queued: () => void;
  /** The order's SMS (SPEC §12 fallback and SMS reminders), shown in the conversation as kind `sms`. */
  smsOf?: (orderId: string) => Promise<ConversationSms[]>;
  clock?: () => Date;
}

/** What the conversation shows of an SMS (kept by the SMS outbox, not in order_messages). */
export interface ConversationSms {
  id: string;
  state: string;
  body: string | null;
  createdAt: string;
  sentAt: string | null;
}

/** An SMS's state as a message status: sent, delivered or failed; null while it waits or is being sent. */
const SMS_STATUS: Record<string, string> = { sent: "sent", delivered: "delivered", failed: "failed" };

/**
 * The order's conversation (SPEC §11): customers' texts and choices, the service's automatic replies, merchant
 * replies inside the 24-hour window, and the conversation read by REST and GraphQL. State changes go through
 * OrderService's transition (one state machine): a clear answer is decided by decideCustomerAction like a tap.
 */
export class ConversationService {
  private readonly clock: () => Date;

  constructor(private readonly deps: ConversationServiceDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  /**
   * A customer's text about one order. A clear answer on a pending order acts exactly like the tap (same
   * decision, events, timeline `approved`/`canceled` with `via: "text"` and the text); anything else is a
   * customer_message (timeline, opt-in event, subscription), and a pending order's first unclear text gets the
   * automatic reply buttons. The text is stored in the same transaction either way.
   */
  async receiveText(orderId: string, message: InboundMessage, scope: MerchantScope | null = null): Promise<TransitionResult> {
    const text = message.text.slice(0, MAX_TEXT_LENGTH);
    const answer = understandAnswer(text);
    const decide = (state: OrderState): Decision =>
      answer && state.status === "pending" ? decideCustomerAction(state, answer) : { kind: "unchanged" };
    const detail: Record<string, unknown> = { via: "text", text };
    if (message.providerMessageId) detail.messageId = message.providerMessageId;
    let autoReply = false;
    const within: WithinTransition = async (tx, step) => {
      const { repository } = this.deps;
      const base = { orderId: step.order.id, merchantId: step.merchantId, mode: step.mode, at: step.now };
      const id = await repository.insert(tx, {
        ...base, direction: "inbound", sender: "customer", kind: "text", text, status: null, providerMessageId: message.providerMessageId,
      });
      if (step.decision === "apply") {
        await repository.markAnswered(tx, { id: step.order.id, merchantId: step.merchantId, mode: step.mode }, step.now);
        return [];
      }
      const unclear = await repository.recordUnclear(tx, {
        order: step.order, merchantId: step.merchantId, mode: step.mode, messageId: id, text,
        providerMessageId: message.providerMessageId, now: step.now, pending: step.order.status === "pending",
      });
      if (unclear.autoReply) {
        autoReply = true;
        await this.queueButtons(tx, step.order, step.merchantId, step.mode, step.now, message.providerMessageId);
      }
      return [unclear.event];
    };
    const result = await this.deps.orders.applyCustomerMessage(
      orderId, decide, { source: "customer", detail }, message.providerEvent, within, scope,
    );
    if (autoReply && (result.outcome === "applied" || result.outcome === "unchanged" || result.outcome === "rejected")) this.deps.queued();
    return result;
  }

  /** What a tap records in its transaction: the customer's choice in the conversation (its button's title). */
  tapRecorder(title: string | null): WithinTransition {
    return async (tx, step) => {
      const { repository } = this.deps;
      await repository.insert(tx, {
        orderId: step.order.id, merchantId: step.merchantId, mode: step.mode, at: step.now,
        direction: "inbound", sender: "customer", kind: "tap", text: title, status: null,
      });
      await repository.markAnswered(tx, { id: step.order.id, merchantId: step.merchantId, mode: step.mode }, step.now);
      return [];
    };
  }

  /**
   * The customer chose a row of a "which order?" list: the choice is stored on that order and, while it is
   * pending, the order's buttons are sent. `from` must be the order's customer.
   */
  async receiveChoice(orderId: string, from: string, title: string | null, providerMessageId: string, providerEvent: ProviderEventKey): Promise<TransitionResult> {
    const order = isUuid(orderId) ? await this.deps.repository.order(orderId.toLowerCase()) : null;
    if (!order || order.customerPhone !== from || order.mode !== "live") return { outcome: "not_found" };
    let queued = false;
    const within: WithinTransition = async (tx, step) => {
      const { repository } = this.deps;
      await repository.insert(tx, {
        orderId: step.order.id, merchantId: step.merchantId, mode: step.mode, at: step.now,
        direction: "inbound", sender: "customer", kind: "tap", text: title, status: null, providerMessageId,
      });
      await repository.markAnswered(tx, { id: step.order.id, merchantId: step.merchantId, mode: step.mode }, step.now);
      if (step.order.status === "pending") {
        await this.queueButtons(tx, step.order, step.merchantId, step.mode, step.now, providerMessageId);
        queued = true;
      }
      return [];
    };
    const result = await this.deps.orders.applyCustomerMessage(order.id, () => ({ kind: "unchanged" }), { source: "customer" }, providerEvent, within);
    if (queued) this.deps.queued();
    return result;
  }

  /**
   * A text without context from a phone with several pending orders: the text belongs to none of them; the
   * customer gets a list "Which order do you mean?" (newest first, at most 10). The list is stored on each
   * listed order with that order's row only, so no merchant sees another's order.
   */
  async offerList(orders: ConversationOrder[], providerMessageId: string, providerEvent: ProviderEventKey): Promise<"applied" | "duplicate"> {
    const listed = orders.slice(0, MAX_LIST_ORDERS);
    const language = languageOf(listed[0].language);
    const texts = TEXTS[language];
    const rows: ListRow[] = listed.map((order) => ({
      id: `ORDER:${order.id}`,
      title: rowTitle(order.merchantName, order.externalOrderId),
      description: formatMoney(order.totalCost, order.currency, languageOf(order.language)),
    }));
    const listId = providerMessageId;
    const now = this.clock();
    const { repository } = this.deps;
    const claimed = await repository.transaction(async (tx) => {
      if (!(await repository.claimProviderEvent(tx, providerEvent, listed[0].id, now))) return false;
      for (const [index, order] of listed.entries()) {
        await repository.insert(tx, {
          orderId: order.id, merchantId: order.merchantId, mode: order.mode, at: now,
          direction: "outbound", sender: "service", kind: "list", text: `${texts.whichOrder}\n${rows[index].title}`,
          // The first row's message is the one sent (with every row); the others follow its outcome.
          status: index === 0 ? "queued" : null,
          payload: index === 0 ? { listId, body: texts.whichOrder, button: texts.chooseOrder, rows, replyTo: providerMessageId } : { listId },
        });
      }
      return true;
    });
    if (claimed) this.deps.queued();
    return claimed ? "applied" : "duplicate";
  }

  /** The service's reply-buttons message for the order (same payloads as the template's buttons). */
  private async queueButtons(
    tx: Parameters<WithinTransition>[0],
    order: OrderView,
    merchantId: string,
    mode: MerchantScope["mode"],
    now: Date,
    replyTo: string | null,
  ): Promise<void> {
    const language = languageOf((await tx.$queryRawUnsafe<{ language: string }[]>(`SELECT language FROM orders WHERE id = $1::uuid`, order.id))[0]?.language ?? "en");
    const titles = buttonTitles(language);
    const body = TEXTS[language].askButtons(order.externalOrderId);
    await this.deps.repository.insert(tx, {
      orderId: order.id, merchantId, mode, at: now, direction: "outbound", sender: "service", kind: "buttons", text: body,
      status: "queued",
      payload: {
        replyTo,
        buttons: [
          { id: BUTTON_PAYLOAD.approve(order.id), title: titles.approve },
          { id: BUTTON_PAYLOAD.cancel(order.id), title: titles.cancel },
        ],
      },
    });
  }

  /** The order's conversation, oldest first (the newest 200); 404 for an order the scope cannot see. */
  async messages(scope: MerchantScope, orderId: string): Promise<OrderMessageView[]> {
    const order = await this.deps.orders.get(scope, orderId);
    return this.messagesOfVisible(order);
  }

  /** The window of an order the caller was already given (GraphQL's Order.conversationWindow). */
  async windowOfVisible(order: Pick<OrderView, "id">): Promise<{ open: boolean; closesAt: string | null; lastCustomerMessageAt: string | null }> {
    return windowOf(await this.deps.repository.lastInboundAt(null, order.id), this.clock());
  }

  /** The conversation of an order the caller was already given. */
  async messagesOfVisible(order: ConversationSubject): Promise<OrderMessageView[]> {
    const rows = await this.deps.repository.conversation(order.id, MAX_CONVERSATION_MESSAGES);
    const needsTemplate = rows.some((row) => row.kind === "confirmation" || row.kind === "reminder");
    const facts = needsTemplate ? await this.deps.repository.order(order.id) : null;
    const messages = rows.map((row) => this.view(row, order, facts));
    const sms = this.deps.smsOf ? await this.deps.smsOf(order.id) : [];
    if (sms.length === 0) return messages;
    const smsMessages = sms
      .filter((record) => record.state !== "skipped" && record.state !== "canceled")
      .map((record): OrderMessageView => ({
        id: record.id,
        direction: "outbound",
        sender: "service",
        kind: "sms",
        text: record.body,
        at: record.sentAt ?? record.createdAt,
        status: SMS_STATUS[record.state] ?? null,
      }));
    // Oldest first, the newest MAX_CONVERSATION_MESSAGES of both.
    return [...messages, ...smsMessages].sort((a, b) => a.at.localeCompare(b.at)).slice(-MAX_CONVERSATION_MESSAGES);
  }

  private view(row: ConversationRow, order: ConversationSubject, facts: ConversationOrder | null): OrderMessageView {
    let text = row.text;
    if ((row.kind === "confirmation" || row.kind === "reminder") && facts) {
      const message = confirmationOf(order as OrderView, languageOf(facts.language), facts.merchantId);
      text = row.kind === "confirmation" ? renderConfirmationText(message) : renderReminderText({ ...message, reminder: row.reminder ?? 1 });
    }
    const status = row.status === "queued" || row.status === "sending" ? null : row.status;
    return { id: row.id, direction: row.direction, sender: row.sender, kind: row.kind, text, at: row.at, status };
  }

  /** Whether the merchant may write now, and until when (the console shows it). */
  async window(scope: MerchantScope, orderId: string): Promise<{ open: boolean; closesAt: string | null; lastCustomerMessageAt: string | null }> {
    const order = await this.deps.orders.get(scope, orderId);
    const last = await this.deps.repository.lastInboundAt(null, order.id);
    return windowOf(last, this.clock());
  }

  /**
   * A merchant's reply (SPEC §11): refused with CONVERSATION_CLOSED unless the customer wrote about this order
   * (text or tap) in the last 24 hours, bounded per order and hour, then sent through the mode's provider
   * (test mode: the simulator). Stored before it is sent, with its outcome after; the conversation no longer
   * needs a reply.
   */
  async reply(scope: MerchantScope, orderId: string, text: string): Promise<OrderMessageView> {
    if (!isUuid(orderId)) throw new NotFoundError("order");
    const id = orderId.toLowerCase();
    const { repository } = this.deps;
    const leaseUntil = new Date(this.clock().getTime() + 120_000);
    const messageId = await repository.transaction(async (tx) => {
      // The order's lock: a reply and a tap (or another reply) of the same order are decided one after the other.
      if (!(await repository.lockOrder(tx, id, scope))) throw new NotFoundError("order");
      const now = this.clock();
      const last = await repository.lastInboundAt(tx, id);
      if (!windowOf(last, now).open) throw new ConversationClosedError(last?.toISOString() ?? null);
      const recent = await repository.merchantMessagesSince(tx, id, new Date(now.getTime() - 3_600_000));
      if (recent.count >= MAX_REPLIES_PER_HOUR) {
        const retryAfter = Math.max(1, Math.ceil(((recent.oldest?.getTime() ?? now.getTime()) + 3_600_000 - now.getTime()) / 1000));
        throw new ReplyRateLimitedError(retryAfter);
      }
      const stored = await repository.insert(tx, {
        orderId: id, merchantId: scope.merchantId, mode: scope.mode, at: now, direction: "outbound", sender: "merchant",
        kind: "text", text, status: "sending", leaseUntil,
      });
      await repository.markReplied(tx, id, now);
      return stored;
    });
    const order = (await repository.order(id))!;
    const channel = conversationChannelOf(this.deps.providers.forMode(scope.mode));
    const result = await channel
      .sendConversationMessage({
        orderId: id, merchantId: scope.merchantId, customerPhone: order.customerPhone, language: languageOf(order.language),
        replyTo: null, content: { type: "text", body: text },
      })
      .catch((error: unknown) => {
        this.deps.logger.error({ err: error, orderId: id }, "conversation send threw");
        return { outcome: "unavailable", errorCode: null, failureReason: "Unknown failure", detail: String(error) } as const;
      });
    await repository.recordSend(messageId, sendOutcome(result), null);
    const stored = await repository.message(messageId);
    return this.view(stored!, { id } as ConversationSubject, null);
  }

  /**
   * Marks a customer's message read at the provider: best effort, never awaited by a callback's answer, at most
   * MARK_READ_CONCURRENCY at a time (a notification of 1,000 texts must not open 1,000 connections to Meta), and at
   * most MARK_READ_QUEUE waiting (beyond, the receipt is skipped: a later one marks the earlier messages read too).
   */
  markRead(mode: MerchantScope["mode"], providerMessageId: string | null): void {
    if (!providerMessageId) return;
    if (this.readQueue.length >= MARK_READ_QUEUE) return;
    this.readQueue.push({ mode, providerMessageId });
    this.pumpReads();
  }

  private readonly readQueue: { mode: MerchantScope["mode"]; providerMessageId: string }[] = [];
  private readsInFlight = 0;

  private pumpReads(): void {
    while (this.readsInFlight < MARK_READ_CONCURRENCY && this.readQueue.length) {
      const { mode, providerMessageId } = this.readQueue.shift()!;
      this.readsInFlight++;
      conversationChannelOf(this.deps.providers.forMode(mode))
        .markRead(providerMessageId)
        .catch((error: unknown) => this.deps.logger.warn({ err: error }, "mark as read failed"))
        .finally(() => {
          this.readsInFlight--;
          this.pumpReads();
        });
    }
  }

  /** Our conversation messages among provider ids (a callback batch's statuses and quotes), in one query. */
  findProviderMessages(ids: string[]): Promise<Map<string, KnownMessage>> {
    return this.deps.repository.findByProviderMessages(ids.filter(Boolean));
  }

  /** The pending live orders of many phones at once, newest first (at most a list's worth each). */
  pendingOrdersOfPhones(phones: string[]): Promise<Map<string, ConversationOrder[]>> {
    return this.deps.repository.pendingOrdersOfPhones(phones, MAX_LIST_ORDERS);
  }

  /** Statuses of conversation messages, set-based, each provider event once. */
  applyMessageStatuses(reports: MessageStatusReport[], orderOf: Map<string, string>): Promise<("applied" | "duplicate")[]> {
    return this.deps.repository.applyStatuses(reports, orderOf, this.clock());
  }

  async needsReplyCount(scope: MerchantScope): Promise<number> {
    return this.deps.repository.needsReplyCount(scope);
  }
}

export function sendOutcome(
  result: Awaited<ReturnType<ReturnType<typeof conversationChannelOf>["sendConversationMessage"]>>,
): { providerMessageId: string } | { errorCode: number | null; failureReason: string } {
  switch (result.outcome) {
    case "accepted":
      return { providerMessageId: result.providerMessageId };
    case "rejected":
    case "unavailable":
      return { errorCode: result.errorCode, failureReason: result.failureReason };
    case "not_configured":
      return { errorCode: null, failureReason: "WhatsApp is not configured" };
  }
}

export function windowOf(last: Date | null, now: Date): { open: boolean; closesAt: string | null; lastCustomerMessageAt: string | null } {
  if (!last) return { open: false, closesAt: null, lastCustomerMessageAt: null };
  const closesAt = new Date(last.getTime() + SERVICE_WINDOW_MS);
  return { open: closesAt.getTime() > now.getTime(), closesAt: closesAt.toISOString(), lastCustomerMessageAt: last.toISOString() };
}

/** "<merchant> <externalOrderId>" in Meta's 24 characters: the reference is kept whole when it can be. */
export function rowTitle(merchantName: string, externalOrderId: string): string {
  const limit = 24;
  const ref = [...externalOrderId].length > limit - 2 ? `…${[...externalOrderId].slice(-(limit - 3)).join("")}` : externalOrderId;
  const room = limit - [...ref].length - 1;
  const name = [...merchantName.trim()];
  if (room <= 1 || name.length === 0) return ref;
  const shown = name.length <= room ? name.join("") : `${name.slice(0, room - 1).join("")}…`;
  return `${shown} ${ref}`;
}
