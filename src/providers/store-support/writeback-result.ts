import type { WritebackResult } from "../../domain/stores/store-connector.ts";
import type { StoreCallResult } from "./store-http.ts";

/** A store call's result as the write-back outbox reads it (retry after Retry-After; 401 needs the merchant). */
export function asWritebackResult(result: StoreCallResult<unknown>): WritebackResult {
  if (result.ok) return { kind: "done" };
  if (result.retryable) {
    return { kind: "retry", error: result.detail, retryAfterMs: result.retryAfterMs, statusCode: result.status, throttled: result.status === 429 };
  }
  if (result.unauthorized || result.status === 403) return { kind: "unauthorized", error: result.detail };
  return { kind: "failed", error: result.detail };
}

/**
 * The order note standing for an outcome's tag on platforms without order tags (SPEC §13: "where a platform has
 * no tags, the result is an order note"). The merchant's own tag word leads, so a note search finds it.
 */
export function noteForTag(tag: string): string {
  return `${tag} (order confirmation over WhatsApp)`;
}
