import { randomBytes } from "node:crypto";

/** Standard Webhooks secret serialisation: `whsec_` + base64 of the key bytes. */
export const WEBHOOK_SECRET_PREFIX = "whsec_";

/** 32 bytes: above the spec's 24-byte minimum, the size of an HMAC-SHA256 block's worth of entropy. */
const SECRET_BYTES = 32;

/** How long the secret before a rotation keeps signing alongside the new one (Svix's default grace period). */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString("base64");
}

/** The HMAC key: the decoded bytes, not the text (what `standardwebhooks` and Svix libraries use). */
export function webhookSecretKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, "base64");
}
