import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * `X-Twilio-Signature` (Twilio's "Validating requests"): base64 HMAC-SHA1, keyed with the auth token, of the
 * full URL Twilio requested followed by every POST parameter sorted by name, each as name then value with no
 * separator. A name sent several times contributes each of its values, in sorted order (as Twilio's libraries do).
 */
export function twilioSignature(authToken: string, url: string, params: Iterable<[string, string]>): string {
  const pairs = [...params].sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  const hmac = createHmac("sha1", authToken).update(url, "utf8");
  for (const [name, value] of pairs) hmac.update(name, "utf8").update(value, "utf8");
  return hmac.digest("base64");
}

/** Constant-time check of the header against the expected signature; a missing header is invalid. */
export function hasValidTwilioSignature(
  authToken: string,
  url: string,
  params: Iterable<[string, string]>,
  header: string | undefined,
): boolean {
  if (!header || !/^[A-Za-z0-9+/]{27}=$/.test(header.trim())) return false;
  const expected = Buffer.from(twilioSignature(authToken, url, params), "base64");
  const given = Buffer.from(header.trim(), "base64");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
