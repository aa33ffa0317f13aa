import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js/max";

/**
 * A store's phone number as our orders keep it: international digits, no "+" (SPEC §13). Stores let customers
 * type numbers any way they like ("0501234567", "+966 50 123 4567", "00966501234567", "٠٥٠١٢٣٤٥٦٧"), so the
 * number is read by libphonenumber with the address's country as the default region, and kept only when it is a
 * valid number for its country (the "max" metadata checks number ranges, not only lengths). A number that cannot
 * be made valid is no phone at all: the order is skipped with `no_phone` rather than sent to a stranger.
 */
export function normalisePhone(raw: string | null | undefined, defaultCountry?: string | null): string | null {
  if (!raw) return null;
  const text = toAsciiDigits(raw).trim();
  if (!text || text.length > MAX_PHONE_TEXT) return null;
  const region = countryCode(defaultCountry);
  // "00" is the international prefix in most of our markets; libphonenumber reads it only when it knows the
  // default region's exit code, so it is made explicit.
  const international = text.startsWith("00") ? `+${text.slice(2)}` : text;
  const parsed = parsePhoneNumberFromString(international, region ? { defaultCountry: region } : undefined);
  if (!parsed || !parsed.isValid()) return null;
  const digits = parsed.number.slice(1);
  return /^[1-9]\d{7,14}$/.test(digits) ? digits : null;
}

/** Longer than any formatted number (with spaces, dashes and an extension): not read at all. */
const MAX_PHONE_TEXT = 40;

/** An ISO 3166-1 alpha-2 code libphonenumber knows (any case in), or undefined. */
export function countryCode(value: string | null | undefined): CountryCode | undefined {
  const code = value?.trim().toUpperCase();
  return code && /^[A-Z]{2}$/.test(code) && isSupportedCountry(code) ? (code as CountryCode) : undefined;
}

/** Arabic-Indic (U+0660…) and Eastern Arabic-Indic (U+06F0…) digits, as typed on Arabic and Persian keyboards. */
function toAsciiDigits(text: string): string {
  return text.replace(/[\u0660-\u0669\u06F0-\u06F9]/g, (char) => String(char.charCodeAt(0) & 0xf));
}
