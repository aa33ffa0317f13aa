import type {
  MappedOrder,
  StoreConnector,
  StoreCredentials,
  StoreEvent,
  WritebackEffect,
  WritebackResult,
  WritebackTarget,
} from "../../domain/stores/store-connector.ts";
import type { StoreSettings } from "../../domain/stores/store-settings.ts";
import { asWritebackResult, noteForTag } from "../store-support/writeback-result.ts";
import { mapWooCommerceOrder } from "./map-order.ts";
import { DRAFT_STATUSES } from "./order-payload.ts";
import type { WooCommerceClient, WooCommerceCredentials } from "./woocommerce-client.ts";

/**
 * WooCommerce on the connector framework. Deliveries are routed by the connection id in their URL and verified
 * with that connection's own webhook secret (woocommerce.routes.ts); here they are parsed and mapped, and the
 * outbox's effects become REST calls: a tag becomes an order note, a cancel sets the status `cancelled`.
 * WooCommerce has no fulfillment holds: hold and release are done with nothing to do.
 */
export class WooCommerceConnector implements StoreConnector {
  readonly platform = "woocommerce" as const;

  constructor(readonly client: WooCommerceClient) {}

  parse(topic: string, body: unknown): StoreEvent {
    if (topic !== "order.created") return { kind: "ignored", reason: `topic ${topic.slice(0, 60)}` };
    const order = (body ?? {}) as { id?: unknown; status?: unknown };
    // A block-checkout draft is not an order yet; it is not claimed either, so the real order.created that
    // WooCommerce sends when the draft is placed still creates the order.
    if (typeof order.status === "string" && DRAFT_STATUSES.has(order.status)) return { kind: "ignored", reason: `draft (${order.status})` };
    const id = order.id;
    const storeOrderId = typeof id === "number" && Number.isSafeInteger(id) && id >= 0 ? String(id) : typeof id === "string" && /^\d{1,20}$/.test(id) ? id : null;
    return storeOrderId ? { kind: "order_created", storeOrderId, order: body } : { kind: "ignored", reason: "no order id" };
  }

  toOrderInput(order: unknown, settings: StoreSettings): MappedOrder {
    const mapped = mapWooCommerceOrder(order, settings);
    if (mapped.kind === "order") return { ok: true, input: mapped.input, language: mapped.language === "ar" || mapped.language === "en" ? mapped.language : null };
    // Drafts never get here (parse ignores them); should one, it is no order: `invalid` with the status named.
    const reason = mapped.reason === "draft" ? "invalid" : mapped.reason;
    return { ok: false, reason, ...(mapped.detail ? { detail: mapped.detail } : {}) };
  }

  async writeBack(effect: WritebackEffect, target: WritebackTarget): Promise<WritebackResult> {
    const credentials = wooCommerceCredentials(target.credentials);
    if (!credentials) return { kind: "unauthorized", error: "the connection has no WooCommerce key" };
    switch (effect.kind) {
      case "tag":
        return asWritebackResult(await this.client.addOrderNote(credentials, target.storeOrderId, noteForTag(effect.tag)));
      case "cancel":
        return asWritebackResult(await this.client.cancelOrder(credentials, target.storeOrderId));
      case "hold":
      case "release_hold":
        return { kind: "done" };
    }
  }

  /** On disconnect: the webhook we created is deleted, so the store stops sending (best effort). */
  async release(credentials: StoreCredentials): Promise<void> {
    const rest = wooCommerceCredentials(credentials);
    if (rest && credentials.webhookId) await this.client.deleteWebhook(rest, credentials.webhookId);
  }

  /** Consumer keys do not expire. */
  async refresh(): Promise<StoreCredentials | null> {
    return null;
  }
}

/** The REST credentials kept (sealed) on a WooCommerce connection: key, secret (as `accessToken`) and store URL. */
export function wooCommerceCredentials(credentials: StoreCredentials): WooCommerceCredentials | null {
  if (!credentials.consumerKey || !credentials.storeUrl || !credentials.accessToken) return null;
  return { storeUrl: credentials.storeUrl, consumerKey: credentials.consumerKey, consumerSecret: credentials.accessToken };
}
