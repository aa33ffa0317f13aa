import { describe, expect, it } from "vitest";
import { defaultSettings, isCashOnDelivery } from "../../src/domain/stores/store-settings.ts";
import { normalisePhone } from "../../src/domain/stores/phone.ts";
import { languageOf, mapShopifyOrder, shopifyOrderId } from "../../src/providers/shopify/shopify-order-mapping.ts";
import { effectsFor } from "../../src/domain/stores/store-connector.ts";
import { shopifyOrder } from "../support/fake-shopify.ts";

const settings = defaultSettings("shopify");
const parse = (overrides: Record<string, unknown> = {}, id?: string) => JSON.parse(shopifyOrder(overrides, id).json);

describe("Shopify order mapping", () => {
  it("keeps ids beyond 2^53 exact (from admin_graphql_api_id)", () => {
    const order = parse({}, "820982911946154508");
    expect(order.id).not.toBe(820982911946154508n.toString()); // JSON.parse loses it…
    expect(shopifyOrderId(order)).toBe("820982911946154508"); // …the gid keeps it
  });

  it("maps a COD order with the store's figures, phone in the address's country and the locale's language", () => {
    const mapped = mapShopifyOrder(parse({}, "9007199254740993"), settings, "9007199254740993");
    expect(mapped).toMatchObject({
      ok: true,
      language: "ar",
      input: {
        externalOrderId: "shopify:9007199254740993",
        customerName: "Layla Hassan",
        customerPhone: "966501234567",
        customerAddress: "King Fahd Rd 12, Riyadh, Riyadh, 12211, Saudi Arabia",
        subtotal: 398,
        shippingCost: 25,
        totalCost: 423,
        currency: "SAR",
        items: [{ productName: "Abaya", variantName: "Black / M", quantity: 2, unitPrice: 199, totalPrice: 398 }],
      },
    });
  });

  it("skips prepaid orders unless codOnly is off", () => {
    const prepaid = parse({ payment_gateway_names: ["shopify_payments"] });
    expect(mapShopifyOrder(prepaid, settings, "1")).toMatchObject({ ok: false, reason: "not_cod" });
    expect(mapShopifyOrder(prepaid, { ...settings, codOnly: false }, "1")).toMatchObject({ ok: true });
  });

  it("takes the phone from shipping, else billing, else the customer; reports missing and invalid phones", () => {
    const billing = { phone: "+971 50 123 4567", country_code: "AE", name: "B" };
    expect(mapShopifyOrder(parse({ shipping_address: null, billing_address: billing }), settings, "1")).toMatchObject({ ok: true, input: { customerPhone: "971501234567", customerName: "B" } });
    expect(mapShopifyOrder(parse({ shipping_address: { name: "X", country_code: "SA" }, customer: { phone: "+201001234567" } }), settings, "1")).toMatchObject({
      ok: true,
      input: { customerPhone: "201001234567" },
    });
    expect(mapShopifyOrder(parse({ shipping_address: { name: "X" }, customer: null }), settings, "1")).toMatchObject({ ok: false, reason: "no_phone" });
    expect(mapShopifyOrder(parse({ shipping_address: { name: "X", phone: "12", country_code: "SA" } }), settings, "1")).toMatchObject({ ok: false, reason: "invalid" });
  });

  it("never rejects an order for its taxes or discounts; notes the presentment total in another currency", () => {
    const mapped = mapShopifyOrder(
      parse({
        presentment_currency: "USD",
        current_total_price_set: { shop_money: { amount: "423.00", currency_code: "SAR" }, presentment_money: { amount: "112.80", currency_code: "USD" } },
      }),
      settings,
      "5",
    );
    expect(mapped).toMatchObject({ ok: true, input: { currency: "SAR", totalCost: 423 } });
    expect(mapped.ok && mapped.input.note).toContain("112.80 USD");
  });

  it("reads the language from customer_locale, else none", () => {
    expect(languageOf("ar")).toBe("ar");
    expect(languageOf("en-GB")).toBe("en");
    expect(languageOf("fr")).toBeNull();
    expect(languageOf(null)).toBeNull();
  });
});

describe("COD names, phones and effects", () => {
  it("matches COD gateway names case-insensitively on whole words", () => {
    expect(isCashOnDelivery(["Cash on Delivery (COD)"], settings.codPaymentNames)).toBe(true);
    expect(isCashOnDelivery(["cod"], settings.codPaymentNames)).toBe(true);
    expect(isCashOnDelivery(["Barcode pay"], settings.codPaymentNames)).toBe(false);
    expect(isCashOnDelivery(["manual"], settings.codPaymentNames)).toBe(false);
  });

  it("normalises national and 00-prefixed numbers", () => {
    expect(normalisePhone("0501234567", "SA")).toBe("966501234567");
    expect(normalisePhone("00966501234567", null)).toBe("966501234567");
    expect(normalisePhone("+1 (415) 555-2671", "SA")).toBe("14155552671");
    expect(normalisePhone("hello", "SA")).toBeNull();
  });

  it("derives write-back effects from the outcome and settings", () => {
    expect(effectsFor("confirmed", settings, false)).toEqual([{ kind: "tag", tag: "cod-confirmed" }]);
    expect(effectsFor("confirmed", settings, true)).toEqual([{ kind: "release_hold" }, { kind: "tag", tag: "cod-confirmed" }]);
    expect(effectsFor("canceled", { ...settings, cancelOnCustomerCancel: true }, false)).toEqual([
      { kind: "tag", tag: "cod-canceled" },
      { kind: "cancel", reason: "customer" },
    ]);
    expect(effectsFor("expired", { ...settings, cancelOnExpiry: true, tagExpired: null }, false)).toEqual([{ kind: "cancel", reason: "expired" }]);
    expect(effectsFor("failed", settings, false)).toEqual([{ kind: "tag", tag: "cod-undeliverable" }]);
  });
});
