import { createHmac, timingSafeEqual } from "node:crypto";

/** HMAC-SHA256 of the exact bytes received, in the encoding the platform sends. */
export function hmacSha256(raw: Buffer | string, secret: string, encoding: "base64" | "hex"): string {
  return createHmac("sha256", secret).update(raw).digest(encoding);
}

/**
 * Constant-time comparison of a received signature with the expected one, both decoded to bytes first (a hex
 * signature in upper case, or base64 without padding, is still the same signature). A header of the wrong size or
 * not in the encoding is simply not equal.
 */
export function signatureMatches(received: string | undefined, expected: string, encoding: "base64" | "hex"): boolean {
  if (!received) return false;
  const text = received.trim();
  const valid = encoding === "hex" ? /^[0-9a-fA-F]+$/.test(text) && text.length % 2 === 0 : /^[A-Za-z0-9+/]+={0,2}$/.test(text);
  if (!valid) return false;
  const a = Buffer.from(text, encoding);
  const b = Buffer.from(expected, encoding);
  return a.length === b.length && timingSafeEqual(a, b);
}
