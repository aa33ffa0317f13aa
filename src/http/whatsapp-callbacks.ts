import { createHmac, timingSafeEqual } from "node:crypto";
import { buttonTitles } from "../domain/messaging/confirmation-text.ts";
import { BUTTON_PAYLOAD } from "../domain/messaging/messaging-provider.ts";
import type { DeliveryStatus } from "../domain/orders/order-state.ts";
import { failureReasonFrom } from "../domain/orders/order-state.ts";
import type { OrderService } from "../domain/orders/order.service.ts";
import { isInt4, isStorableText, storableText } from "../domain/storable.ts";
import type { ProviderEventKey, TransitionResult } from "../domain/orders/order.repository.ts";
import type { ReminderService } from "../domain/confirmation/reminder.service.ts";
import type { SentReminder } from "../domain/confirmation/order-task.repository.ts";
import type { ConversationService } from "../domain/conversation/conversation.service.ts";
import { MAX_TEXT_LENGTH } from "../domain/conversation/conversation.service.ts";
import type { ConversationOrder, KnownMessage } from "../domain/conversation/conversation.repository.ts";

/**
 * Meta's WhatsApp callbacks (SPEC §5.3): signature check, and the translation of `statuses[]` and button
 * taps into the same OrderService calls the simulator makes. Each status and inbound message is applied at
 * most once (its key is recorded in the transaction of the change); out-of-order statuses are harmless
 * because the state machine only moves deliveryStatus forward.
 */

const PROVIDER = "whatsapp";

const SIGNATURE_HEADER = /^sha256=([0-9a-fA-F]{64})$/;

/** Whether the header can be a signature at all: checked before the body is read (SPEC §14). */
export function isSignatureHeaderFormat(header: string | undefined): boolean {
  return SIGNATURE_HEADER.test(header?.trim() ?? "");
}

/** `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body, keyed with the app secret>`, in constant time. */
export function hasValidSignature(appSecret: string, rawBody: Buffer, header: string | undefined): boolean {
  const match = SIGNATURE_HEADER.exec(header?.trim() ?? "");
  if (!match) return false;
  const expected = createHmac("sha256", appSecret).update(rawBody).digest();
  const given = Buffer.from(match[1], "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export type CallbackItem =
  | {
      kind: "status";
      key: string;
      wamid: string;
      status: DeliveryStatus;
      /** The order named by `biz_opaque_callback_data` ("order=<uuid>"), the fallback when the wamid is unknown. */
      orderHint: string | null;
      /** The reminder number named there ("order=<uuid>;reminder=<n>"): the status is a reminder's. */
      reminderHint: number | null;
      failure?: { errorCode: number | null; failureReason: string };
    }
  | {
      kind: "tap";
      key: string;
      messageId: string;
      /** Our button payload (APPROVE:<orderId> / CANCEL:<orderId>), when it parses. */
      payload: { action: "approve" | "cancel"; orderId: string } | null;
      /** The wamid of the message the customer answered (our confirmation), and the button's label. */
      contextId: string | null;
      label: string | null;
      /** Who tapped: the customer's WhatsApp number (digits), as Meta sends it. */
      from: string | null;
    }
  | {
      /** A customer's own words (SPEC §11). */
      kind: "text";
      key: string;
      messageId: string;
      /** The customer's WhatsApp id: digits with the country code, as orders store customerPhone. */
      from: string | null;
      text: string;
      /** The wamid of our message the customer replied to, when the customer quoted one. */
      contextId: string | null;
    }
  | {
      /** A row chosen from our "which order?" list (`ORDER:<id>`). */
      kind: "choice";
      key: string;
      messageId: string;
      from: string | null;
      orderId: string | null;
      title: string | null;
    }
  | { kind: "ignored"; reason: string; id: string | null };

const DELIVERY_STATUSES = new Set<string>(["sent", "delivered", "read", "failed"]);

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const objects = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isObject) : []);
const text = (value: unknown): string | null => (typeof value === "string" && value.length > 0 ? value : null);

/**
 * Meta's ids (wamids run to about 60 characters) as we can store and look them up: at most 255 characters
 * (the provider message id column), no NUL, no unpaired surrogate. Anything else cannot name one of our messages.
 */
const MAX_ID_LENGTH = 255;
const idText = (value: unknown): string | null => {
  const id = text(value);
  return id !== null && id.length <= MAX_ID_LENGTH && isStorableText(id) ? id : null;
};

/** The provider's failure text, stored as far as it fits: no NUL or unpaired surrogate, at most this many characters. */
export const MAX_FAILURE_REASON_LENGTH = 1000;
const reasonText = (value: unknown): string | null => {
  // Cleaned, cut, cleaned again: a cut through a surrogate pair leaves a half that storableText replaces.
  const reason = storableText(storableText(text(value) ?? "").slice(0, MAX_FAILURE_REASON_LENGTH));
  return reason || null;
};

/** Meta's error code as an int4 column holds it; a code out of range is dropped, the failure is kept. */
function errorCodeOf(code: unknown): number | null {
  const value = typeof code === "number" ? code : typeof code === "string" && /^-?\d{1,12}$/.test(code) ? Number(code) : null;
  return value !== null && isInt4(value) ? value : null;
}

/** Every entry, change, status and message of a notification, in order (Meta may batch them). */
export function callbackItems(body: unknown): CallbackItem[] {
  const items: CallbackItem[] = [];
  if (!isObject(body)) return [{ kind: "ignored", reason: "body is not an object", id: null }];
  for (const entry of objects(body.entry)) {
    for (const change of objects(entry.changes)) {
      const value = change.value;
      if (!isObject(value)) continue;
      for (const status of objects(value.statuses)) items.push(statusItem(status));
      for (const message of objects(value.messages)) items.push(messageItem(message));
    }
  }
  return items;
}

function statusItem(status: Json): CallbackItem {
  const wamid = idText(status.id);
  const value = text(status.status);
  if (!wamid || !value) return { kind: "ignored", reason: "status without id or status", id: wamid };
  // played, deleted, warning, and whatever comes next: accepted and ignored.
  if (!DELIVERY_STATUSES.has(value)) return { kind: "ignored", reason: `status ${value}`, id: wamid };
  const item: CallbackItem = {
    kind: "status",
    key: `status:${wamid}:${value}`,
    wamid,
    status: value as DeliveryStatus,
    orderHint: orderHintOf(status.biz_opaque_callback_data),
    reminderHint: reminderHintOf(status.biz_opaque_callback_data),
  };
  if (value === "failed") {
    const errors = objects(status.errors);
    item.failure = {
      errorCode: errorCodeOf(errors[0]?.code),
      failureReason: failureReasonFrom(errors.map((error) => ({ message: reasonText(error.message), title: reasonText(error.title) }))),
    };
  }
  return item;
}

/** `biz_opaque_callback_data` as our send sets it: `order=<uuid>`, possibly among other `;`-separated parts. */
function orderHintOf(data: unknown): string | null {
  const match = /(?:^|;)\s*order=([0-9a-fA-F-]{36})\s*(?:;|$)/.exec(text(data) ?? "");
  return match ? match[1].toLowerCase() : null;
}

/** `reminder=<n>` in `biz_opaque_callback_data`, as a reminder's send sets it. */
function reminderHintOf(data: unknown): number | null {
  const match = /(?:^|;)\s*reminder=([1-9])\s*(?:;|$)/.exec(text(data) ?? "");
  return match ? Number(match[1]) : null;
}

function messageItem(message: Json): CallbackItem {
  const id = idText(message.id);
  const type = text(message.type);
  if (!id) return { kind: "ignored", reason: "message without id", id: null };
  const context = isObject(message.context) ? message.context : {};
  let payload: string | null = null;
  let label: string | null = null;
  const from = typeof message.from === "string" && /^\d{1,15}$/.test(message.from) ? message.from : null;
  if (type === "text" && isObject(message.text) && typeof message.text.body === "string") {
    // Stored as far as it fits (WhatsApp's own limit is 4,096 characters), cleaned of what the database refuses.
    const body = storableText(message.text.body).slice(0, MAX_TEXT_LENGTH);
    if (!body.trim()) return { kind: "ignored", reason: "empty text", id };
    return { kind: "text", key: `message:${id}`, messageId: id, from, text: body, contextId: idText(context.id) };
  }
  if (type === "interactive" && isObject(message.interactive) && message.interactive.type === "list_reply") {
    const reply = isObject(message.interactive.list_reply) ? message.interactive.list_reply : {};
    const match = /^ORDER:([0-9a-fA-F-]{36})$/.exec(text(reply.id) ?? "");
    const title = text(reply.title);
    return {
      kind: "choice",
      key: `message:${id}`,
      messageId: id,
      from,
      orderId: match ? match[1].toLowerCase() : null,
      title: title ? storableText(title).slice(0, 200) : null,
    };
  }
  if (type === "button" && isObject(message.button)) {
    payload = text(message.button.payload);
    label = text(message.button.text);
  } else if (type === "interactive" && isObject(message.interactive) && message.interactive.type === "button_reply") {
    const reply = isObject(message.interactive.button_reply) ? message.interactive.button_reply : {};
    payload = text(reply.id);
    label = text(reply.title);
  } else {
    return { kind: "ignored", reason: `inbound ${type ?? "unknown"} message`, id };
  }
  return {
    kind: "tap",
    key: `message:${id}`,
    messageId: id,
    payload: payload ? BUTTON_PAYLOAD.parse(payload) : null,
    contextId: idText(context.id),
    label,
    from: typeof message.from === "string" ? message.from.replace(/^\+/, "") : null,
  };
}

/** A button label we send (en, ar), or the payload Meta echoes when none was attached, as an action. */
const LABELS = new Map<string, "approve" | "cancel">([
  ...(["en", "ar"] as const).flatMap((language) => {
    const titles = buttonTitles(language);
    return [
      [titles.approve.toLowerCase(), "approve"],
      [titles.cancel.toLowerCase(), "cancel"],
    ] as [string, "approve" | "cancel"][];
  }),
  ["confirm", "approve"],
  ["confirm order", "approve"],
  ["cancel order", "cancel"],
]);

export function actionOfLabel(label: string | null): "approve" | "cancel" | null {
  return label ? (LABELS.get(label.trim().toLowerCase()) ?? null) : null;
}

interface CallbackLogger {
  info(details: object, message: string): void;
  debug(details: object, message: string): void;
}

/** The callback reports on a send whose result is not recorded yet: Meta should deliver it again shortly. */
export class RetryLaterError extends Error {
  constructor(readonly orderId: string) {
    super(`order ${orderId} is still being sent`);
  }
}

export interface CallbackOutcome {
  item: CallbackItem["kind"];
  id: string | null;
  orderId: string | null;
  outcome: TransitionResult["outcome"] | "ignored";
}

/**
 * Applies every item of a verified notification in order. A notification may carry thousands of statuses: every
 * wamid it names is resolved in one query, and each run of consecutive statuses is applied with set-based
 * statements (OrderService.applyDeliveryReports), with the outcome each would have had one after the other.
 * Taps are applied one by one. A database error propagates: the caller answers 503 and Meta retries the whole
 * notification, whose already applied items are then duplicates. Ignored items are summed up in one log line.
 */
export async function applyCallback(
  body: unknown,
  orders: OrderService,
  reminders: ReminderService,
  logger: CallbackLogger,
  conversations: ConversationService | null = null,
): Promise<CallbackOutcome[]> {
  const items = callbackItems(body);
  const wamids = items.flatMap((item) =>
    item.kind === "status"
      ? [item.wamid]
      : (item.kind === "tap" || item.kind === "text") && item.contextId
        ? [item.contextId]
        : [],
  );
  const orderOf = await orders.orderIdsForProviderMessages(wamids);
  // Messages that are not a first message may be reminders (one query for the rest).
  const reminderOf = await reminders.findByProviderMessages(wamids.filter((wamid) => !orderOf.has(wamid)));
  // The rest may be messages of a conversation (automatic replies, lists, merchant replies): one query.
  const conversationOf = conversations
    ? await conversations.findProviderMessages(wamids.filter((wamid) => !orderOf.has(wamid) && !reminderOf.has(wamid)))
    : new Map<string, KnownMessage>();
  // Texts that quote none of our messages go to the phone's one pending order: every phone in one query.
  const phones = items.flatMap((item) => {
    if (item.kind !== "text" || !item.from) return [];
    const quoted = item.contextId ? answeredOrder(item.contextId, { orderOf, reminderOf, conversationOf }) : null;
    return quoted ? [] : [item.from];
  });
  const pendingOf = conversations && phones.length ? await conversations.pendingOrdersOfPhones(phones) : new Map<string, ConversationOrder[]>();
  const messages: SentMessages = { orderOf, reminderOf, conversationOf, pendingOf, conversations };
  const outcomes: CallbackOutcome[] = [];
  let statuses: StatusItem[] = [];
  const applyStatuses = async () => {
    if (statuses.length === 0) return;
    outcomes.push(...(await applyStatusRun(statuses, orders, reminders, messages)));
    statuses = [];
  };
  for (const item of items) {
    if (item.kind === "status") {
      statuses.push(item);
      continue;
    }
    await applyStatuses();
    outcomes.push(await applyItem(item, orders, messages));
  }
  await applyStatuses();

  const skipped = outcomes.filter((outcome) => outcome.outcome === "ignored" || outcome.outcome === "not_found");
  if (skipped.length) {
    logger.info(
      { items: outcomes.length, skipped: skipped.length, examples: skipped.slice(0, 3).map(({ item, id, outcome }) => ({ item, id, outcome })) },
      "whatsapp callback ignored",
    );
  }
  logger.debug({ items: outcomes.length, applied: outcomes.filter((outcome) => outcome.outcome === "applied").length }, "whatsapp callback applied");
  // A callback that overtook the recording of its own send: the rest of the batch is applied (and recorded,
  // so Meta's redelivery repeats only this), and the caller asks Meta to deliver it again.
  const ahead = outcomes.find((outcome) => outcome.outcome === "sending");
  if (ahead) throw new RetryLaterError(ahead.orderId ?? "");
  return outcomes;
}

type StatusItem = Extract<CallbackItem, { kind: "status" }>;

/** What the batch's wamids are: first messages (their orders), reminders and conversation messages. */
interface SentMessages {
  orderOf: Map<string, string>;
  reminderOf: Map<string, SentReminder>;
  conversationOf: Map<string, KnownMessage>;
  /** The pending live orders of the phones that wrote without quoting one of our messages (newest first). */
  pendingOf: Map<string, ConversationOrder[]>;
  conversations: ConversationService | null;
}

/** The order a quoted message belongs to: the first message, a reminder, or a conversation message of one order. */
function answeredOrder(contextId: string, sent: Pick<SentMessages, "orderOf" | "reminderOf" | "conversationOf">): string | null {
  const known = sent.conversationOf.get(contextId);
  return sent.orderOf.get(contextId) ?? sent.reminderOf.get(contextId)?.orderId ?? (known?.orderIds.length === 1 ? known.orderIds[0] : null);
}

/** Statuses of conversation messages, applied set-based by the conversation service. */
async function applyConversationStatuses(items: StatusItem[], sent: SentMessages): Promise<CallbackOutcome[]> {
  const orderOf = new Map(items.map((item) => [item.wamid, sent.conversationOf.get(item.wamid)!.orderIds[0]]));
  const results = await sent.conversations!.applyMessageStatuses(
    items.map((item) => ({ providerMessageId: item.wamid, status: item.status, failure: item.failure, providerEvent: { provider: PROVIDER, key: item.key } })),
    orderOf,
  );
  return items.map((item, index) => ({ item: item.kind, id: item.wamid, orderId: orderOf.get(item.wamid) ?? null, outcome: results[index] }));
}

/**
 * A run of statuses: the first messages' reports applied together (set-based), a reminder's status recorded on
 * the reminder (it never moves the first message's delivery status, nor fails the order).
 */
async function applyStatusRun(
  items: StatusItem[],
  orders: OrderService,
  reminders: ReminderService,
  sent: SentMessages,
): Promise<CallbackOutcome[]> {
  const { orderOf, reminderOf, conversationOf } = sent;
  const outcomes: (CallbackOutcome | null)[] = [];
  const reports: { index: number; orderId: string; item: StatusItem }[] = [];
  // Statuses of conversation messages (automatic replies, lists, merchant replies): never an order's delivery report.
  const conversational: { index: number; item: StatusItem }[] = [];
  for (const [index, item] of items.entries()) {
    if (!orderOf.has(item.wamid) && !reminderOf.has(item.wamid) && conversationOf.has(item.wamid)) {
      conversational.push({ index, item });
      outcomes.push(null);
      continue;
    }
    const orderId = orderOf.get(item.wamid);
    const reminder = orderId ? undefined : reminderOf.get(item.wamid);
    if (reminder) {
      const applied = await reminders.applyStatus(reminder, item.status, item.failure, { provider: PROVIDER, key: item.key });
      outcomes.push({ item: item.kind, id: item.wamid, orderId: reminder.orderId, outcome: applied ? "applied" : "duplicate" });
    } else if (!orderId && item.reminderHint !== null) {
      // A reminder whose send result (its wamid) is not recorded yet: Meta delivers this again shortly.
      const sending = item.orderHint !== null && (await reminders.isBeingSent(item.orderHint, item.reminderHint));
      outcomes.push({ item: item.kind, id: item.wamid, orderId: item.orderHint, outcome: sending ? "sending" : "not_found" });
    } else if (!orderId && !item.orderHint) {
      outcomes.push({ item: item.kind, id: item.wamid, orderId: null, outcome: "not_found" });
    } else {
      reports.push({ index, orderId: orderId ?? item.orderHint!, item });
      outcomes.push(null);
    }
  }
  const results = await orders.applyDeliveryReports(
    reports.map(({ item, orderId }) => ({
      orderId,
      status: item.status,
      failure: item.failure,
      providerEvent: { provider: PROVIDER, key: item.key },
    })),
  );
  reports.forEach(({ index, orderId, item }, n) => {
    outcomes[index] = { item: item.kind, id: item.wamid, orderId, outcome: results[n] };
  });
  if (conversational.length) {
    const applied = await applyConversationStatuses(conversational.map(({ item }) => item), sent);
    conversational.forEach(({ index }, n) => (outcomes[index] = applied[n]));
  }
  return outcomes as CallbackOutcome[];
}

/** An inbound message: ignored, or a tap, text or choice applied on its own (each is one customer's action). */
async function applyItem(item: Exclude<CallbackItem, StatusItem>, orders: OrderService, sent: SentMessages): Promise<CallbackOutcome> {
  const once = (key: string): ProviderEventKey => ({ provider: PROVIDER, key });
  const { conversations } = sent;
  switch (item.kind) {
    case "ignored":
      return { item: item.kind, id: item.id, orderId: null, outcome: "ignored" };
    case "tap": {
      // The answered message: the first message, one of its reminders (same buttons, same order), or our
      // automatic reply buttons.
      const answered = item.contextId ? answeredOrder(item.contextId, sent) : null;
      const orderId = item.payload?.orderId ?? answered;
      const action = item.payload?.action ?? actionOfLabel(item.label);
      if (!orderId || !action) return { item: item.kind, id: item.messageId, orderId, outcome: "not_found" };
      // Defence in depth (SPEC §14): a tap counts only from the order's own customer, on a live order (Meta's
      // callbacks are about live messages; test orders are answered in the simulator). A payload naming another
      // order, sent from another number, changes nothing.
      const customer = await orders.customerOf(orderId);
      if (!customer || customer.mode !== "live" || !item.from || customer.customerPhone !== item.from) {
        return { item: item.kind, id: item.messageId, orderId, outcome: "not_found" };
      }
      // No scope: a tap on an order that is no longer pending is ignored ("rejected" changes nothing).
      const recorded = conversations?.tapRecorder(item.label ?? null);
      const result = await orders.applyCustomerAction(orderId, action, null, once(item.key), "whatsapp", recorded);
      return { item: item.kind, id: item.messageId, orderId, outcome: result.outcome };
    }
    // Read receipts (SPEC §11) go to the customer's own words (texts, list choices): a tap is already its own
    // answer, and a receipt per tap would add one Graph API call to every confirmation for nothing the customer sees.
    case "text": {
      if (!conversations) return { item: item.kind, id: item.messageId, orderId: null, outcome: "ignored" };
      const quoted = item.contextId ? answeredOrder(item.contextId, sent) : null;
      const pending = quoted || !item.from ? [] : (sent.pendingOf.get(item.from) ?? []);
      if (!quoted && pending.length > 1) {
        // Several pending orders: the customer is asked which one; the text belongs to none of them.
        const outcome = await conversations.offerList(pending, item.messageId, once(item.key));
        return { item: item.kind, id: item.messageId, orderId: null, outcome };
      }
      const orderId = quoted ?? pending[0]?.id ?? null;
      // No order: nothing is stored, no merchant sees it.
      if (!orderId) return { item: item.kind, id: item.messageId, orderId: null, outcome: "not_found" };
      // Defence in depth (SPEC §14), as for taps: a reply quoting one of our messages counts only from that order's
      // own customer, on a live order (the pending orders found by phone are the sender's own already).
      if (quoted) {
        const customer = await orders.customerOf(quoted);
        if (!customer || customer.mode !== "live" || !item.from || customer.customerPhone !== item.from) {
          return { item: item.kind, id: item.messageId, orderId: null, outcome: "not_found" };
        }
      }
      const result = await conversations.receiveText(orderId, { text: item.text, providerMessageId: item.messageId, providerEvent: once(item.key), via: "whatsapp" });
      if (result.outcome === "applied" || result.outcome === "unchanged" || result.outcome === "rejected") conversations.markRead("live", item.messageId);
      return { item: item.kind, id: item.messageId, orderId, outcome: result.outcome };
    }
    case "choice": {
      if (!conversations || !item.orderId || !item.from) return { item: item.kind, id: item.messageId, orderId: item.orderId, outcome: "not_found" };
      const result = await conversations.receiveChoice(item.orderId, item.from, item.title, item.messageId, once(item.key));
      if (result.outcome === "unchanged") conversations.markRead("live", item.messageId);
      return { item: item.kind, id: item.messageId, orderId: item.orderId, outcome: result.outcome };
    }
  }
}
