import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import path from "node:path";
import { signSallaBody } from "../../src/providers/salla/webhook-signature.ts";
import {
  answer,
  phpJson,
  postDelivery,
  send,
  StoreFakeServer,
  storeReply,
  type DeliveryResult,
  type StoreFakeRequest,
} from "./store-fake-http.ts";

/**
 * A fake Salla on a real loopback port: the Merchant API (`/admin/v2`, SALLA_API_URL) and the OAuth server
 * (`/oauth2/token`, SALLA_AUTH_URL), speaking and signing as Salla does.
 * - `install(merchant)` starts a grant chain (what Salla sends in `app.store.authorize`).
 * - `POST /oauth2/token` with `grant_type=refresh_token`: refresh tokens are single use; presenting a used one
 *   revokes the whole chain (every access and refresh token of it), as OAuth's refresh-token rotation does, and
 *   answers 400 `invalid_grant`. Wrong client credentials: 401 `invalid_client`.
 * - `POST /admin/v2/orders/{id}/status` and `/histories` need a live bearer token of the order's merchant (401
 *   otherwise, 404 for another merchant's order), and count against a per-merchant rate limit: past `limit`
 *   requests in a window, 429 with Retry-After (seconds to the window's end) and X-RateLimit-* headers.
 * - `deliver` signs a webhook body with X-Salla-Signature (hex HMAC-SHA256) and POSTs it.
 */
const FIXTURE = path.resolve(import.meta.dirname, "../fixtures/salla/order-created.json");

export interface FakeSallaOptions {
  clientId?: string;
  clientSecret?: string;
  webhookSecret?: string;
  /** Access token lifetime (Salla's is 14 days). */
  accessTokenTtlSeconds?: number;
  /** Merchant API requests allowed per merchant per window (Salla's default plan: 120 per minute). */
  rateLimit?: { limit: number; windowSeconds: number };
}

interface Chain {
  merchantId: string;
  refreshToken: string;
  usedRefreshTokens: Set<string>;
  accessTokens: Map<string, number>;
  revoked: boolean;
}

export interface InstallTokens {
  access_token: string;
  refresh_token: string;
  expires: number;
  scope: string;
  token_type: "bearer";
}

export class FakeSalla extends StoreFakeServer {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly webhookSecret: string;
  /** Status changes and history notes that succeeded, per order id. */
  readonly statusUpdates: { merchantId: string; orderId: string; slug: string | null; note: string | null }[] = [];
  readonly notes: { merchantId: string; orderId: string; note: string }[] = [];
  /** Order id → merchant id: the orders that exist (every order delivered or registered). */
  readonly orders = new Map<string, string>();
  /** The token endpoint answers after this long (so concurrent refreshes overlap in tests). */
  tokenDelayMs = 0;
  private readonly chains: Chain[] = [];
  private readonly windows = new Map<string, { start: number; count: number }>();
  private nextOrderId = 2_116_149_800;

  private constructor(private readonly options: FakeSallaOptions) {
    super();
    this.clientId = options.clientId ?? `client-${randomBytes(6).toString("hex")}`;
    this.clientSecret = options.clientSecret ?? randomBytes(16).toString("hex");
    this.webhookSecret = options.webhookSecret ?? randomBytes(16).toString("hex");
  }

  static async start(options: FakeSallaOptions = {}): Promise<FakeSalla> {
    const fake = new FakeSalla(options);
    await fake.listen();
    return fake;
  }

  get url(): string {
    return this.origin;
  }

  /** SALLA_API_URL */
  get apiUrl(): string {
    return `${this.url}/admin/v2`;
  }

  /** SALLA_AUTH_URL */
  get authUrl(): string {
    return this.url;
  }

  setRateLimit(limit: { limit: number; windowSeconds: number } | undefined): void {
    this.options.rateLimit = limit;
    this.windows.clear();
  }

  /** A new grant chain for `merchantId`: the `data` of the `app.store.authorize` Salla sends on install. */
  install(merchantId: string | number, options: { expiresInSeconds?: number } = {}): InstallTokens {
    const chain: Chain = { merchantId: String(merchantId), refreshToken: token("rt"), usedRefreshTokens: new Set(), accessTokens: new Map(), revoked: false };
    this.chains.push(chain);
    const ttl = options.expiresInSeconds ?? this.options.accessTokenTtlSeconds ?? 14 * 24 * 3600;
    const access = token("at");
    chain.accessTokens.set(access, Date.now() + ttl * 1000);
    return { access_token: access, refresh_token: chain.refreshToken, expires: Math.floor(Date.now() / 1000) + ttl, scope: "orders.read_write offline_access", token_type: "bearer" };
  }

  /** Makes every access token of `merchantId` expired now (the next API call answers 401). */
  expireAccessTokens(merchantId: string | number): void {
    for (const chain of this.chains) if (chain.merchantId === String(merchantId)) for (const key of chain.accessTokens.keys()) chain.accessTokens.set(key, 0);
  }

  /** Whether the merchant's newest chain was revoked (a reused refresh token). */
  isRevoked(merchantId: string | number): boolean {
    const chains = this.chains.filter((chain) => chain.merchantId === String(merchantId));
    return chains.length > 0 && chains[chains.length - 1].revoked;
  }

  get refreshRequests(): StoreFakeRequest[] {
    return this.requests.filter((request) => request.path.startsWith("/oauth2/token"));
  }

  /** A realistic COD `order.created` data (the recorded fixture) with a fresh id, `overrides` merged on top. */
  orderData(overrides: Record<string, unknown> = {}): Record<string, any> {
    const data = JSON.parse(readFileSync(FIXTURE, "utf8")).data;
    return { ...data, id: this.nextOrderId++, reference_id: Math.floor(Math.random() * 1e8), ...overrides };
  }

  /** A webhook envelope. */
  event(event: string, merchantId: string | number, data: unknown): Record<string, unknown> {
    return { event, merchant: Number(merchantId), created_at: new Date().toUTCString(), data };
  }

  signed(body: Record<string, unknown>, secret = this.webhookSecret): { body: string; headers: Record<string, string> } {
    const text = phpJson(body);
    return {
      body: text,
      headers: {
        "content-type": "application/json",
        "user-agent": "Salla-Webhook/2.0",
        "x-salla-security-strategy": "Signature",
        "x-salla-signature": signSallaBody(text, secret),
      },
    };
  }

  /** Signs and POSTs `body` to `url`; an order.created's order is remembered as the merchant's. */
  async deliver(url: string, body: Record<string, unknown>): Promise<DeliveryResult> {
    if (body.event === "order.created") this.orders.set(String((body.data as { id: unknown }).id), String(body.merchant));
    const signed = this.signed(body);
    return postDelivery(url, signed.body, signed.headers);
  }

  override reset(): void {
    super.reset();
    this.windows.clear();
  }

  /** Programmed answers (`next`) go to Merchant API calls, before auth and rate limits. */
  protected async handle(recorded: StoreFakeRequest, response: ServerResponse): Promise<void> {
    const url = new URL(recorded.path, this.url);
    if (url.pathname === "/oauth2/token" && recorded.method === "POST") {
      if (this.tokenDelayMs) await new Promise((resolve) => setTimeout(resolve, this.tokenDelayMs));
      return this.token(recorded, response);
    }
    const match = /^\/admin\/v2\/orders\/(\d+)\/(status|histories)$/.exec(url.pathname);
    if (!match || recorded.method !== "POST") return this.error(response, recorded, 404, "NotFound", "The route could not be found.");
    const programmed = this.queue.shift();
    if (programmed) return answer(response, programmed, recorded);
    const chain = this.chainOfAccessToken(String(recorded.headers.authorization ?? "").replace(/^Bearer /, ""));
    if (!chain) return this.error(response, recorded, 401, "Unauthorized", "The access token is invalid or expired.");
    const limited = this.rateLimited(chain.merchantId);
    if (limited) {
      recorded.status = 429;
      return send(response, 429, { status: 429, success: false, error: { code: "TooManyRequests", message: "Too Many Attempts." } }, limited);
    }
    const [, orderId, action] = match;
    if (this.orders.get(orderId) !== chain.merchantId) return this.error(response, recorded, 404, "NotFound", "The order was not found.");
    const body = recorded.body ?? {};
    if (action === "status") {
      if (typeof body.slug !== "string" && typeof body.status_id !== "number") {
        return this.error(response, recorded, 422, "error", "The slug field is required when status id is not present.");
      }
      this.statusUpdates.push({ merchantId: chain.merchantId, orderId, slug: body.slug ?? null, note: body.note ?? null });
      recorded.status = 201;
      return send(response, 201, { status: 201, success: true, data: { message: "The entity has been updated successfully", code: 201 } });
    }
    if (typeof body.note !== "string" || !body.note) return this.error(response, recorded, 422, "error", "The note field is required.");
    this.notes.push({ merchantId: chain.merchantId, orderId, note: body.note });
    recorded.status = 200;
    return send(response, 200, { status: 200, success: true, data: { id: Math.floor(Math.random() * 1e9), note: body.note } });
  }

  private token(recorded: StoreFakeRequest, response: ServerResponse): void {
    const form = recorded.body ?? {};
    const oauthError = (status: number, error: string, description: string) => {
      recorded.status = status;
      send(response, status, { error, error_description: description });
    };
    if (form.client_id !== this.clientId || form.client_secret !== this.clientSecret) {
      return oauthError(401, "invalid_client", "Client authentication failed.");
    }
    if (form.grant_type !== "refresh_token" || typeof form.refresh_token !== "string") {
      return oauthError(400, "unsupported_grant_type", "The authorization grant type is not supported.");
    }
    const presented = form.refresh_token;
    const reused = this.chains.find((chain) => chain.usedRefreshTokens.has(presented));
    if (reused) {
      // A refresh token presented twice: someone else may hold it. The whole chain dies.
      reused.revoked = true;
      return oauthError(400, "invalid_grant", "The refresh token is invalid.");
    }
    const chain = this.chains.find((candidate) => candidate.refreshToken === presented && !candidate.revoked);
    if (!chain) return oauthError(400, "invalid_grant", "The refresh token is invalid.");
    chain.usedRefreshTokens.add(presented);
    chain.refreshToken = token("rt");
    const ttl = this.options.accessTokenTtlSeconds ?? 14 * 24 * 3600;
    const access = token("at");
    chain.accessTokens.set(access, Date.now() + ttl * 1000);
    recorded.status = 200;
    send(response, 200, { access_token: access, token_type: "bearer", expires_in: ttl, refresh_token: chain.refreshToken, scope: "orders.read_write offline_access" });
  }

  private chainOfAccessToken(accessToken: string): Chain | null {
    for (const chain of this.chains) {
      const expiry = chain.accessTokens.get(accessToken);
      if (expiry !== undefined) return !chain.revoked && expiry > Date.now() ? chain : null;
    }
    return null;
  }

  /** Headers of a 429 when `merchantId` is over its limit, else null (and the request is counted). */
  private rateLimited(merchantId: string): Record<string, string> | null {
    const limit = this.options.rateLimit;
    if (!limit) return null;
    const now = Date.now();
    let window = this.windows.get(merchantId);
    if (!window || now - window.start >= limit.windowSeconds * 1000) {
      window = { start: now, count: 0 };
      this.windows.set(merchantId, window);
    }
    const reset = Math.ceil((window.start + limit.windowSeconds * 1000 - now) / 1000);
    if (window.count >= limit.limit) {
      return { "retry-after": String(Math.max(1, reset)), "x-ratelimit-limit": String(limit.limit), "x-ratelimit-remaining": "0" };
    }
    window.count++;
    return null;
  }

  private error(response: ServerResponse, recorded: StoreFakeRequest, status: number, code: string, message: string): void {
    recorded.status = status;
    send(response, status, { status, success: false, error: { code, message } });
  }
}

const token = (prefix: string) => `${prefix}.${randomBytes(24).toString("base64url")}`;

export { storeReply };
