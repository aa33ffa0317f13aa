import { checkWebhookUrl, type UrlGuardOptions } from "../../domain/webhooks/url-guard.ts";

/**
 * The store URL a merchant types into the connect form, made canonical: https (plain http only where private URLs
 * are allowed, for tests and development: WooCommerce's basic auth sends the key and secret with every request),
 * no user:password, no query or fragment, and no trailing slash or admin path, so "https://Shop.example/wp-admin/"
 * and "https://shop.example" are the same store. WordPress may live in a folder (https://example.com/shop): the
 * path is kept. The SSRF guard then judges the host (and what it resolves to).
 */
export type StoreUrlProblem = "format" | "https_required" | "credentials" | "private_address";

export type StoreUrlCheck = { ok: true; url: string; shop: string } | { ok: false; problem: StoreUrlProblem };

export const MAX_STORE_URL_LENGTH = 500;

export function parseStoreUrl(raw: string, allowPrivate: boolean): StoreUrlCheck {
  const text = raw.trim();
  if (!text || text.length > MAX_STORE_URL_LENGTH) return { ok: false, problem: "format" };
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    return { ok: false, problem: "format" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return { ok: false, problem: "format" };
  if (!url.hostname) return { ok: false, problem: "format" };
  if (url.username || url.password) return { ok: false, problem: "credentials" };
  if (url.protocol === "http:" && !allowPrivate) return { ok: false, problem: "https_required" };
  let path = url.pathname;
  const admin = path.search(/\/(wp-admin|wp-json|wp-login\.php)(\/|$)/);
  if (admin !== -1) path = path.slice(0, admin);
  path = path.replace(/\/+$/, "");
  const base = `${url.protocol}//${url.host}${path}`;
  return { ok: true, url: base, shop: `${url.host}${path}` };
}

/** parseStoreUrl, then the SSRF guard's save-time check of the host (every request is guarded again on connect). */
export async function checkStoreUrl(raw: string, guard: UrlGuardOptions): Promise<StoreUrlCheck> {
  const parsed = parseStoreUrl(raw, guard.allowPrivate);
  if (!parsed.ok) return parsed;
  const problem = await checkWebhookUrl(parsed.url, guard);
  if (problem === "private_address") return { ok: false, problem };
  if (problem) return { ok: false, problem: problem === "credentials" ? "credentials" : "format" };
  return parsed;
}
