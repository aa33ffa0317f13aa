import { createOrderInput } from "../../domain/orders/order.schemas.ts";
import { normalisePhone } from "../../domain/stores/phone.ts";
import type { MappedOrder } from "../../domain/stores/store-connector.ts";
import { isCashOnDelivery, type StoreSettings } from "../../domain/stores/store-settings.ts";

/**
 * Shopify's `orders/create` payload → our create-order input (SPEC §13), pure. Figures are the shop's as Shopify
 * computed them (shop currency: `current_subtotal_price`, `total_shipping_price_set.shop_money`,
 * `current_total_price`, `currency`), never recomputed: taxes and discounts are whatever the store says and never
 * make an order invalid. When the customer paid in another (presentment) currency, its total goes into the
 * order's note for the merchant.
 */
interface Address {
  name?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  phone?: string | null;
  address1?: string | null;
  address2?: string | null;
  city?: string | null;
  province?: string | null;
  zip?: string | null;
  country?: string | null;
  country_code?: string | null;
}

interface MoneySet {
  shop_money?: { amount?: string | number; currency_code?: string };
  presentment_money?: { amount?: string | number; currency_code?: string };
}

export interface ShopifyOrder {
  id?: number | string;
  admin_graphql_api_id?: string;
  name?: string;
  payment_gateway_names?: string[];
  customer_locale?: string | null;
  currency?: string;
  presentment_currency?: string;
  current_subtotal_price?: string | number;
  current_total_price?: string | number;
  current_total_price_set?: MoneySet;
  total_shipping_price_set?: MoneySet;
  line_items?: { title?: string; variant_title?: string | null; quantity?: number; price?: string | number }[];
  shipping_address?: Address | null;
  billing_address?: Address | null;
  customer?: (Address & { default_address?: Address | null }) | null;
}

const MAX_ITEMS = 100;

/** The store's id of an order, as text: from `admin_graphql_api_id` (exact), else a safe integer `id`. */
export function shopifyOrderId(order: ShopifyOrder): string | null {
  const gid = /^gid:\/\/shopify\/Order\/(\d{1,30})$/.exec(order.admin_graphql_api_id ?? "");
  if (gid) return gid[1];
  if (typeof order.id === "string" && /^\d{1,30}$/.test(order.id)) return order.id;
  if (typeof order.id === "number" && Number.isSafeInteger(order.id) && order.id > 0) return String(order.id);
  return null;
}

export function mapShopifyOrder(order: ShopifyOrder, settings: StoreSettings, storeOrderId: string): MappedOrder {
  const gateways = Array.isArray(order.payment_gateway_names) ? order.payment_gateway_names.filter((name) => typeof name === "string") : [];
  if (settings.codOnly && !isCashOnDelivery(gateways, settings.codPaymentNames)) {
    return { ok: false, reason: "not_cod", detail: gateways.join(", ").slice(0, 200) };
  }
  const phone = pickPhone(order);
  if (!phone.raw) return { ok: false, reason: "no_phone" };
  const customerPhone = normalisePhone(phone.raw, phone.country);
  if (!customerPhone) return { ok: false, reason: "invalid", detail: "phone" };

  const address = order.shipping_address ?? order.billing_address ?? order.customer?.default_address ?? null;
  const items = (Array.isArray(order.line_items) ? order.line_items : []).slice(0, MAX_ITEMS + 1).map((item) => {
    const quantity = Number(item.quantity);
    const unitPrice = amount(item.price);
    return {
      productName: text(item.title, 200) || "Item",
      variantName: text(item.variant_title, 200) || undefined,
      quantity,
      unitPrice,
      totalPrice: multiply(item.price, quantity),
    };
  });
  const shopCurrency = order.currency ?? order.total_shipping_price_set?.shop_money?.currency_code;
  const presentment = order.current_total_price_set?.presentment_money;
  const note =
    order.presentment_currency && shopCurrency && order.presentment_currency !== shopCurrency && presentment?.amount !== undefined
      ? `Customer pays ${presentment.amount} ${order.presentment_currency} (Shopify ${order.name ?? storeOrderId})`
      : `Shopify ${order.name ?? storeOrderId}`;
  const candidate = {
    externalOrderId: `shopify:${storeOrderId}`,
    customerName: customerName(order) || "Customer",
    customerPhone,
    customerAddress: address ? formatAddress(address) || undefined : undefined,
    subtotal: amount(order.current_subtotal_price),
    shippingCost: amount(order.total_shipping_price_set?.shop_money?.amount ?? 0),
    totalCost: amount(order.current_total_price),
    currency: shopCurrency,
    note: note.slice(0, 1000),
    items,
  };
  const parsed = createOrderInput.safeParse(candidate);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.join(".") ?? "order";
    return { ok: false, reason: "invalid", detail: field };
  }
  return { ok: true, input: parsed.data, language: languageOf(order.customer_locale) };
}

/** `ar`, `ar-SA` → ar; `en`, `en-GB` → en; anything else: the connection's language. */
export function languageOf(locale: string | null | undefined): "en" | "ar" | null {
  const primary = typeof locale === "string" ? locale.trim().toLowerCase().split(/[-_]/)[0] : "";
  return primary === "ar" || primary === "en" ? primary : null;
}

/** The phone from the shipping address, else billing, else the customer, with the country to read it in. */
function pickPhone(order: ShopifyOrder): { raw: string | null; country: string | null } {
  const sources: [string | null | undefined, string | null | undefined][] = [
    [order.shipping_address?.phone, order.shipping_address?.country_code],
    [order.billing_address?.phone, order.billing_address?.country_code],
    [order.customer?.phone, order.customer?.default_address?.country_code ?? order.shipping_address?.country_code ?? order.billing_address?.country_code],
  ];
  for (const [raw, country] of sources) {
    if (typeof raw === "string" && raw.trim()) return { raw, country: country ?? null };
  }
  return { raw: null, country: null };
}

function customerName(order: ShopifyOrder): string {
  for (const source of [order.shipping_address, order.billing_address, order.customer]) {
    if (!source) continue;
    const name = text(source.name, 120) || text([source.first_name, source.last_name].filter(Boolean).join(" "), 120);
    if (name) return name;
  }
  return "";
}

function formatAddress(address: Address): string {
  return [address.address1, address.address2, address.city, address.province, address.zip, address.country]
    .map((part) => (typeof part === "string" ? part.trim() : ""))
    .filter(Boolean)
    .join(", ")
    .slice(0, 500);
}

function text(value: unknown, max: number): string {
  return typeof value === "string" ? value.trim().slice(0, max) : "";
}

/** Shopify's decimal strings ("398.00") as numbers; anything unreadable becomes NaN and fails validation. */
function amount(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "string" && /^\d{1,13}(\.\d{1,4})?$/.test(value.trim())) return Number(value.trim());
  return Number.NaN;
}

/** price × quantity computed in ten-thousandths, so 19.99 × 3 is 59.97 and not 59.970000000000006. */
function multiply(price: unknown, quantity: number): number {
  const unit = amount(price);
  if (!Number.isFinite(unit) || !Number.isFinite(quantity)) return Number.NaN;
  const scaled = Math.round(unit * 10_000) * Math.round(quantity * 10_000);
  return scaled / 100_000_000;
}
