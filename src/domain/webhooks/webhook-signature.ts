import { createHmac } from "node:crypto";
import { webhookSecretKey } from "./webhook-secret.ts";

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com, v1 = HMAC-SHA256), done with node:crypto so the
 * sender needs no library; merchants verify with `standardwebhooks` or any Svix SDK. Also the GitHub-style
 * `sha256=<hex>` of the raw body for receivers that only want a one-line check.
 */

/** The HMAC key of a `whsec_<base64>` secret: the decoded bytes after the prefix (what `new Webhook(secret)` uses). */
export function secretKey(secret: string): Buffer {
  const key = webhookSecretKey(secret);
  if (key.length === 0) throw new Error("webhook secret has no key bytes");
  return key;
}

/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` for one secret. */
export function signV1(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac("sha256", secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`, "utf8").digest("base64");
  return `v1,${mac}`;
}

/**
 * The `webhook-signature` header: one `v1,…` per active secret, space-separated (the current secret first; after
 * a rotation the previous one signs too until it expires, so receivers still holding it keep verifying).
 */
export function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  return secrets.map((secret) => signV1(secret, id, timestampSeconds, body)).join(" ");
}

/** `x-webhook-signature-256`: `sha256=<hex HMAC-SHA256 of the raw body>`, keyed like `webhook-signature`. */
export function bodySignature256(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secretKey(secret)).update(body, "utf8").digest("hex")}`;
}

export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
  "x-webhook-signature-256": string;
}

/**
 * The signature headers of one attempt. `secrets[0]` is the current secret (it alone keys the body signature).
 * The timestamp is the attempt's, so each retry is signed afresh while `webhook-id` stays the event id.
 */
export function signDelivery(secrets: readonly string[], id: string, at: Date, body: string): SignedHeaders {
  if (secrets.length === 0) throw new Error("a delivery needs at least one secret");
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signatureHeader(secrets, id, timestamp, body),
    "x-webhook-signature-256": bodySignature256(secrets[0], body),
  };
}
