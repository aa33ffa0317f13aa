import { parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js";

/**
 * A store's phone number as our orders keep it: international digits without `+` (SPEC §3). Numbers written
 * nationally ("050 123 4567") are read in the country of the address they came with. Null when it is not a valid
 * number for any region (libphonenumber-js metadata).
 */
export function normalisePhone(raw: string | null | undefined, country: string | null | undefined): string | null {
  if (!raw || typeof raw !== "string") return null;
  const text = raw.trim().slice(0, 40);
  if (!text) return null;
  const region = typeof country === "string" && /^[A-Za-z]{2}$/.test(country) ? (country.toUpperCase() as CountryCode) : undefined;
  // "00" is the international prefix in most of the world (Gulf stores see "00966…").
  const international = text.startsWith("00") ? `+${text.slice(2)}` : text;
  const parsed = parsePhoneNumberFromString(international, region ? { defaultCountry: region } : undefined);
  if (!parsed || !parsed.isValid()) return null;
  const digits = parsed.number.slice(1);
  return /^[1-9]\d{7,14}$/.test(digits) ? digits : null;
}
