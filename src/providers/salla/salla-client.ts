import {
  failureOfError,
  failureOfStatus,
  jsonOf,
  type StoreCallResult,
  type StoreResponse,
  type StoreTransport,
} from "../store-support/store-http.ts";
import type { SallaTokens } from "./events.ts";
import { isStorableInstant } from "../../domain/storable.ts";

/**
 * Salla's Merchant API (SALLA_API_URL, default https://api.salla.dev/admin/v2) and OAuth token endpoint
 * (SALLA_AUTH_URL, default https://accounts.salla.sa). Stateless: the access token comes with each call. Every
 * answer becomes a StoreCallResult: 429 (Salla's rate limit, with Retry-After) and 5xx are retryable, 401 is
 * `unauthorized` (the access token expired or was revoked: refresh, then try again), other 4xx are permanent.
 * Salla publishes no Node client for its Merchant API; these are three plain JSON calls.
 */
export interface SallaApiSettings {
  apiUrl: string;
  authUrl: string;
  clientId: string;
  clientSecret: string;
}

/** Salla's predefined order status slugs used by the write-back. */
export type SallaStatusSlug = "canceled";

export class SallaClient {
  private readonly apiUrl: string;
  private readonly tokenUrl: string;

  constructor(
    private readonly settings: SallaApiSettings,
    private readonly transport: StoreTransport,
  ) {
    this.apiUrl = settings.apiUrl.replace(/\/+$/, "");
    this.tokenUrl = `${settings.authUrl.replace(/\/+$/, "")}/oauth2/token`;
  }

  /**
   * Exchanges a refresh token for new tokens. Salla's refresh tokens are single use: the old one is dead once
   * this succeeds, and presenting it again revokes the whole chain. So the caller must hold the store's refresh
   * lock around this call and the storing of its result. `unauthorized` (400/401 `invalid_grant`) means the
   * chain is gone: the merchant has to reinstall the app.
   */
  async refreshTokens(refreshToken: string, now: Date = new Date()): Promise<StoreCallResult<SallaTokens>> {
    let response: StoreResponse;
    try {
      response = await this.transport({
        method: "POST",
        url: this.tokenUrl,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: refreshToken,
          client_id: this.settings.clientId,
          client_secret: this.settings.clientSecret,
        }).toString(),
      });
    } catch (error) {
      return failureOfError(error);
    }
    const json = jsonOf(response.body) as Record<string, unknown> | null;
    if (response.status >= 200 && response.status < 300) {
      const tokens = tokensOf(json, now);
      if (tokens) return { ok: true, value: tokens };
      return { ok: false, retryable: false, unauthorized: false, status: response.status, retryAfterMs: null, detail: "token answer without tokens" };
    }
    const failure = failureOfStatus(response, describeOAuthError(json));
    // RFC 6749 §5.2: a refused grant is 400 invalid_grant; treat it like a 401 (the chain is gone).
    return response.status === 400 && json?.error === "invalid_grant" ? { ...failure, unauthorized: true } : failure;
  }

  /** `POST /orders/{id}/status` with a predefined slug (and an optional note shown in the order's history). */
  async updateOrderStatus(accessToken: string, orderId: string, slug: SallaStatusSlug, note?: string): Promise<StoreCallResult<void>> {
    return this.call(accessToken, `orders/${encodeURIComponent(orderId)}/status`, note ? { slug, note } : { slug });
  }

  /** `POST /orders/{id}/histories` `{ note }`: a note in the order's history, for the merchant's staff. */
  async addOrderNote(accessToken: string, orderId: string, note: string): Promise<StoreCallResult<void>> {
    return this.call(accessToken, `orders/${encodeURIComponent(orderId)}/histories`, { note });
  }

  private async call(accessToken: string, path: string, body: unknown): Promise<StoreCallResult<void>> {
    let response: StoreResponse;
    try {
      response = await this.transport({
        method: "POST",
        url: `${this.apiUrl}/${path}`,
        headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    } catch (error) {
      return failureOfError(error);
    }
    if (response.status >= 200 && response.status < 300) return { ok: true, value: undefined };
    return failureOfStatus(response, describeSallaError(jsonOf(response.body)));
  }
}

function tokensOf(json: Record<string, unknown> | null, now: Date): SallaTokens | null {
  const access = json?.access_token;
  const refresh = json?.refresh_token;
  if (typeof access !== "string" || !access || typeof refresh !== "string" || !refresh) return null;
  // OAuth's `expires_in` (seconds from now); Salla's webhooks use `expires` (unix seconds): either is accepted.
  const expiresIn = typeof json?.expires_in === "number" ? json.expires_in : null;
  const expires = typeof json?.expires === "number" ? json.expires : null;
  const expiresAt = expiresIn !== null ? new Date(now.getTime() + expiresIn * 1000) : expires !== null ? new Date(expires * 1000) : null;
  // An expiry the database cannot store (or no date at all) is no usable answer.
  if (!expiresAt || !isStorableInstant(expiresAt)) return null;
  return { accessToken: access, refreshToken: refresh, expiresAt, scope: typeof json?.scope === "string" ? json.scope : null };
}

/** Salla's error body `{ status, success: false, error: { code, message } }` as a short line. */
export function describeSallaError(body: unknown): string {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const code = typeof error?.code === "string" || typeof error?.code === "number" ? String(error.code).slice(0, 80) : null;
  const message = typeof error?.message === "string" ? error.message.slice(0, 160) : null;
  return [code, message].filter(Boolean).join(": ");
}

function describeOAuthError(body: Record<string, unknown> | null): string {
  const code = typeof body?.error === "string" ? body.error.slice(0, 80) : null;
  const description = typeof body?.error_description === "string" ? body.error_description.slice(0, 160) : null;
  return [code, description].filter(Boolean).join(": ");
}
