import { hmacSha256, signatureMatches } from "../store-support/hmac.ts";

/**
 * Salla's "Signature" security strategy: `X-Salla-Signature` is the hex HMAC-SHA256 of the raw body, keyed with
 * the app's webhook secret (SALLA_WEBHOOK_SECRET), sent with `X-Salla-Security-Strategy: Signature`. One secret
 * for the whole app: stores are told apart by the envelope's `merchant` once the body is trusted.
 */
export const SALLA_SIGNATURE_HEADER = "x-salla-signature";

export function signSallaBody(raw: Buffer | string, secret: string): string {
  return hmacSha256(raw, secret, "hex");
}

export function verifySallaSignature(raw: Buffer, header: string | undefined, secret: string): boolean {
  return signatureMatches(header, signSallaBody(raw, secret), "hex");
}
