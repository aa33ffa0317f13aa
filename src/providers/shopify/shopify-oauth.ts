import type { StoreCredentials } from "../../domain/stores/store-connector.ts";
import { shopUrl } from "./shopify-admin-client.ts";

/**
 * Shopify's authorization code grant with expiring offline tokens (SPEC §13): the authorize URL, the code
 * exchange (`expiring=1`: an access token for an hour and a refresh token) and the refresh grant.
 */
export interface ShopifyAppOptions {
  clientId: string;
  clientSecret: string;
  shopOrigin: string;
  scopes: string;
  timeoutMs: number;
}

export function authorizeUrl(options: ShopifyAppOptions, shop: string, redirectUri: string, state: string): string {
  const url = new URL(shopUrl(options, shop, "/admin/oauth/authorize"));
  url.searchParams.set("client_id", options.clientId);
  url.searchParams.set("scope", options.scopes);
  url.searchParams.set("redirect_uri", redirectUri);
  url.searchParams.set("state", state);
  return url.toString();
}

export class ShopifyTokenError extends Error {
  constructor(
    message: string,
    /** True when asking again later may work (timeouts, 5xx, 429). */
    readonly retriable: boolean,
  ) {
    super(message);
  }
}

interface TokenResponse {
  access_token?: string;
  scope?: string;
  expires_in?: number;
  refresh_token?: string;
  refresh_token_expires_in?: number;
}

async function tokenRequest(options: ShopifyAppOptions, shop: string, body: Record<string, string>, now: Date): Promise<StoreCredentials> {
  let response: Response;
  try {
    response = await fetch(shopUrl(options, shop, "/admin/oauth/access_token"), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ client_id: options.clientId, client_secret: options.clientSecret, ...body }),
      signal: AbortSignal.timeout(options.timeoutMs),
      redirect: "manual",
    });
  } catch (error) {
    throw new ShopifyTokenError(`token endpoint unreachable: ${(error as Error).name}`, true);
  }
  const text = await response.text().catch(() => "");
  if (response.status !== 200) {
    throw new ShopifyTokenError(`token endpoint answered ${response.status}`, response.status === 429 || response.status >= 500);
  }
  let token: TokenResponse;
  try {
    token = JSON.parse(text) as TokenResponse;
  } catch {
    throw new ShopifyTokenError("token endpoint answered something other than JSON", true);
  }
  if (typeof token.access_token !== "string" || !token.access_token) throw new ShopifyTokenError("no access_token in the answer", false);
  return {
    accessToken: token.access_token,
    refreshToken: typeof token.refresh_token === "string" ? token.refresh_token : null,
    accessTokenExpiresAt:
      typeof token.expires_in === "number" && token.expires_in > 0 ? new Date(now.getTime() + token.expires_in * 1000).toISOString() : null,
    scope: token.scope ?? null,
  };
}

/** The authorization code → an expiring offline token and its refresh token. */
export function exchangeCode(options: ShopifyAppOptions, shop: string, code: string, now = new Date()): Promise<StoreCredentials> {
  return tokenRequest(options, shop, { code, expiring: "1" }, now);
}

/** A new access token (and refresh token) from the refresh token. */
export function refreshToken(options: ShopifyAppOptions, shop: string, refresh: string, now = new Date()): Promise<StoreCredentials> {
  return tokenRequest(options, shop, { grant_type: "refresh_token", refresh_token: refresh }, now);
}
