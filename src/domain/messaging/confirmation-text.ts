import type { Language, OrderConfirmationMessage } from "./messaging-provider.ts";

/**
 * The customer-facing text of the confirmation, in the customer's language. The simulator shows it as
 * is; the WhatsApp template carries the same values as body parameters.
 */
const labels = {
  en: {
    greeting: (name: string) => `Hello ${name}, please confirm your order ${"{ref}"}.`,
    reminder: (name: string) => `Reminder: ${name}, your order ${"{ref}"} is waiting for your confirmation.`,
    items: "Items",
    shipping: "Shipping",
    total: "Total",
    address: "Delivery address",
    approve: "Approve",
    cancel: "Cancel",
  },
  ar: {
    greeting: (name: string) => `مرحبًا ${name}، يرجى تأكيد طلبك ${"{ref}"}.`,
    reminder: (name: string) => `تذكير: ${name}، طلبك ${"{ref}"} بانتظار تأكيدك.`,
    items: "المنتجات",
    shipping: "الشحن",
    total: "الإجمالي",
    address: "عنوان التوصيل",
    approve: "تأكيد",
    cancel: "إلغاء",
  },
} as const;

// Building an Intl.NumberFormat costs far more than using one; a shop uses a handful of currencies.
const formatters = new Map<string, Intl.NumberFormat | null>();

export function formatMoney(amount: number, currency: string, language: Language): string {
  const key = `${language}:${currency}`;
  let formatter = formatters.get(key);
  if (formatter === undefined) {
    try {
      formatter = new Intl.NumberFormat(language, { style: "currency", currency });
    } catch {
      formatter = null;
    }
    if (formatters.size < 1000) formatters.set(key, formatter);
  }
  return formatter ? formatter.format(amount) : `${amount} ${currency}`;
}

export function itemLine(item: OrderConfirmationMessage["items"][number], currency: string, language: Language): string {
  const variant = item.variantName ? ` (${item.variantName})` : "";
  return `${item.quantity} × ${item.productName}${variant}: ${formatMoney(item.totalPrice, currency, language)}`;
}

export function buttonTitles(language: Language): { approve: string; cancel: string } {
  return { approve: labels[language].approve, cancel: labels[language].cancel };
}

/** The reminder (SPEC §9): the same order details under a reminder's opening line. */
export function renderReminderText(message: OrderConfirmationMessage): string {
  const l = labels[message.language];
  const [, ...details] = renderConfirmationText(message).split("\n");
  return [l.reminder(message.customerName).replace("{ref}", message.externalOrderId), ...details].join("\n");
}

export function renderConfirmationText(message: OrderConfirmationMessage): string {
  const l = labels[message.language];
  const lines = [
    l.greeting(message.customerName).replace("{ref}", message.externalOrderId),
    "",
    `${l.items}:`,
    ...message.items.map((item) => `• ${itemLine(item, message.currency, message.language)}`),
    `${l.shipping}: ${formatMoney(message.shippingCost, message.currency, message.language)}`,
    `${l.total}: ${formatMoney(message.totalCost, message.currency, message.language)}`,
  ];
  if (message.customerAddress) lines.push(`${l.address}: ${message.customerAddress}`);
  return lines.join("\n");
}
