import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Shopify's signatures, checked in constant time (shopify-api's lib/utils/hmac-validator.ts and
 * lib/webhooks/validate.ts do the same). Checked against Shopify's documented example in
 * test/unit/shopify-signatures.spec.ts.
 */

/** A shop's permanent domain: `<name>.myshopify.com`, the only form Shopify sends as `shop` (shop-validator.ts). */
const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]{0,59}\.myshopify\.com$/;

/** The shop domain, lower-cased, or null when it is not a valid `*.myshopify.com` name. */
export function validShopDomain(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const shop = value.trim().toLowerCase();
  return SHOP_DOMAIN.test(shop) ? shop : null;
}

/** `X-Shopify-Hmac-Sha256` is a base64 SHA-256 (44 characters): anything else is refused before the body is read. */
export function isWellFormedWebhookHmac(header: string | undefined): header is string {
  return typeof header === "string" && /^[A-Za-z0-9+/]{43}=$/.test(header.trim());
}

/** The webhook's HMAC: base64 HMAC-SHA256 of the raw body, keyed with the app's client secret. */
export function verifyWebhookHmac(raw: Buffer, header: string | undefined, secret: string): boolean {
  if (!isWellFormedWebhookHmac(header)) return false;
  const expected = createHmac("sha256", secret).update(raw).digest();
  const given = Buffer.from(header.trim(), "base64");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Signs a body the way Shopify does (the fake store and tests use it). */
export function webhookHmac(raw: Buffer | string, secret: string): string {
  return createHmac("sha256", secret).update(raw).digest("base64");
}

/**
 * The message an OAuth redirect's `hmac` covers: every other query parameter, sorted by name, as `name=value`
 * joined with `&` (values as received, decoded).
 */
export function queryHmacMessage(params: URLSearchParams): string {
  return [...params.entries()]
    .filter(([name]) => name !== "hmac" && name !== "signature")
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
}

export function queryHmac(params: URLSearchParams, secret: string): string {
  return createHmac("sha256", secret).update(queryHmacMessage(params)).digest("hex");
}

/** Whether the redirect's `hmac` (hex) matches: constant time, exactly one `hmac` parameter. */
export function verifyQueryHmac(params: URLSearchParams, secret: string): boolean {
  const given = params.getAll("hmac");
  if (given.length !== 1 || !/^[0-9a-f]{64}$/i.test(given[0])) return false;
  const expected = Buffer.from(queryHmac(params, secret), "hex");
  return timingSafeEqual(Buffer.from(given[0].toLowerCase(), "hex"), expected);
}
