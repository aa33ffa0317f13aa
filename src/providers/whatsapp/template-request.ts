import { formatMoney } from "../../domain/messaging/confirmation-text.ts";
import { BUTTON_PAYLOAD, type Language, type OrderConfirmationMessage } from "../../domain/messaging/messaging-provider.ts";

/**
 * The body of `POST /{phone-number-id}/messages` for the order-confirmation template (SPEC §5.1; the
 * template itself is documented in docs/operations.md). Body parameters are positional:
 * {{1}} customer name, {{2}} order reference, {{3}} items, {{4}} total with currency, {{5}} address.
 */
export interface TemplateMessageRequest {
  messaging_product: "whatsapp";
  recipient_type: "individual";
  to: string;
  type: "template";
  biz_opaque_callback_data: string;
  template: {
    name: string;
    language: { code: Language; policy: "deterministic" };
    components: TemplateComponent[];
  };
}

export type TemplateComponent =
  | { type: "body"; parameters: { type: "text"; text: string }[] }
  | { type: "button"; sub_type: "quick_reply"; index: "0" | "1"; parameters: { type: "payload"; payload: string }[] };

/**
 * Per-parameter budgets, in characters. Meta refuses a body longer than 1024 characters once filled in
 * (132005); with these the parameters stay under 800, leaving the template's own text the rest.
 */
export const PARAMETER_LIMITS = { customerName: 60, orderReference: 100, items: 300, total: 40, address: 250 } as const;

const MISSING = "-";
const ELLIPSIS = "…";

/**
 * Meta refuses parameters with newlines, tabs or more than four consecutive spaces (132018) and empty ones;
 * this makes any text a valid parameter of at most `limit` characters.
 */
export function templateParameter(value: string | null | undefined, limit: number): string {
  const flat = (value ?? "").replace(/[\r\n\t\f\v\u2028\u2029]+/g, " ").replace(/ {2,}/g, " ").trim();
  if (!flat) return MISSING;
  const chars = Array.from(flat); // never cut a surrogate pair in half
  return chars.length <= limit ? flat : `${chars.slice(0, limit - 1).join("").trimEnd()}${ELLIPSIS}`;
}

const moreItems = { en: (n: number) => `+${n} more`, ar: (n: number) => `+${n} أخرى` } as const;
const separator = { en: ", ", ar: "، " } as const;

/** "1 × Arabic coffee (500 g), 2 × Dates", cut to whole items with "+N more" when long; never empty. */
export function itemsSummary(items: OrderConfirmationMessage["items"], language: Language, limit: number = PARAMETER_LIMITS.items): string {
  const entries = items.map((item) => {
    const variant = item.variantName?.trim() ? ` (${item.variantName.trim()})` : "";
    return templateParameter(`${item.quantity} × ${item.productName}${variant}`, limit);
  });
  if (entries.length === 0) return MISSING;
  const full = entries.join(separator[language]);
  if (full.length <= limit) return full;
  // Keep as many whole items as fit next to the "+N more" suffix; at least the first one, shortened.
  for (let kept = entries.length - 1; kept >= 1; kept--) {
    const text = `${entries.slice(0, kept).join(separator[language])}${separator[language]}${moreItems[language](entries.length - kept)}`;
    if (text.length <= limit) return text;
  }
  const suffix = `${separator[language]}${moreItems[language](entries.length - 1)}`;
  return `${templateParameter(entries[0], limit - suffix.length)}${suffix}`;
}

export function bodyParameters(message: OrderConfirmationMessage): string[] {
  return [
    templateParameter(message.customerName, PARAMETER_LIMITS.customerName),
    templateParameter(message.externalOrderId, PARAMETER_LIMITS.orderReference),
    itemsSummary(message.items, message.language),
    templateParameter(formatMoney(message.totalCost, message.currency, message.language), PARAMETER_LIMITS.total),
    templateParameter(message.customerAddress, PARAMETER_LIMITS.address),
  ];
}

/**
 * `biz_opaque_callback_data`: echoed back by Meta in status callbacks, so they name the order (and, for a
 * reminder, which one: its statuses must not move the first message's delivery status or fail the order).
 */
export const callbackDataOf = (orderId: string, reminder?: number) =>
  reminder ? `order=${orderId};reminder=${reminder}` : `order=${orderId}`;

/** The first message uses `templateName`; a reminder (message.reminder set) uses `reminderTemplateName`. */
export function buildTemplateRequest(
  message: OrderConfirmationMessage,
  templateName: string,
  reminderTemplateName: string = templateName,
): TemplateMessageRequest {
  return {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    // Meta recommends "+" and the country code: without "+", the business number's code may be prepended.
    to: `+${message.customerPhone}`,
    type: "template",
    biz_opaque_callback_data: callbackDataOf(message.orderId, message.reminder),
    template: {
      name: message.reminder ? reminderTemplateName : templateName,
      language: { code: message.language, policy: "deterministic" },
      components: [
        { type: "body", parameters: bodyParameters(message).map((text) => ({ type: "text", text })) },
        quickReply("0", BUTTON_PAYLOAD.approve(message.orderId)),
        quickReply("1", BUTTON_PAYLOAD.cancel(message.orderId)),
      ],
    },
  };
}

function quickReply(index: "0" | "1", payload: string): TemplateComponent {
  return { type: "button", sub_type: "quick_reply", index, parameters: [{ type: "payload", payload }] };
}
