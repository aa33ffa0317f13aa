import { parseRetryAfter } from "../../domain/webhooks/webhook-retry-policy.ts";

/**
 * A minimal client of Shopify's Admin GraphQL API (`<shop origin>/admin/api/<version>/graphql.json`, header
 * `X-Shopify-Access-Token`). It never retries by itself: it classifies the answer (like shopify-api's lib/error.ts)
 * and the durable outbox decides. Written by hand rather than with @shopify/admin-api-client because the shop's
 * origin must be configurable (SHOPIFY_SHOP_ORIGIN points at a fake store in tests) and that client always builds
 * `https://<shop>`.
 */
export interface ShopifyApiOptions {
  shopOrigin: string;
  apiVersion: string;
  timeoutMs: number;
}

export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

export type GraphQLCallResult<T> =
  | { kind: "ok"; data: T; throttle: ThrottleStatus | null; requestedCost: number | null }
  | { kind: "retry"; error: string; statusCode: number | null; retryAfterMs: number | null; throttled: boolean }
  | { kind: "unauthorized"; error: string }
  | { kind: "failed"; error: string; statusCode: number | null };

export function shopUrl(options: Pick<ShopifyApiOptions, "shopOrigin">, shop: string, path: string): string {
  return `${options.shopOrigin.replace("{shop}", shop)}${path}`;
}

export async function shopifyGraphQL<T>(
  options: ShopifyApiOptions,
  shop: string,
  accessToken: string,
  query: string,
  variables: Record<string, unknown>,
): Promise<GraphQLCallResult<T>> {
  const url = shopUrl(options, shop, `/admin/api/${options.apiVersion}/graphql.json`);
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "x-shopify-access-token": accessToken },
      body: JSON.stringify({ query, variables }),
      signal: AbortSignal.timeout(options.timeoutMs),
      redirect: "manual",
    });
  } catch (error) {
    const timedOut = (error as Error).name === "TimeoutError";
    return { kind: "retry", error: timedOut ? "timeout" : `network: ${(error as Error).message}`.slice(0, 300), statusCode: null, retryAfterMs: null, throttled: false };
  }
  const text = await response.text().catch(() => "");
  if (response.status === 401 || response.status === 403) {
    return { kind: "unauthorized", error: `HTTP ${response.status}` };
  }
  if (response.status === 429 || response.status >= 500) {
    return {
      kind: "retry",
      error: `HTTP ${response.status}`,
      statusCode: response.status,
      // Shopify sends Retry-After in seconds (shopify-api reads it as milliseconds, a known bug).
      retryAfterMs: parseRetryAfter(response.headers.get("retry-after")),
      throttled: response.status === 429,
    };
  }
  if (response.status !== 200) return { kind: "failed", error: `HTTP ${response.status}`, statusCode: response.status };
  let body: { data?: T; errors?: { message?: string; extensions?: { code?: string } }[]; extensions?: { cost?: Cost } };
  try {
    body = JSON.parse(text);
  } catch {
    return { kind: "retry", error: "response is not JSON", statusCode: 200, retryAfterMs: null, throttled: false };
  }
  const cost = body.extensions?.cost;
  const throttle = cost?.throttleStatus ?? null;
  if (body.errors?.length) {
    // THROTTLED arrives as HTTP 200: wait until the bucket holds the query's cost again.
    if (body.errors.some((error) => error.extensions?.code === "THROTTLED")) {
      const needed = (cost?.requestedQueryCost ?? 10) - (throttle?.currentlyAvailable ?? 0);
      const waitMs = throttle && throttle.restoreRate > 0 ? Math.ceil((Math.max(needed, 1) / throttle.restoreRate) * 1000) : 1000;
      return { kind: "retry", error: "THROTTLED", statusCode: 200, retryAfterMs: waitMs, throttled: true };
    }
    if (body.errors.some((error) => error.extensions?.code === "INTERNAL_SERVER_ERROR")) {
      return { kind: "retry", error: "INTERNAL_SERVER_ERROR", statusCode: 200, retryAfterMs: null, throttled: false };
    }
    const message = body.errors.map((error) => error.message ?? "error").join("; ").slice(0, 300);
    if (body.errors.some((error) => error.extensions?.code === "ACCESS_DENIED")) return { kind: "unauthorized", error: message };
    return { kind: "failed", error: message, statusCode: 200 };
  }
  if (!body.data) return { kind: "failed", error: "no data", statusCode: 200 };
  return { kind: "ok", data: body.data, throttle, requestedCost: cost?.requestedQueryCost ?? null };
}

interface Cost {
  requestedQueryCost?: number;
  actualQueryCost?: number;
  throttleStatus?: ThrottleStatus;
}
