import { isCodPaymentMethod } from "../store-support/cod.ts";
import {
  describeIssues,
  finishOrder,
  joinText,
  money,
  round4,
  skip,
  storeOrderIdOf,
  supportedLanguage,
  type MappedStoreOrder,
  type StoreOrderSettings,
} from "../store-support/mapped-order.ts";
import { countryCode, normalisePhone } from "../store-support/phone.ts";
import { sallaOrder, type SallaOrder, type SallaOrderItem } from "./order-payload.ts";

/**
 * The `data` of a verified Salla `order.created` → our create-order input, or the reason it creates nothing.
 * Pure: unit-tested against recorded payloads.
 *
 * - The store order id is `data.id` (the id of Salla's `/orders/{id}`, which the write-back uses), not the
 *   `reference_id` customers see.
 * - Draft orders (`draft: true`, made by the merchant in the dashboard) are not orders yet: skipped.
 * - COD is `payment_method` (`cod` for Salla's cash on delivery) in `codPaymentNames` (when `codOnly`).
 * - The phone is the shipping receiver's, else the customer's mobile with its `mobile_code`, read with the
 *   shipping address's country (else the customer's) as the default region.
 * - Figures are Salla's own `amounts` (sub_total, shipping_cost, total); a discount or tax never makes the order
 *   invalid.
 */
export function mapSallaOrder(data: unknown, settings: StoreOrderSettings): MappedStoreOrder {
  const parsed = sallaOrder.safeParse(data);
  if (!parsed.success) return skip(storeOrderIdOf(data), "invalid", describeIssues(parsed.error));
  const order = parsed.data;
  if (order.draft === true) return skip(order.id, "draft", null);
  if (settings.codOnly && !isCodPaymentMethod(order.payment_method, settings.codPaymentNames)) {
    return skip(order.id, "not_cod", order.payment_method ?? null);
  }
  const phone = phoneOf(order);
  if (!phone) return skip(order.id, "no_phone", null);
  const currency = order.currency ?? order.amounts.total?.currency ?? "";
  return finishOrder(
    order.id,
    {
      externalOrderId: `salla:${order.id}`,
      customerName:
        joinText([order.shipping?.receiver?.name], "")?.slice(0, 120) ??
        joinText([order.customer?.first_name, order.customer?.last_name], " ")?.slice(0, 120) ??
        "",
      customerPhone: phone,
      customerAddress: addressOf(order) ?? undefined,
      subtotal: money(order.amounts.sub_total?.amount),
      shippingCost: money(order.amounts.shipping_cost?.amount ?? 0),
      totalCost: money(order.amounts.total?.amount),
      currency,
      items: order.items.map(itemOf),
    },
    supportedLanguage(order.language),
  );
}

function phoneOf(order: SallaOrder): string | null {
  const regions = [order.shipping?.address?.country_code, order.customer?.country_code].filter((code) => countryCode(code));
  const receiver = order.shipping?.receiver?.phone;
  const mobile = order.customer?.mobile;
  const code = order.customer?.mobile_code;
  const candidates = [
    receiver === null || receiver === undefined ? null : String(receiver),
    // "+966" and "501234567": one international number.
    mobile !== null && mobile !== undefined && code !== null && code !== undefined ? `+${String(code).replace(/\D/g, "")}${String(mobile).replace(/^0+/, "")}` : null,
    mobile === null || mobile === undefined ? null : String(mobile),
  ];
  for (const candidate of candidates) {
    if (!candidate) continue;
    for (const region of regions.length ? regions : [null]) {
      const phone = normalisePhone(candidate, region);
      if (phone) return phone;
    }
  }
  return null;
}

function addressOf(order: SallaOrder): string | null {
  const address = order.shipping?.address;
  if (!address) return null;
  return joinText([address.shipping_address, address.city, address.postal_code, address.country], ", ")?.slice(0, 500) ?? null;
}

function itemOf(item: SallaOrderItem) {
  const unit = money(item.amounts?.price_without_tax?.amount ?? item.price?.amount);
  const total = item.amounts?.total?.amount;
  const totalPrice = total === null || total === undefined ? round4(unit * item.quantity) : money(total);
  return {
    productName: item.name?.trim().slice(0, 200) ?? "",
    variantName: variantOf(item) ?? undefined,
    quantity: item.quantity,
    unitPrice: unit,
    totalPrice,
  };
}

function variantOf(item: SallaOrderItem): string | null {
  const parts = (item.options ?? []).map((option) => {
    const value = option.value;
    const shown = typeof value === "string" || typeof value === "number" ? String(value) : (value?.name ?? null);
    return option.name && shown ? `${option.name}: ${shown}` : null;
  });
  return joinText(parts, ", ")?.slice(0, 200) ?? null;
}
