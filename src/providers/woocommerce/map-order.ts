import { isCodPaymentMethod } from "../store-support/cod.ts";
import {
  describeIssues,
  finishOrder,
  joinText,
  money,
  round4,
  skip,
  storeOrderIdOf,
  sumMoney,
  supportedLanguage,
  type MappedStoreOrder,
  type StoreOrderSettings,
} from "../store-support/mapped-order.ts";
import { normalisePhone } from "../store-support/phone.ts";
import { DRAFT_STATUSES, wooCommerceOrder, type WooCommerceAddress, type WooCommerceLineItem, type WooCommerceOrder } from "./order-payload.ts";

/**
 * A verified WooCommerce `order.created` body → our create-order input, or the reason it creates nothing.
 * Pure: unit-tested against recorded payloads.
 *
 * - Drafts from the block checkout (`checkout-draft`) are not orders yet: skipped.
 * - COD is `payment_method` (the gateway id, `cod` for WooCommerce's own) in `codPaymentNames` (when `codOnly`).
 * - The phone is the shipping address's, else the billing address's, read with that address's country as the
 *   default region (so "0501234567" in a Saudi address is 966501234567).
 * - Figures are the store's own: subtotal is the line items' totals (after discounts, before shipping and tax),
 *   shipping is `shipping_total`, total is `total`. A discount or tax never makes the order invalid.
 */
export function mapWooCommerceOrder(body: unknown, settings: StoreOrderSettings): MappedStoreOrder {
  const parsed = wooCommerceOrder.safeParse(body);
  if (!parsed.success) return skip(storeOrderIdOf(body), "invalid", describeIssues(parsed.error));
  const order = parsed.data;
  if (DRAFT_STATUSES.has(order.status)) return skip(order.id, "draft", order.status);
  if (settings.codOnly && !isCodPaymentMethod(order.payment_method, settings.codPaymentNames)) {
    return skip(order.id, "not_cod", order.payment_method ?? null);
  }
  const phone = phoneOf(order);
  if (!phone) return skip(order.id, "no_phone", null);
  const items = order.line_items.map(itemOf);
  return finishOrder(
    order.id,
    {
      externalOrderId: `woocommerce:${order.id}`,
      customerName: nameOf(order.shipping) ?? nameOf(order.billing) ?? joinText([order.billing?.company], "") ?? "",
      customerPhone: phone,
      customerAddress: addressOf(order.shipping) ?? addressOf(order.billing) ?? undefined,
      subtotal: sumMoney(items.map((item) => item.totalPrice)),
      shippingCost: money(order.shipping_total ?? "0"),
      totalCost: money(order.total),
      currency: order.currency ?? "",
      note: order.customer_note?.trim() ? order.customer_note.trim().slice(0, 1000) : undefined,
      items,
    },
    languageOf(order),
  );
}

/** The store's order id of a body that did not parse, when it has one (for the activity log). */
function phoneOf(order: WooCommerceOrder): string | null {
  const countries = [order.shipping?.country, order.billing?.country];
  for (const address of [order.shipping, order.billing]) {
    if (!address?.phone?.trim()) continue;
    // The address's own country first; an address without one borrows the other address's.
    for (const country of [address.country, ...countries]) {
      const phone = normalisePhone(address.phone, country);
      if (phone) return phone;
    }
  }
  return null;
}

function nameOf(address: WooCommerceAddress | null | undefined): string | null {
  return joinText([address?.first_name, address?.last_name], " ")?.slice(0, 120) ?? null;
}

function addressOf(address: WooCommerceAddress | null | undefined): string | null {
  if (!address) return null;
  const text = joinText([address.address_1, address.address_2, address.city, address.state, address.postcode, address.country], ", ");
  return text && (address.address_1 || address.city) ? text.slice(0, 500) : null;
}

function itemOf(item: WooCommerceLineItem) {
  const totalPrice = money(item.total ?? item.subtotal);
  return {
    productName: item.name?.trim().slice(0, 200) ?? "",
    variantName: variantOf(item) ?? undefined,
    quantity: item.quantity,
    unitPrice: item.quantity > 0 ? round4(totalPrice / item.quantity) : Number.NaN,
    totalPrice,
  };
}

/** Variation attributes and options (visible meta: "Size: M, Color: Red"); WooCommerce hides keys starting "_". */
function variantOf(item: WooCommerceLineItem): string | null {
  const parts = (item.meta_data ?? [])
    .filter((meta) => meta.key && !meta.key.startsWith("_"))
    .map((meta) => {
      const label = meta.display_key ?? meta.key;
      const value = typeof meta.display_value === "string" ? meta.display_value : typeof meta.value === "string" ? meta.value : null;
      return value ? `${label}: ${stripTags(value)}` : null;
    });
  return joinText(parts, ", ")?.slice(0, 200) ?? null;
}

/** `display_value` may carry HTML (a link to a product option); the customer reads plain text. */
function stripTags(text: string): string {
  return text.replace(/<[^>]*>/g, "").trim();
}

/** WPML and Polylang record the language an order was placed in. */
function languageOf(order: WooCommerceOrder): string | null {
  const meta = (order.meta_data ?? []).find((entry) => entry.key === "wpml_language" || entry.key === "pll_language");
  return typeof meta?.value === "string" ? supportedLanguage(meta.value) : null;
}
