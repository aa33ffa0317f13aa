import {
  failureOfError,
  failureOfStatus,
  jsonOf,
  type StoreCallResult,
  type StoreResponse,
  type StoreTransport,
} from "../store-support/store-http.ts";

/**
 * WooCommerce REST API v3 (`<store>/wp-json/wc/v3/`), with HTTP basic auth over the consumer key and secret (what
 * WooCommerce accepts over https). Stateless: the credentials come with every call and are never kept here. Every
 * answer becomes a StoreCallResult (ok, or a retryable/permanent failure with WooCommerce's error code), never
 * an exception, except for programming errors. Written by hand over the StoreTransport rather than with
 * `@woocommerce/woocommerce-rest-api`: that client is axios-based and has no hook for the SSRF guard's lookup,
 * which must see every connection to a merchant-chosen host.
 */
export interface WooCommerceCredentials {
  /** Canonical store URL (store-url.ts), no trailing slash. */
  storeUrl: string;
  consumerKey: string;
  consumerSecret: string;
}

export interface CreatedWebhook {
  webhookId: string;
}

/** Why a connect check failed, as the connect form explains it. */
export type WooCommerceCheckProblem = "not_woocommerce" | "bad_credentials" | "unreachable";

export type WooCommerceCheck =
  | { ok: true }
  | { ok: false; problem: WooCommerceCheckProblem; detail: string };

export class WooCommerceClient {
  constructor(private readonly transport: StoreTransport) {}

  /**
   * The credentials, checked: the store's `wp-json/wc/v3/` index must answer as WooCommerce, and the key must be
   * allowed to read the store's webhooks (the connection creates one, so a key without read/write fails here,
   * with a clear message, rather than half-way through connecting).
   */
  async checkCredentials(credentials: WooCommerceCredentials): Promise<WooCommerceCheck> {
    const index = await this.call(credentials, "GET", "", undefined, false);
    if (!index.ok) {
      if (index.status === null) return { ok: false, problem: "unreachable", detail: index.detail };
      return { ok: false, problem: "not_woocommerce", detail: index.detail };
    }
    const namespace = (index.value as { namespace?: unknown } | null)?.namespace;
    if (namespace !== "wc/v3") return { ok: false, problem: "not_woocommerce", detail: "no WooCommerce REST API v3 at /wp-json/wc/v3/" };
    const webhooks = await this.call(credentials, "GET", "webhooks?per_page=1");
    if (webhooks.ok) return { ok: true };
    if (webhooks.status === 401 || webhooks.status === 403) return { ok: false, problem: "bad_credentials", detail: webhooks.detail };
    if (webhooks.status === null) return { ok: false, problem: "unreachable", detail: webhooks.detail };
    return { ok: false, problem: "not_woocommerce", detail: webhooks.detail };
  }

  /** `POST /webhooks` (topic order.created); WooCommerce pings `deliveryUrl` before it answers. */
  async createOrderWebhook(
    credentials: WooCommerceCredentials,
    webhook: { name: string; deliveryUrl: string; secret: string },
  ): Promise<StoreCallResult<CreatedWebhook>> {
    const result = await this.call(credentials, "POST", "webhooks", {
      name: webhook.name,
      topic: "order.created",
      delivery_url: webhook.deliveryUrl,
      secret: webhook.secret,
      status: "active",
    });
    if (!result.ok) return result;
    const id = (result.value as { id?: unknown } | null)?.id;
    if (typeof id !== "number" && typeof id !== "string") {
      return { ok: false, retryable: false, unauthorized: false, status: 201, retryAfterMs: null, detail: "webhook created without an id" };
    }
    return { ok: true, value: { webhookId: String(id) } };
  }

  /** `DELETE /webhooks/{id}?force=true` (on disconnect); an already deleted webhook (404) counts as done. */
  async deleteWebhook(credentials: WooCommerceCredentials, webhookId: string): Promise<StoreCallResult<void>> {
    const result = await this.call(credentials, "DELETE", `webhooks/${encodeURIComponent(webhookId)}?force=true`);
    if (result.ok || result.status === 404) return { ok: true, value: undefined };
    return result;
  }

  /** `POST /orders/{id}/notes`: a private note (not emailed to the customer). */
  async addOrderNote(credentials: WooCommerceCredentials, orderId: string, note: string): Promise<StoreCallResult<{ noteId: string | null }>> {
    const result = await this.call(credentials, "POST", `orders/${encodeURIComponent(orderId)}/notes`, { note, customer_note: false });
    if (!result.ok) return result;
    const id = (result.value as { id?: unknown } | null)?.id;
    return { ok: true, value: { noteId: typeof id === "number" || typeof id === "string" ? String(id) : null } };
  }

  /** `PUT /orders/{id}` `{ "status": "cancelled" }` (WooCommerce restocks as its own settings say). */
  async cancelOrder(credentials: WooCommerceCredentials, orderId: string): Promise<StoreCallResult<void>> {
    const result = await this.call(credentials, "PUT", `orders/${encodeURIComponent(orderId)}`, { status: "cancelled" });
    return result.ok ? { ok: true, value: undefined } : result;
  }

  private async call(
    credentials: WooCommerceCredentials,
    method: "GET" | "POST" | "PUT" | "DELETE",
    path: string,
    body?: unknown,
    authenticated = true,
  ): Promise<StoreCallResult<unknown>> {
    let response: StoreResponse;
    try {
      response = await this.transport({
        method,
        url: `${credentials.storeUrl}/wp-json/wc/v3/${path}`,
        headers: {
          ...(authenticated ? { authorization: basicAuth(credentials) } : {}),
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      return failureOfError(error);
    }
    const json = jsonOf(response.body);
    if (response.status >= 200 && response.status < 300) return { ok: true, value: json };
    return failureOfStatus(response, describeWooCommerceError(json, response.status));
  }
}

export function basicAuth(credentials: Pick<WooCommerceCredentials, "consumerKey" | "consumerSecret">): string {
  return `Basic ${Buffer.from(`${credentials.consumerKey}:${credentials.consumerSecret}`, "utf8").toString("base64")}`;
}

/** WooCommerce's error body `{ code, message, data: { status } }` as a short line (never the body in full). */
export function describeWooCommerceError(body: unknown, status: number): string {
  const error = body as { code?: unknown; message?: unknown } | null;
  const code = typeof error?.code === "string" ? error.code.slice(0, 80) : null;
  const message = typeof error?.message === "string" ? error.message.replace(/<[^>]*>/g, "").slice(0, 160) : null;
  if (code || message) return [code, message].filter(Boolean).join(": ");
  return status >= 300 && status < 400 ? "redirect not followed (is the store URL right?)" : "";
}
