import { hmacSha256, signatureMatches } from "../store-support/hmac.ts";

/**
 * WooCommerce signs each webhook delivery with `X-WC-Webhook-Signature`: the base64 HMAC-SHA256 of the raw body,
 * keyed with the webhook's secret (WC_Webhook::generate_signature: `base64_encode(hash_hmac('sha256', $payload,
 * $secret, true))`). The secret is one we generated (SPEC §13), so it never holds the HTML entities WooCommerce
 * would decode first.
 */
export const WOOCOMMERCE_SIGNATURE_HEADER = "x-wc-webhook-signature";

export function signWooCommerceBody(raw: Buffer | string, secret: string): string {
  return hmacSha256(raw, secret, "base64");
}

export function verifyWooCommerceSignature(raw: Buffer, header: string | undefined, secret: string): boolean {
  return signatureMatches(header, signWooCommerceBody(raw, secret), "base64");
}

/**
 * WooCommerce's ping (WC_Webhook::deliver_ping), sent unsigned while the webhook is being created: a form body of
 * exactly `webhook_id=<digits>`. Returns the webhook id, or null for any other body. It must be answered 200, or
 * WooCommerce reports the delivery URL as failing.
 */
export function wooCommercePingWebhookId(raw: Buffer): string | null {
  if (raw.length > 40) return null;
  const match = /^webhook_id=(\d{1,20})$/.exec(raw.toString("latin1"));
  return match ? match[1] : null;
}
