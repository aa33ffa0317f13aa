import { formatMoney } from "./confirmation-text.ts";
import type { Language } from "./messaging-provider.ts";

/**
 * SMS length (3GPP TS 23.038): a text entirely in the GSM 03.38 alphabet is sent as GSM-7 (160 septets in one
 * segment, 153 per segment once split; the extension characters take two septets), anything else as UCS-2 (70
 * UTF-16 units, 67 per segment once split). Arabic is always UCS-2.
 */
const GSM_BASIC = new Set(
  "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà",
);
const GSM_EXTENSION = new Set("^{}\\[~]|€\f");

export interface SmsLength {
  encoding: "GSM-7" | "UCS-2";
  /** Septets (GSM-7) or UTF-16 code units (UCS-2). */
  units: number;
  segments: number;
}

export const MAX_SMS_SEGMENTS = 2;

export function measureSms(text: string): SmsLength {
  const chars = [...text];
  if (chars.every((char) => GSM_BASIC.has(char) || GSM_EXTENSION.has(char))) {
    const sizes = chars.map((char) => (GSM_EXTENSION.has(char) ? 2 : 1));
    return { encoding: "GSM-7", ...segmentsOf(sizes, 160, 153) };
  }
  // A character outside the basic plane takes two UTF-16 units, never split across segments.
  return { encoding: "UCS-2", ...segmentsOf(chars.map((char) => char.length), 70, 67) };
}

/** Segments of a message of characters of `sizes`: one if it fits `single`, else filled greedily to `part`. */
function segmentsOf(sizes: number[], single: number, part: number): { units: number; segments: number } {
  const units = sizes.reduce((sum, size) => sum + size, 0);
  if (units <= single) return { units, segments: units === 0 ? 0 : 1 };
  let segments = 1;
  let used = 0;
  for (const size of sizes) {
    if (used + size > part) {
      segments++;
      used = 0;
    }
    used += size;
  }
  return { units, segments };
}

export interface SmsTextInput {
  kind: "fallback" | "reminder";
  language: Language;
  merchantName: string;
  externalOrderId: string;
  totalCost: number;
  currency: string;
  url: string;
}

const TEMPLATES: Record<Language, Record<SmsTextInput["kind"], (shop: string, ref: string, total: string, url: string) => string>> = {
  en: {
    fallback: (shop, ref, total, url) => `${shop}: please confirm your order ${ref} (${total}): ${url}`,
    reminder: (shop, ref, total, url) => `${shop}: reminder, confirm order ${ref} (${total}): ${url}`,
  },
  ar: {
    fallback: (shop, ref, total, url) => `${shop}: يرجى تأكيد طلبك ${ref} (${total}): ${url}`,
    reminder: (shop, ref, total, url) => `${shop}: تذكير، يرجى تأكيد طلبك ${ref} (${total}): ${url}`,
  },
};

/** Shortest a shop name or reference is cut to before giving up on two segments. */
const MIN_PART = 4;

/**
 * The SMS text in the order's language: the shop's name, the order reference, the total and the page's URL, in
 * at most two segments. A long shop name is shortened first, then a long reference ("..." marks the cut, which
 * keeps a GSM-7 text GSM-7); the URL is never cut. Only a PUBLIC_BASE_URL longer than about 60 characters can
 * make it longer (the URL alone then does not fit).
 */
export function renderSmsText(input: SmsTextInput): string {
  const template = TEMPLATES[input.language][input.kind];
  // Intl puts no-break spaces between amount and currency: outside GSM-7, they would make an English text UCS-2.
  const total = formatMoney(input.totalCost, input.currency, input.language).replace(/[\u00a0\u202f]/g, " ");
  const shop = [...clean(input.merchantName)];
  const ref = [...clean(input.externalOrderId)];
  const build = (shopLength: number, refLength: number) =>
    template(cut(shop, shopLength), cut(ref, refLength), total, input.url);
  let shopLength = shop.length;
  let refLength = ref.length;
  let text = build(shopLength, refLength);
  while (measureSms(text).segments > MAX_SMS_SEGMENTS && (shopLength > MIN_PART || refLength > MIN_PART)) {
    if (shopLength > MIN_PART) shopLength--;
    else refLength--;
    text = build(shopLength, refLength);
  }
  return text;
}

/** One line: control characters and runs of spaces become one space. */
function clean(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f\s]+/g, " ").trim();
}

function cut(chars: string[], length: number): string {
  return chars.length <= length ? chars.join("") : `${chars.slice(0, Math.max(1, length - 3)).join("").trimEnd()}...`;
}
