import type { CreateOrderInput } from "../orders/order.schemas.ts";
import type { StoreSettings } from "./store-settings.ts";

/**
 * The port every store platform implements (SPEC §13): Shopify here; WooCommerce and Salla plug in the same way.
 * Connectors are stateless: credentials come with each call and are never kept on the instance. The domain sees
 * only these types, never a platform's payloads.
 */
export type StorePlatform = "shopify" | "woocommerce" | "salla";

export interface StoreCredentials {
  accessToken: string;
  refreshToken?: string | null;
  /** ISO time; absent: the token does not expire. */
  accessTokenExpiresAt?: string | null;
  /** WooCommerce/Salla: the secret that signs this connection's webhooks. */
  webhookSecret?: string | null;
  scope?: string | null;
  /** WooCommerce: the REST consumer key (its secret is `accessToken`), the canonical store URL, and the id of the
   * webhook we created there (deleted on disconnect). */
  consumerKey?: string | null;
  storeUrl?: string | null;
  webhookId?: string | null;
}

/** A verified delivery, parsed: one of a closed set. */
export type StoreEvent =
  | { kind: "order_created"; storeOrderId: string; order: unknown }
  | { kind: "uninstalled" }
  | { kind: "customer_redact"; storeOrderIds: string[]; phones: string[] }
  | { kind: "shop_redact" }
  | { kind: "data_request"; storeOrderIds: string[] }
  | { kind: "ignored"; reason: string };

export type SkipReason = "not_cod" | "no_phone" | "invalid";

export type MappedOrder =
  | { ok: true; input: CreateOrderInput; language: "en" | "ar" | null }
  | { ok: false; reason: SkipReason; detail?: string };

/** What a write-back does on the store, applied in this order within one outcome. */
export type WritebackEffect =
  | { kind: "hold" }
  | { kind: "release_hold" }
  | { kind: "tag"; tag: string }
  | { kind: "cancel"; reason: "customer" | "expired" };

export const effectKey = (effect: WritebackEffect): string =>
  effect.kind === "tag" ? `tag:${effect.tag}` : effect.kind === "cancel" ? `cancel:${effect.reason}` : effect.kind;

/**
 * How a call to the store ended. `retry` covers timeouts, 5xx, 429 and throttling (after `retryAfterMs` when the
 * store said); `not_ready` is a precondition the store fulfils by itself soon (Shopify creates fulfillment orders
 * asynchronously); `failed` is permanent (4xx, userErrors).
 */
export type WritebackResult =
  | { kind: "done"; pace?: { waitMs: number } }
  | { kind: "retry"; error: string; retryAfterMs: number | null; statusCode: number | null; throttled: boolean }
  | { kind: "not_ready"; error: string }
  | { kind: "failed"; error: string }
  /** The token was refused: the connection needs the merchant (status ERROR). */
  | { kind: "unauthorized"; error: string };

export interface WritebackTarget {
  shop: string;
  storeOrderId: string;
  credentials: StoreCredentials;
}

export interface StoreConnector {
  readonly platform: StorePlatform;
  /** Maps a verified delivery's parsed body to our closed set of events. */
  parse(topic: string, body: unknown): StoreEvent;
  /** A store order as an order of ours, or why it creates none. */
  toOrderInput(order: unknown, settings: StoreSettings): MappedOrder;
  /** Applies one effect; idempotent on the store's side (a repeat after a crash changes nothing more). */
  writeBack(effect: WritebackEffect, target: WritebackTarget): Promise<WritebackResult>;
  /** New credentials when the access token is about to expire; null when this platform's tokens do not. */
  refresh(shop: string, credentials: StoreCredentials): Promise<StoreCredentials | null>;
  /** Best effort on disconnect, before the credentials are deleted (WooCommerce deletes the webhook it made). */
  release?(credentials: StoreCredentials): Promise<void>;
}

/** The effects of one outcome under the connection's settings, in the order they are applied. */
export function effectsFor(outcome: string, settings: StoreSettings, held: boolean): WritebackEffect[] {
  const tag = (value: string | null): WritebackEffect[] => (value ? [{ kind: "tag", tag: value }] : []);
  switch (outcome) {
    case "hold":
      return settings.holdFulfillmentUntilConfirmed ? [{ kind: "hold" }] : [];
    case "confirmed":
      // Released whenever we held it, even if the setting was turned off since.
      return [...(held ? [{ kind: "release_hold" } as const] : []), ...tag(settings.tagConfirmed)];
    case "canceled":
      return [...tag(settings.tagCanceled), ...(settings.cancelOnCustomerCancel ? [{ kind: "cancel", reason: "customer" } as const] : [])];
    case "expired":
      return [...tag(settings.tagExpired), ...(settings.cancelOnExpiry ? [{ kind: "cancel", reason: "expired" } as const] : [])];
    case "failed":
      return tag(settings.tagFailed);
    default:
      return [];
  }
}
