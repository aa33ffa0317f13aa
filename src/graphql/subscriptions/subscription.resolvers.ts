import type { AppServices } from "../../app-services.ts";
import { NotFoundError } from "../../domain/errors.ts";
import { ORDER_EVENT_NAMES } from "../../domain/orders/order-state.ts";
import type { StoredEvent } from "../../domain/orders/order.repository.ts";
import type { ResolversTypes, SubscriptionResolvers } from "../../generated/graphql.ts";
import type { GraphQLContext } from "../context.ts";
import { notFoundError, unauthenticatedError } from "../error-mapper.ts";
import { toGraphQLOrder } from "../order-mapper.ts";

/** Events buffered per subscription for a client that reads slower than events arrive (then it is dropped). */
export const SUBSCRIPTION_HIGH_WATER_MARK = 100;

/**
 * How the transport drops a subscriber that cannot keep up, registered per operation context by the
 * websocket server: resolvers stay transport-agnostic, and the socket goes at once instead of after its
 * stalled sends drain.
 */
const slowSubscriberHandlers = new WeakMap<GraphQLContext, () => void>();

export function onSlowSubscriber(context: GraphQLContext, drop: () => void): void {
  slowSubscriberHandlers.set(context, drop);
}

/** Drops the subscriber of `context` through its transport (another subscription field's overflow). */
export function dropSlowSubscriber(context: GraphQLContext): void {
  slowSubscriberHandlers.get(context)?.();
}

/**
 * The GraphQL view of one stored event, built once per event however many local subscribers receive it (the
 * relay hands every subscriber the same StoredEvent object).
 */
type OrderStatusEvent = ResolversTypes["OrderStatusEvent"];
const eventViews = new WeakMap<StoredEvent, OrderStatusEvent>();

export function toOrderStatusEvent(event: StoredEvent): OrderStatusEvent {
  let view = eventViews.get(event);
  if (!view) {
    const { envelope } = event;
    view = { event: envelope.event, timestamp: envelope.timestamp, order: toGraphQLOrder(envelope.data) };
    eventViews.set(event, view);
  }
  return view;
}

/**
 * `Subscription.orderStatusChanged(orderId)`: every committed event of the caller's merchant and mode (or of
 * one of its orders), exactly as the outbox stores it (same name, timestamp and order data), from whichever
 * instance committed it. An `orderId` the caller cannot see (unknown, malformed, another merchant's or the
 * other mode's) is a NOT_FOUND error rather than a subscription that silently never fires.
 */
export function subscriptionResolvers(services: AppServices): SubscriptionResolvers {
  return {
    orderStatusChanged: {
      subscribe: async (_parent, args, context) => {
        const { caller, language } = context;
        if (!caller) throw unauthenticatedError(context.authError, language);
        const orderId = args.orderId?.toLowerCase() ?? null;
        // Listen first, then check the order: nothing committed in between is missed.
        const stream = services.liveEvents.stream(
          // The order's status events only: a customer's message has its own subscription (orderMessageReceived).
          { merchantId: caller.merchantId, mode: caller.mode, orderId, events: ORDER_EVENT_NAMES },
          {
            highWaterMark: SUBSCRIPTION_HIGH_WATER_MARK,
            onOverflow: () => slowSubscriberHandlers.get(context)?.(),
          },
        );
        if (args.orderId !== undefined && args.orderId !== null) {
          try {
            await services.orderService.get(caller, args.orderId);
          } catch (error) {
            await stream.return?.();
            if (error instanceof NotFoundError) throw notFoundError(language);
            throw error;
          }
        }
        return stream;
      },
      resolve: (event: StoredEvent) => toOrderStatusEvent(event),
    },
  };
}
