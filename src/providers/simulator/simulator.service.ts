import { ForbiddenError, NotFoundError } from "../../domain/errors.ts";
import type { ConversationService } from "../../domain/conversation/conversation.service.ts";
import { randomIdText } from "../../domain/ids.ts";
import type { OrderEventBus } from "../../domain/orders/order-events.bus.ts";
import type { MerchantScope } from "../../domain/orders/order.repository.ts";
import type { OrderService } from "../../domain/orders/order.service.ts";
import type { DeliveryStatus } from "../../domain/orders/order-state.ts";
import type { OrderView } from "../../domain/orders/order.view.ts";
import type { SimulatedMessage, SimulatedOrderChange, SimulatedPhones } from "./simulated-phones.ts";

/** Titles Meta sends in `errors[0]` of a failed status, for the codes the simulator can report. */
const ASYNC_FAILURES: Record<number, string> = {
  131000: "Something went wrong",
  131026: "Message undeliverable",
  131047: "Re-engagement message",
  131049: "This message was not delivered to maintain healthy ecosystem engagement.",
  131050: "User has stopped receiving marketing messages",
  132015: "Template is Paused",
};

/** One simulated handset as the /simulator page shows it: its messages, oldest first, with their orders now. */
export interface PhoneConversation {
  phone: string;
  messages: (SimulatedMessage & { order: OrderView })[];
}

/** What the /simulator page's live channel pushes. */
export type SimulatorUpdate =
  | { type: "message"; message: SimulatedMessage; order: OrderView }
  | { type: "order"; order: OrderView };

export interface SimulatorServiceDeps {
  orders: OrderService;
  phones: SimulatedPhones;
  bus: OrderEventBus;
  conversations: ConversationService;
}

/**
 * The simulated customer: what a phone would report to the provider, fed through the same domain calls
 * as real WhatsApp callbacks. Only test-mode orders can be driven, and each merchant sees only its own.
 */
export class SimulatorService {
  constructor(private readonly deps: SimulatorServiceDeps) {}

  async tap(scope: MerchantScope, orderId: string, action: "approve" | "cancel"): Promise<OrderView> {
    assertTestMode(scope);
    const { orders, phones } = this.deps;
    const title = phones.messageOf(orderId)?.buttons[action] ?? null;
    const recorded = this.deps.conversations.tapRecorder(title);
    const order = orders.settle(await orders.applyCustomerAction(orderId, action, scope, null, "simulator", recorded));
    phones.orderChanged({ merchantId: scope.merchantId, order });
    return order;
  }

  /**
   * The customer types a text on the simulated phone, replying to the order's message (SPEC §11): exactly what an
   * inbound WhatsApp text with that `context` does. Returns the order as it is afterwards.
   */
  async customerMessage(scope: MerchantScope, orderId: string, text: string): Promise<OrderView> {
    assertTestMode(scope);
    const { phones, conversations } = this.deps;
    const providerMessageId = `wamid.SIMIN${randomIdText(18)}`;
    const result = await conversations.receiveText(orderId, { text, providerMessageId, providerEvent: null, via: "text" }, scope);
    if (result.outcome === "not_found" || result.outcome === "sending" || result.outcome === "reminder_in_flight" || result.outcome === "duplicate") {
      throw new NotFoundError("order");
    }
    const order = result.order;
    const shown = phones.messageOf(order.id);
    phones.deliver({
      id: providerMessageId,
      orderId: order.id,
      merchantId: scope.merchantId,
      reminder: null,
      phone: order.customerPhone,
      language: shown?.language ?? "en",
      text,
      buttons: shown?.buttons ?? { approve: "", cancel: "" },
      sentAt: new Date().toISOString(),
      kind: "customer_text",
      sender: "customer",
    });
    phones.orderChanged({ merchantId: scope.merchantId, order });
    return order;
  }

  async report(scope: MerchantScope, orderId: string, status: DeliveryStatus, errorCode?: number): Promise<OrderView> {
    assertTestMode(scope);
    const { orders, phones } = this.deps;
    const failure =
      status === "failed"
        ? { errorCode: errorCode ?? 131026, failureReason: ASYNC_FAILURES[errorCode ?? 131026] ?? "Unknown failure" }
        : undefined;
    const order = orders.settle(await orders.applyDeliveryStatus(orderId, status, failure, scope));
    phones.orderChanged({ merchantId: scope.merchantId, order });
    return order;
  }

  /**
   * The kept messages of the caller's test-mode orders, grouped by phone (the phone with the newest message
   * first), each with its order as it is now. Messages of other merchants' orders are not shown.
   */
  async conversations(scope: MerchantScope): Promise<PhoneConversation[]> {
    assertTestMode(scope);
    const messages = this.deps.phones.all();
    const orders = await this.deps.orders.getMany(scope, messages.map((message) => message.orderId));
    const phones = new Map<string, PhoneConversation>();
    for (const message of messages) {
      const order = orders.get(message.orderId);
      if (!order) continue;
      const conversation = phones.get(message.phone) ?? { phone: message.phone, messages: [] };
      conversation.messages.push({ ...message, order });
      phones.set(message.phone, conversation);
    }
    const newest = (conversation: PhoneConversation) => conversation.messages.at(-1)!.sentAt;
    return [...phones.values()].sort((a, b) => newest(b).localeCompare(newest(a)));
  }

  /**
   * Live updates for the caller's test-mode orders: a new message once its order is committed (order.created),
   * every later committed event, and every simulated tap or delivery report. Returns the unsubscribe call.
   */
  watch(scope: MerchantScope, send: (update: SimulatorUpdate) => void): () => void {
    assertTestMode(scope);
    const { bus, phones } = this.deps;
    const stopBus = bus.subscribe((event) => {
      if (event.merchantId !== scope.merchantId) return;
      // Only test-mode orders have a simulated message (live events of the same merchant are not shown).
      const message = phones.messageOf(event.orderId);
      if (!message) return;
      if (event.envelope.event === "order.created") send({ type: "message", message, order: event.envelope.data });
      else send({ type: "order", order: event.envelope.data });
    });
    const onChange = (change: SimulatedOrderChange) => {
      if (change.merchantId === scope.merchantId) send({ type: "order", order: change.order });
    };
    // A reminder has no event of its own: it is shown as it is sent, with its order as it is then.
    // Nor does a message of the conversation (a reply, a customer's text).
    const onReminder = (message: SimulatedMessage) => {
      const conversational = message.kind !== undefined && message.kind !== "confirmation";
      if ((message.reminder === null && !conversational) || message.merchantId !== scope.merchantId) return;
      this.deps.orders
        .get(scope, message.orderId)
        .then((order) => send({ type: "message", message, order }))
        .catch(() => undefined);
    };
    phones.on("order", onChange);
    phones.on("message", onReminder);
    return () => {
      stopBus();
      phones.off("order", onChange);
      phones.off("message", onReminder);
    };
  }
}

function assertTestMode(scope: MerchantScope): void {
  if (scope.mode !== "test") throw new ForbiddenError("test_mode_only");
}
