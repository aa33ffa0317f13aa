import type { AppServices } from "../../app-services.ts";
import type { ConversationSubject, OrderMessageView } from "../../domain/conversation/conversation.service.ts";
import { NotFoundError, ValidationError } from "../../domain/errors.ts";
import type { StoredEvent } from "../../domain/orders/order.repository.ts";
import { CUSTOMER_MESSAGE_EVENT } from "../../domain/orders/order.view.ts";
import type {
  MessageDirection,
  MessageKind,
  MessageSender,
  MutationResolvers,
  OrderMessage,
  OrderMessageEvent,
  OrderResolvers,
  SubscriptionResolvers,
} from "../../generated/graphql.ts";
import { messageTextBody } from "../../http/conversation.schemas.ts";
import { notFoundError, toUserErrors, unauthenticatedError } from "../error-mapper.ts";
import { problemFromIssue } from "../../i18n/zod-issues.ts";
import { toGraphQLOrder } from "../order-mapper.ts";
import { SUBSCRIPTION_HIGH_WATER_MARK, dropSlowSubscriber } from "../subscriptions/subscription.resolvers.ts";
import { asPermitted } from "./caller-guard.ts";

/** The conversation's enums in GraphQL style (REST keeps them lower case). */
export function toGraphQLMessage(message: OrderMessageView): OrderMessage {
  return {
    id: message.id,
    direction: message.direction.toUpperCase() as MessageDirection,
    sender: message.sender.toUpperCase() as MessageSender,
    kind: message.kind.toUpperCase() as MessageKind,
    text: message.text,
    at: message.at,
    status: message.status,
  };
}

const eventViews = new WeakMap<StoredEvent, OrderMessageEvent>();

/** One view per stored event, however many subscribers receive it. */
function toMessageEvent(event: StoredEvent): OrderMessageEvent {
  let view = eventViews.get(event);
  if (!view) {
    const { envelope } = event;
    const message = envelope.message!;
    view = {
      timestamp: envelope.timestamp,
      order: toGraphQLOrder(envelope.data) as OrderMessageEvent["order"],
      message: { id: message.id, direction: "INBOUND", sender: "CUSTOMER", kind: "TEXT", text: message.text, at: message.receivedAt, status: null },
    };
    eventViews.set(event, view);
  }
  return view;
}

/** SPEC §11 over GraphQL: Order.messages, Order.conversationWindow, sendOrderMessage, orderMessageReceived. */
export function conversationResolvers(services: AppServices) {
  const { conversations, orderService } = services;

  // The parent order was already authorised (it was returned to this caller).
  const Order: OrderResolvers = {
    messages: async (order) => (await conversations.messagesOfVisible(order as ConversationSubject)).map(toGraphQLMessage),
    conversationWindow: async (order) => conversations.windowOfVisible(order),
  };

  const Mutation: MutationResolvers = {
    sendOrderMessage: (_parent, { orderId, text }, context) =>
      // Admins and agents (SPEC §15); viewers are refused (domain/users/permissions.ts).
      asPermitted(context, "Mutation.sendOrderMessage", async (caller) => {
        try {
          const parsed = messageTextBody.safeParse({ text }, { reportInput: true });
          if (!parsed.success) throw new ValidationError(parsed.error.issues.map((issue) => problemFromIssue(issue)));
          return { message: toGraphQLMessage(await conversations.reply(caller, orderId, parsed.data.text)), userErrors: [] };
        } catch (error) {
          const userErrors = toUserErrors(error, context.language);
          if (!userErrors) throw error;
          return { message: null, userErrors };
        }
      }),
  };

  const Subscription: SubscriptionResolvers = {
    orderMessageReceived: {
      subscribe: async (_parent, args, context) => {
        const { caller, language } = context;
        if (!caller) throw unauthenticatedError(context.authError, language);
        const orderId = args.orderId?.toLowerCase() ?? null;
        // Listen first, then check the order: nothing committed in between is missed.
        const stream = services.liveEvents.stream(
          { merchantId: caller.merchantId, mode: caller.mode, orderId, events: [CUSTOMER_MESSAGE_EVENT] },
          { highWaterMark: SUBSCRIPTION_HIGH_WATER_MARK, onOverflow: () => dropSlowSubscriber(context) },
        );
        if (args.orderId !== undefined && args.orderId !== null) {
          try {
            await orderService.get(caller, args.orderId);
          } catch (error) {
            await stream.return?.();
            if (error instanceof NotFoundError) throw notFoundError(language);
            throw error;
          }
        }
        return stream;
      },
      resolve: (event: StoredEvent) => toMessageEvent(event),
    } as SubscriptionResolvers["orderMessageReceived"],
  };

  return { Order, Mutation, Subscription };
}
