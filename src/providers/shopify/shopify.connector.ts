import type {
  StoreConnector,
  StoreCredentials,
  StoreEvent,
  WritebackEffect,
  WritebackResult,
  WritebackTarget,
} from "../../domain/stores/store-connector.ts";
import type { StoreSettings } from "../../domain/stores/store-settings.ts";
import { shopifyGraphQL, type GraphQLCallResult, type ShopifyApiOptions, type ThrottleStatus } from "./shopify-admin-client.ts";
import { refreshToken, type ShopifyAppOptions } from "./shopify-oauth.ts";
import { mapShopifyOrder, shopifyOrderId, type ShopifyOrder } from "./shopify-order-mapping.ts";

export const TAGS_ADD = `mutation TagsAdd($id: ID!, $tags: [String!]!) {
  tagsAdd(id: $id, tags: $tags) { node { id } userErrors { field message } }
}`;

export const ORDER_CANCEL = `mutation OrderCancel($orderId: ID!, $reason: OrderCancelReason!) {
  orderCancel(orderId: $orderId, reason: $reason, refundMethod: { originalPaymentMethodsRefund: false }, restock: true, notifyCustomer: false) {
    job { id } orderCancelUserErrors { field message code }
  }
}`;

export const FULFILLMENT_ORDERS = `query FulfillmentOrders($id: ID!) {
  order(id: $id) { id cancelledAt fulfillmentOrders(first: 20) { nodes { id status } } }
}`;

export const FULFILLMENT_ORDER_HOLD = `mutation FulfillmentOrderHold($id: ID!, $fulfillmentHold: FulfillmentOrderHoldInput!) {
  fulfillmentOrderHold(id: $id, fulfillmentHold: $fulfillmentHold) { fulfillmentOrder { id status } userErrors { field message } }
}`;

export const FULFILLMENT_ORDER_RELEASE_HOLD = `mutation FulfillmentOrderReleaseHold($id: ID!) {
  fulfillmentOrderReleaseHold(id: $id) { fulfillmentOrder { id status } userErrors { field message } }
}`;

export const WEBHOOK_SUBSCRIPTION_CREATE = `mutation WebhookSubscriptionCreate($topic: WebhookSubscriptionTopic!, $webhookSubscription: WebhookSubscriptionInput!) {
  webhookSubscriptionCreate(topic: $topic, webhookSubscription: $webhookSubscription) {
    webhookSubscription { id } userErrors { field message }
  }
}`;

/** Reason notes on our fulfillment holds: what the merchant sees in the Shopify admin. */
const HOLD_NOTES = "Awaiting cash-on-delivery confirmation from the customer (WhatsApp)";

interface UserError {
  field?: string[] | null;
  message: string;
  code?: string | null;
}

type FulfillmentOrderNode = { id: string; status: string };

export type ShopifyConnectorOptions = ShopifyApiOptions & ShopifyAppOptions;

export class ShopifyConnector implements StoreConnector {
  readonly platform = "shopify" as const;

  constructor(private readonly options: ShopifyConnectorOptions) {}

  parse(topic: string, body: unknown): StoreEvent {
    const payload = (body ?? {}) as Record<string, unknown>;
    switch (topic.toLowerCase()) {
      case "orders/create": {
        const storeOrderId = shopifyOrderId(payload as ShopifyOrder);
        return storeOrderId ? { kind: "order_created", storeOrderId, order: payload } : { kind: "ignored", reason: "no order id" };
      }
      case "app/uninstalled":
        return { kind: "uninstalled" };
      case "customers/redact": {
        const customer = (payload.customer ?? {}) as { phone?: unknown };
        return {
          kind: "customer_redact",
          storeOrderIds: idList(payload.orders_to_redact),
          phones: typeof customer.phone === "string" && customer.phone ? [customer.phone] : [],
        };
      }
      case "shop/redact":
        return { kind: "shop_redact" };
      case "customers/data_request":
        return { kind: "data_request", storeOrderIds: idList(payload.orders_requested) };
      default:
        return { kind: "ignored", reason: `topic ${topic.slice(0, 60)}` };
    }
  }

  toOrderInput(order: unknown, settings: StoreSettings) {
    const storeOrderId = shopifyOrderId(order as ShopifyOrder);
    if (!storeOrderId) return { ok: false as const, reason: "invalid" as const, detail: "id" };
    return mapShopifyOrder(order as ShopifyOrder, settings, storeOrderId);
  }

  async refresh(shop: string, credentials: StoreCredentials): Promise<StoreCredentials | null> {
    if (!credentials.refreshToken) return null;
    return refreshToken(this.options, shop, credentials.refreshToken);
  }

  /** Subscribes a topic to our callback URL (install). */
  async subscribe(shop: string, accessToken: string, topic: string, uri: string): Promise<WritebackResult> {
    const result = await this.call<{ webhookSubscriptionCreate: { userErrors: UserError[] } }>(shop, accessToken, WEBHOOK_SUBSCRIPTION_CREATE, {
      topic,
      webhookSubscription: { uri, format: "JSON" },
    });
    if (result.kind !== "ok") return asResult(result);
    const errors = result.data.webhookSubscriptionCreate.userErrors;
    // "Address for this topic has already been taken": a reinstall finds its subscription still there.
    if (errors.length && !errors.every((error) => /already been taken/i.test(error.message))) {
      return { kind: "failed", error: describe(errors) };
    }
    return done(result);
  }

  async writeBack(effect: WritebackEffect, target: WritebackTarget): Promise<WritebackResult> {
    const orderGid = `gid://shopify/Order/${target.storeOrderId}`;
    const token = target.credentials.accessToken;
    switch (effect.kind) {
      case "tag": {
        const result = await this.call<{ tagsAdd: { userErrors: UserError[] } }>(target.shop, token, TAGS_ADD, { id: orderGid, tags: [effect.tag] });
        if (result.kind !== "ok") return asResult(result);
        const errors = result.data.tagsAdd.userErrors;
        return errors.length ? { kind: "failed", error: describe(errors) } : done(result);
      }
      case "cancel": {
        const result = await this.call<{ orderCancel: { orderCancelUserErrors: UserError[] } }>(target.shop, token, ORDER_CANCEL, {
          orderId: orderGid,
          reason: effect.reason === "customer" ? "CUSTOMER" : "OTHER",
        });
        if (result.kind !== "ok") return asResult(result);
        const errors = result.data.orderCancel.orderCancelUserErrors;
        // A repeat after a crash finds the order canceled already: that is the effect we wanted.
        if (errors.length && !errors.every((error) => /ALREADY_CANCEL/i.test(error.code ?? "") || /already (been )?cancel/i.test(error.message))) {
          return { kind: "failed", error: describe(errors) };
        }
        return done(result);
      }
      case "hold":
      case "release_hold":
        return this.changeHolds(effect.kind, orderGid, target.shop, token);
    }
  }

  /**
   * Holds every open fulfillment order of the order (or releases every held one). Shopify creates fulfillment
   * orders shortly after the order: none yet is `not_ready`, and the outbox asks again (bounded).
   */
  private async changeHolds(kind: "hold" | "release_hold", orderGid: string, shop: string, token: string): Promise<WritebackResult> {
    const listed = await this.call<{ order: { fulfillmentOrders: { nodes: FulfillmentOrderNode[] } } | null }>(shop, token, FULFILLMENT_ORDERS, { id: orderGid });
    if (listed.kind !== "ok") return asResult(listed);
    if (!listed.data.order) return { kind: "failed", error: "order not found in the store" };
    const nodes = listed.data.order.fulfillmentOrders.nodes;
    if (kind === "hold" && nodes.length === 0) return { kind: "not_ready", error: "no fulfillment orders yet" };
    let last: GraphQLCallResult<unknown> = listed;
    for (const node of nodes) {
      if (kind === "hold" && node.status !== "OPEN") continue;
      if (kind === "release_hold" && node.status !== "ON_HOLD") continue;
      const result =
        kind === "hold"
          ? await this.call<{ fulfillmentOrderHold: { userErrors: UserError[] } }>(shop, token, FULFILLMENT_ORDER_HOLD, {
              id: node.id,
              fulfillmentHold: { reason: "OTHER", reasonNotes: HOLD_NOTES, notifyMerchant: false },
            })
          : await this.call<{ fulfillmentOrderReleaseHold: { userErrors: UserError[] } }>(shop, token, FULFILLMENT_ORDER_RELEASE_HOLD, { id: node.id });
      if (result.kind !== "ok") return asResult(result);
      const payload = (result.data as Record<string, { userErrors: UserError[] }>)[kind === "hold" ? "fulfillmentOrderHold" : "fulfillmentOrderReleaseHold"];
      if (payload.userErrors.length) return { kind: "failed", error: describe(payload.userErrors) };
      last = result;
    }
    return done(last as Extract<GraphQLCallResult<unknown>, { kind: "ok" }>);
  }

  private call<T>(shop: string, token: string, query: string, variables: Record<string, unknown>): Promise<GraphQLCallResult<T>> {
    return shopifyGraphQL<T>(this.options, shop, token, query, variables);
  }
}

function idList(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .slice(0, 10_000)
    .map((id) => (typeof id === "number" && Number.isSafeInteger(id) ? String(id) : typeof id === "string" && /^\d{1,30}$/.test(id) ? id : null))
    .filter((id): id is string => id !== null);
}

function describe(errors: UserError[]): string {
  return errors.map((error) => error.message).join("; ").slice(0, 300);
}

/**
 * Success, with the pause the bucket asks for: when fewer points remain than this request cost, the next call
 * waits for them to be restored (Shopify's leaky bucket), instead of being THROTTLED.
 */
function done(result: { throttle: ThrottleStatus | null; requestedCost: number | null } | GraphQLCallResult<unknown>): WritebackResult {
  if (!("throttle" in result) || !result.throttle) return { kind: "done" };
  const { currentlyAvailable, restoreRate } = result.throttle;
  const cost = result.requestedCost ?? 10;
  if (currentlyAvailable >= cost || restoreRate <= 0) return { kind: "done" };
  return { kind: "done", pace: { waitMs: Math.ceil(((cost - currentlyAvailable) / restoreRate) * 1000) } };
}

function asResult(result: Exclude<GraphQLCallResult<unknown>, { kind: "ok" }>): WritebackResult {
  switch (result.kind) {
    case "retry":
      return { kind: "retry", error: result.error, retryAfterMs: result.retryAfterMs, statusCode: result.statusCode, throttled: result.throttled };
    case "unauthorized":
      return { kind: "unauthorized", error: result.error };
    case "failed":
      return { kind: "failed", error: result.error };
  }
}
