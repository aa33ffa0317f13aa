/**
 * Click-to-call and click-to-chat links for a customer's phone as the service stores it (international digits,
 * no "+"): `tel:+<digits>` opens the phone app (or a softphone on a desktop), `https://wa.me/<digits>` a WhatsApp
 * chat. Anything that is not 8–15 digits gives no link (never a link built from arbitrary text).
 */
const DIGITS = /^[1-9]\d{7,14}$/;

export function telLink(phone: string): string | null {
  return DIGITS.test(phone) ? `tel:+${phone}` : null;
}

export function whatsappLink(phone: string): string | null {
  return DIGITS.test(phone) ? `https://wa.me/${phone}` : null;
}
