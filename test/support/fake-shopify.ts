import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { queryHmac, webhookHmac } from "../../src/providers/shopify/shopify-signatures.ts";

/**
 * A fake Shopify on a real loopback port, speaking Shopify's formats, with every shop under `/<shop>` (so
 * SHOPIFY_SHOP_ORIGIN=http://127.0.0.1:<port>/{shop}):
 *
 * - OAuth: `/admin/oauth/authorize` approves at once and redirects back with `code`, `hmac`, `shop`, `state`,
 *   `timestamp`, signed like Shopify; `/admin/oauth/access_token` exchanges codes (single use) for expiring
 *   offline tokens and refresh tokens (rotated on each refresh) and counts refreshes;
 * - the Admin GraphQL endpoint `/admin/api/<version>/graphql.json` with the operations we use, recording each
 *   call, with a cost-based leaky bucket (THROTTLED when empty) and programmable failures (userErrors,
 *   THROTTLED, HTTP statuses with Retry-After);
 * - a webhook sender that signs bodies like Shopify (`X-Shopify-Hmac-Sha256` over the raw bytes).
 */
export interface FakeShopifyOptions {
  clientId: string;
  clientSecret: string;
  /** Access token lifetime (expires_in) in seconds. */
  tokenTtlSeconds?: number;
  /** Leaky bucket: Shopify's Standard plan restores 100 points/s into a 2,000-point bucket. */
  bucket?: { maximumAvailable: number; restoreRate: number };
  /** Fulfillment orders exist only after this many FulfillmentOrders queries of the order (0: at once). */
  fulfillmentOrdersAfterQueries?: number;
}

export interface RecordedCall {
  shop: string;
  operationName: string;
  variables: Record<string, any>;
  token: string;
  at: number;
}

export type ProgrammedFailure =
  | { kind: "throttled" }
  | { kind: "status"; status: number; retryAfter?: string }
  | { kind: "userErrors"; message: string }
  /** Applies the operation at once but answers only after `ms` (a caller killed meanwhile never hears back). */
  | { kind: "delay"; ms: number };

interface ShopOrder {
  tags: string[];
  cancelled: { reason: string } | null;
  fulfillmentOrders: { id: string; status: string }[];
  queries: number;
}

interface ShopState {
  codes: Set<string>;
  accessTokens: Map<string, number>;
  refreshTokens: Set<string>;
  refreshes: number;
  orders: Map<string, ShopOrder>;
  subscriptions: { topic: string; uri: string }[];
  bucket: { available: number; at: number };
}

const COSTS: Record<string, number> = {
  TagsAdd: 10,
  OrderCancel: 10,
  FulfillmentOrders: 4,
  FulfillmentOrderHold: 10,
  FulfillmentOrderReleaseHold: 10,
  WebhookSubscriptionCreate: 10,
};

export class FakeShopify {
  readonly calls: RecordedCall[] = [];
  readonly tokenRequests: { shop: string; body: Record<string, string> }[] = [];
  readonly failures: ProgrammedFailure[] = [];
  private readonly shops = new Map<string, ShopState>();
  private readonly server = createServer((request, response) => {
    this.handle(request, response).catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });
  origin = "";
  /** Answer the token endpoint with this status instead (e.g. 503), once per entry. */
  readonly tokenFailures: number[] = [];

  constructor(readonly options: FakeShopifyOptions) {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** SHOPIFY_SHOP_ORIGIN for the service. */
  get shopOrigin(): string {
    return `${this.origin}/{shop}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  shop(name: string): ShopState {
    let state = this.shops.get(name);
    if (!state) {
      const bucket = this.options.bucket ?? { maximumAvailable: 2000, restoreRate: 100 };
      state = { codes: new Set(), accessTokens: new Map(), refreshTokens: new Set(), refreshes: 0, orders: new Map(), subscriptions: [], bucket: { available: bucket.maximumAvailable, at: Date.now() } };
      this.shops.set(name, state);
    }
    return state;
  }

  /** The store's order (created when a webhook for it is sent). */
  order(shop: string, id: string): ShopOrder {
    const state = this.shop(shop);
    let order = state.orders.get(id);
    if (!order) {
      order = { tags: [], cancelled: null, fulfillmentOrders: [], queries: 0 };
      state.orders.set(id, order);
    }
    return order;
  }

  callsOf(operationName: string, shop?: string): RecordedCall[] {
    return this.calls.filter((call) => call.operationName === operationName && (!shop || call.shop === shop));
  }

  /** Invalidates every access token of the shop (as if it expired early). */
  expireTokens(shop: string): void {
    this.shop(shop).accessTokens.clear();
  }

  // --- webhooks ------------------------------------------------------------------------------------------------

  /** Posts a webhook signed like Shopify; `secret` overrides the signing key (forgeries). */
  async sendWebhook(
    url: string,
    shop: string,
    topic: string,
    body: string,
    options: { webhookId?: string; secret?: string; hmac?: string | null } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "x-shopify-topic": topic,
      "x-shopify-shop-domain": shop,
      "x-shopify-webhook-id": options.webhookId ?? `b54557e4-${randomBytes(8).toString("hex")}`,
      "x-shopify-event-id": randomBytes(8).toString("hex"),
      "x-shopify-api-version": "2026-10",
      "x-shopify-triggered-at": new Date().toISOString(),
    };
    const hmac = options.hmac === undefined ? webhookHmac(body, options.secret ?? this.options.clientSecret) : options.hmac;
    if (hmac !== null) headers["x-shopify-hmac-sha256"] = hmac;
    return fetch(url, { method: "POST", headers, body });
  }

  /** Sends `orders/create` for an order built by `shopifyOrder()`, and registers the order in the store. */
  async sendOrder(url: string, shop: string, order: ShopifyOrderFixture, options: { webhookId?: string } = {}): Promise<Response> {
    const state = this.order(shop, order.id);
    if ((this.options.fulfillmentOrdersAfterQueries ?? 0) === 0 && state.fulfillmentOrders.length === 0) {
      state.fulfillmentOrders.push({ id: `gid://shopify/FulfillmentOrder/${order.id.slice(-6)}1`, status: "OPEN" });
    }
    return this.sendWebhook(url, shop, "orders/create", order.json, options);
  }

  // --- HTTP ------------------------------------------------------------------------------------------------

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", this.origin);
    const [, shop, ...rest] = url.pathname.split("/");
    const path = `/${rest.join("/")}`;
    const body = await readBody(request);
    if (request.method === "GET" && path === "/admin/oauth/authorize") return this.authorize(shop, url, response);
    if (request.method === "POST" && path === "/admin/oauth/access_token") return this.token(shop, body, response);
    if (request.method === "POST" && /^\/admin\/api\/[^/]+\/graphql\.json$/.test(path)) return this.graphql(shop, request, body, response);
    response.writeHead(404).end("not found");
  }

  private authorize(shop: string, url: URL, response: ServerResponse): void {
    if (url.searchParams.get("client_id") !== this.options.clientId) {
      response.writeHead(400).end("unknown client_id");
      return;
    }
    const code = randomBytes(16).toString("hex");
    this.shop(shop).codes.add(code);
    const back = new URL(url.searchParams.get("redirect_uri") ?? "");
    const params = new URLSearchParams({
      code,
      host: Buffer.from(`admin.shopify.com/store/${shop.split(".")[0]}`).toString("base64url"),
      shop,
      state: url.searchParams.get("state") ?? "",
      timestamp: String(Math.floor(Date.now() / 1000)),
    });
    params.set("hmac", queryHmac(params, this.options.clientSecret));
    back.search = params.toString();
    response.writeHead(302, { location: back.toString() }).end();
  }

  /** A callback URL as Shopify would redirect to, for tests that drive the callback by hand. */
  signedCallback(callbackUrl: string, params: Record<string, string>, secret = this.options.clientSecret): string {
    const search = new URLSearchParams({ timestamp: String(Math.floor(Date.now() / 1000)), ...params });
    search.set("hmac", queryHmac(search, secret));
    return `${callbackUrl}?${search.toString()}`;
  }

  private token(shop: string, raw: string, response: ServerResponse): void {
    const status = this.tokenFailures.shift();
    if (status) {
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ error: "unavailable" }));
      return;
    }
    const body = JSON.parse(raw || "{}") as Record<string, string>;
    this.tokenRequests.push({ shop, body });
    const state = this.shop(shop);
    if (body.client_id !== this.options.clientId || body.client_secret !== this.options.clientSecret) {
      response.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: "invalid_client" }));
      return;
    }
    if (body.grant_type === "refresh_token") {
      // Single use: a refresh token is spent by the refresh that uses it.
      if (!body.refresh_token || !state.refreshTokens.delete(body.refresh_token)) {
        response.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: "invalid_grant" }));
        return;
      }
      state.refreshes++;
    } else if (!body.code || !state.codes.delete(body.code)) {
      response.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: "invalid_request", error_description: "code was already used or is invalid" }));
      return;
    }
    const ttl = this.options.tokenTtlSeconds ?? 3600;
    const accessToken = `shpat_${randomBytes(16).toString("hex")}`;
    state.accessTokens.set(accessToken, Date.now() + ttl * 1000);
    const refreshToken = `shprt_${randomBytes(16).toString("hex")}`;
    state.refreshTokens.add(refreshToken);
    response.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        access_token: accessToken,
        scope: "read_orders,write_orders",
        expires_in: ttl,
        refresh_token: refreshToken,
        refresh_token_expires_in: 7_776_000,
      }),
    );
  }

  private graphql(shop: string, request: IncomingMessage, raw: string, response: ServerResponse): void {
    const state = this.shop(shop);
    const token = String(request.headers["x-shopify-access-token"] ?? "");
    const expiry = state.accessTokens.get(token);
    if (!expiry || expiry < Date.now()) {
      response.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ errors: "[API] Invalid API key or access token (unrecognized login or wrong password)" }));
      return;
    }
    const { query, variables = {} } = JSON.parse(raw) as { query: string; variables?: Record<string, any> };
    const operationName = /^(?:query|mutation)\s+(\w+)/.exec(query.trim())?.[1] ?? "anonymous";
    const failure = this.failures.shift();
    if (failure?.kind === "status") {
      this.calls.push({ shop, operationName, variables, token, at: Date.now() });
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (failure.retryAfter) headers["retry-after"] = failure.retryAfter;
      response.writeHead(failure.status, headers).end(JSON.stringify({ errors: `HTTP ${failure.status}` }));
      return;
    }
    const cost = COSTS[operationName] ?? 1;
    const bucket = this.refill(state);
    if (failure?.kind === "throttled" || bucket.available < cost) {
      this.calls.push({ shop, operationName: `${operationName}:THROTTLED`, variables, token, at: Date.now() });
      return json(response, {
        errors: [{ message: "Throttled", extensions: { code: "THROTTLED", documentation: "https://shopify.dev/api/usage/rate-limits" } }],
        extensions: { cost: this.cost(state, cost, 0) },
      });
    }
    bucket.available -= cost;
    this.calls.push({ shop, operationName, variables, token, at: Date.now() });
    const data = this.execute(shop, operationName, variables, failure?.kind === "userErrors" ? failure.message : null);
    const answer = () => json(response, { data, extensions: { cost: this.cost(state, cost, cost) } });
    if (failure?.kind === "delay") setTimeout(answer, failure.ms).unref();
    else answer();
  }

  private refill(state: ShopState) {
    const limits = this.options.bucket ?? { maximumAvailable: 2000, restoreRate: 100 };
    const now = Date.now();
    state.bucket.available = Math.min(limits.maximumAvailable, state.bucket.available + ((now - state.bucket.at) / 1000) * limits.restoreRate);
    state.bucket.at = now;
    return state.bucket;
  }

  private cost(state: ShopState, requested: number, actual: number) {
    const limits = this.options.bucket ?? { maximumAvailable: 2000, restoreRate: 100 };
    return {
      requestedQueryCost: requested,
      actualQueryCost: actual,
      throttleStatus: { maximumAvailable: limits.maximumAvailable, currentlyAvailable: Math.floor(state.bucket.available), restoreRate: limits.restoreRate },
    };
  }

  private execute(shop: string, operation: string, variables: Record<string, any>, userError: string | null): unknown {
    const errors = userError ? [{ field: null, message: userError }] : [];
    const orderId = (gid: string) => /\/Order\/(\d+)$/.exec(gid)?.[1] ?? "";
    const state = this.shop(shop);
    switch (operation) {
      case "TagsAdd": {
        const order = state.orders.get(orderId(variables.id));
        if (!order) return { tagsAdd: { node: null, userErrors: [{ field: ["id"], message: "Order does not exist" }] } };
        if (!errors.length) for (const tag of variables.tags as string[]) if (!order.tags.includes(tag)) order.tags.push(tag);
        return { tagsAdd: { node: { id: variables.id }, userErrors: errors } };
      }
      case "OrderCancel": {
        const order = state.orders.get(orderId(variables.orderId));
        if (!order) return { orderCancel: { job: null, orderCancelUserErrors: [{ field: ["orderId"], message: "Order does not exist", code: "NOT_FOUND" }] } };
        if (errors.length) return { orderCancel: { job: null, orderCancelUserErrors: errors.map((error) => ({ ...error, code: "INVALID" })) } };
        if (order.cancelled) return { orderCancel: { job: null, orderCancelUserErrors: [{ field: ["orderId"], message: "Order has already been cancelled", code: "ORDER_ALREADY_CANCELLED" }] } };
        order.cancelled = { reason: variables.reason };
        return { orderCancel: { job: { id: `gid://shopify/Job/${randomBytes(4).toString("hex")}` }, orderCancelUserErrors: [] } };
      }
      case "FulfillmentOrders": {
        const id = orderId(variables.id);
        const order = state.orders.get(id);
        if (!order) return { order: null };
        order.queries++;
        const after = this.options.fulfillmentOrdersAfterQueries ?? 0;
        if (order.fulfillmentOrders.length === 0 && order.queries > after) {
          order.fulfillmentOrders.push({ id: `gid://shopify/FulfillmentOrder/${id.slice(-6)}1`, status: "OPEN" });
        }
        return { order: { id: variables.id, cancelledAt: order.cancelled ? new Date().toISOString() : null, fulfillmentOrders: { nodes: order.fulfillmentOrders } } };
      }
      case "FulfillmentOrderHold":
      case "FulfillmentOrderReleaseHold": {
        const hold = operation === "FulfillmentOrderHold";
        const key = hold ? "fulfillmentOrderHold" : "fulfillmentOrderReleaseHold";
        for (const order of state.orders.values()) {
          const node = order.fulfillmentOrders.find((candidate) => candidate.id === variables.id);
          if (!node) continue;
          if (errors.length) return { [key]: { fulfillmentOrder: null, userErrors: errors } };
          node.status = hold ? "ON_HOLD" : "OPEN";
          return { [key]: { fulfillmentOrder: { ...node }, userErrors: [] } };
        }
        return { [key]: { fulfillmentOrder: null, userErrors: [{ field: ["id"], message: "Fulfillment order does not exist." }] } };
      }
      case "WebhookSubscriptionCreate": {
        const uri = variables.webhookSubscription?.uri ?? variables.webhookSubscription?.callbackUrl;
        if (state.subscriptions.some((sub) => sub.topic === variables.topic && sub.uri === uri)) {
          return { webhookSubscriptionCreate: { webhookSubscription: null, userErrors: [{ field: ["webhookSubscription", "callbackUrl"], message: "Address for this topic has already been taken" }] } };
        }
        state.subscriptions.push({ topic: variables.topic, uri });
        return { webhookSubscriptionCreate: { webhookSubscription: { id: `gid://shopify/WebhookSubscription/${state.subscriptions.length}` }, userErrors: errors } };
      }
      default:
        return null;
    }
  }
}

function json(response: ServerResponse, body: unknown): void {
  if (response.destroyed) return;
  response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

export interface ShopifyOrderFixture {
  id: string;
  /** The body as Shopify sends it: `id` as a bare JSON number (beyond 2^53). */
  json: string;
}

let nextOrder = 820982911946154508n;

/**
 * An `orders/create` payload shaped like Shopify's (trimmed to the fields a COD app reads), with a fresh id
 * beyond 2^53 written as a JSON number. `overrides` replace top-level fields.
 */
export function shopifyOrder(overrides: Record<string, unknown> = {}, id: string = String(nextOrder++)): ShopifyOrderFixture {
  const order: Record<string, unknown> = {
    id: "__ID__",
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    name: `#${1000 + Number(BigInt(id) % 1000n)}`,
    email: "layla@example.com",
    created_at: "2026-11-25T10:00:00+03:00",
    currency: "SAR",
    presentment_currency: "SAR",
    customer_locale: "ar-SA",
    financial_status: "pending",
    gateway: "Cash on Delivery (COD)",
    payment_gateway_names: ["Cash on Delivery (COD)"],
    current_subtotal_price: "398.00",
    current_total_price: "423.00",
    current_total_tax: "51.91",
    current_total_discounts: "20.00",
    current_total_price_set: { shop_money: { amount: "423.00", currency_code: "SAR" }, presentment_money: { amount: "423.00", currency_code: "SAR" } },
    total_shipping_price_set: { shop_money: { amount: "25.00", currency_code: "SAR" }, presentment_money: { amount: "25.00", currency_code: "SAR" } },
    line_items: [
      { id: 866550311766439020, title: "Abaya", variant_title: "Black / M", quantity: 2, price: "199.00", sku: "AB-1" },
    ],
    shipping_address: {
      first_name: "Layla",
      last_name: "Hassan",
      name: "Layla Hassan",
      phone: "050 123 4567",
      address1: "King Fahd Rd 12",
      address2: null,
      city: "Riyadh",
      province: "Riyadh",
      zip: "12211",
      country: "Saudi Arabia",
      country_code: "SA",
    },
    billing_address: null,
    customer: { id: 115310627314723950, first_name: "Layla", last_name: "Hassan", phone: null, email: "layla@example.com" },
    ...overrides,
  };
  return { id, json: JSON.stringify(order).replace('"__ID__"', id) };
}
