import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { mapWooCommerceOrder } from "../../src/providers/woocommerce/map-order.ts";
import { parseStoreUrl } from "../../src/providers/woocommerce/store-url.ts";
import {
  signWooCommerceBody,
  verifyWooCommerceSignature,
  wooCommercePingWebhookId,
} from "../../src/providers/woocommerce/webhook-signature.ts";

const fixture = () =>
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../fixtures/woocommerce/order-created.json"), "utf8"));
const settings = { codOnly: true, codPaymentNames: ["cod"] };

describe("WooCommerce webhook signature (X-WC-Webhook-Signature)", () => {
  // Computed independently: printf '%s' "$body" | openssl dgst -sha256 -hmac 'wc_secret_9f2b' -binary | base64
  // (what WooCommerce's base64_encode(hash_hmac('sha256', $payload, $secret, true)) gives).
  const body = Buffer.from('{"id":727,"status":"processing","payment_method":"cod"}');
  const known = "dFMRYbOJE1XogOEhKxvijjd3YJbE3C0BOjChsuRTZ10=";

  it("matches a signature computed by openssl", () => {
    expect(signWooCommerceBody(body, "wc_secret_9f2b")).toBe(known);
    expect(verifyWooCommerceSignature(body, known, "wc_secret_9f2b")).toBe(true);
  });

  it("matches WooCommerce's own unit test of WC_Webhook::generate_signature", () => {
    // woocommerce/woocommerce, plugins/woocommerce/tests/legacy/unit-tests/webhooks/crud.php, test_generate_signature:
    // a new WC_Webhook (its secret unset: the empty string) signs the payload 'secret' as this.
    const published = "GBDo00G55h6IiV+6CxqivQPLbI//KzaOZm747971tPs=";
    expect(signWooCommerceBody(Buffer.from("secret"), "")).toBe(published);
    expect(verifyWooCommerceSignature(Buffer.from("secret"), published, "")).toBe(true);
    expect(verifyWooCommerceSignature(Buffer.from("secret"), published, "secret")).toBe(false);
  });

  it("matches the published HMAC-SHA256 test vector (RFC 4231, test case 2), base64", () => {
    const digest = Buffer.from("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", "hex").toString("base64");
    expect(signWooCommerceBody(Buffer.from("what do ya want for nothing?"), "Jefe")).toBe(digest);
  });

  it("refuses another secret, an altered body, a missing or malformed header", () => {
    expect(verifyWooCommerceSignature(body, known, "wc_secret_9f2c")).toBe(false);
    expect(verifyWooCommerceSignature(Buffer.from(body.toString().replace("727", "728")), known, "wc_secret_9f2b")).toBe(false);
    expect(verifyWooCommerceSignature(body, undefined, "wc_secret_9f2b")).toBe(false);
    expect(verifyWooCommerceSignature(body, "", "wc_secret_9f2b")).toBe(false);
    expect(verifyWooCommerceSignature(body, "not base64!", "wc_secret_9f2b")).toBe(false);
    expect(verifyWooCommerceSignature(body, Buffer.from(known, "base64").toString("hex"), "wc_secret_9f2b")).toBe(false);
    expect(verifyWooCommerceSignature(body, known.slice(0, 20), "wc_secret_9f2b")).toBe(false);
  });

  it("is over the exact bytes: UTF-8 text signs as sent", () => {
    const arabic = Buffer.from('{"billing":{"first_name":"ليلى"}}', "utf8");
    const signature = signWooCommerceBody(arabic, "s");
    expect(verifyWooCommerceSignature(arabic, signature, "s")).toBe(true);
    expect(verifyWooCommerceSignature(Buffer.from(arabic.toString("latin1"), "utf8"), signature, "s")).toBe(false);
  });

  it("recognises WooCommerce's unsigned ping, and nothing else", () => {
    expect(wooCommercePingWebhookId(Buffer.from("webhook_id=42"))).toBe("42");
    expect(wooCommercePingWebhookId(Buffer.from("webhook_id=42&x=1"))).toBeNull();
    expect(wooCommercePingWebhookId(Buffer.from("webhook_id="))).toBeNull();
    expect(wooCommercePingWebhookId(Buffer.from('{"webhook_id":42}'))).toBeNull();
    expect(wooCommercePingWebhookId(Buffer.from("webhook_id=42\n"))).toBeNull();
    expect(wooCommercePingWebhookId(Buffer.from(`webhook_id=${"1".repeat(50)}`))).toBeNull();
  });
});

describe("WooCommerce order → create-order input", () => {
  it("maps a COD order with the store's own figures, phone in the billing country's format", () => {
    const mapped = mapWooCommerceOrder(fixture(), settings);
    expect(mapped).toEqual({
      kind: "order",
      storeOrderId: "727",
      language: null,
      input: {
        externalOrderId: "woocommerce:727",
        customerName: "Layla Hassan",
        customerPhone: "966501234567",
        customerAddress: "King Fahd Road 12, Apartment 4, Riyadh, 12271, SA",
        subtotal: 179.5,
        shippingCost: 25,
        totalCost: 204.5,
        currency: "SAR",
        note: "Please call before delivery",
        items: [
          { productName: "Arabic Coffee Set", quantity: 2, unitPrice: 45, totalPrice: 90 },
          { productName: "Cotton Thobe - White", variantName: "Size: L", quantity: 1, unitPrice: 89.5, totalPrice: 89.5 },
        ],
      },
    });
  });

  it("creates nothing for a block-checkout draft", () => {
    expect(mapWooCommerceOrder({ ...fixture(), status: "checkout-draft" }, settings)).toMatchObject({
      kind: "skip",
      reason: "draft",
      storeOrderId: "727",
    });
  });

  it("skips other payment methods as not_cod, unless codOnly is off", () => {
    const card = { ...fixture(), payment_method: "stripe", payment_method_title: "Credit card" };
    expect(mapWooCommerceOrder(card, settings)).toMatchObject({ kind: "skip", reason: "not_cod", detail: "stripe" });
    expect(mapWooCommerceOrder(card, { codOnly: false, codPaymentNames: ["cod"] })).toMatchObject({ kind: "order" });
    expect(mapWooCommerceOrder({ ...fixture(), payment_method: "COD" }, settings)).toMatchObject({ kind: "order" });
    expect(mapWooCommerceOrder({ ...fixture(), payment_method: "cod_plus" }, settings)).toMatchObject({ reason: "not_cod" });
    expect(mapWooCommerceOrder({ ...fixture(), payment_method: "my_cod" }, { codOnly: true, codPaymentNames: ["cod", "my_cod"] })).toMatchObject({
      kind: "order",
    });
  });

  it("takes the shipping phone first, each with its own address's country", () => {
    const order = fixture();
    order.shipping.phone = "01012345678";
    order.shipping.country = "EG";
    expect(mapWooCommerceOrder(order, settings)).toMatchObject({ input: { customerPhone: "201012345678" } });
    order.shipping.phone = "+971 50 123 4567";
    expect(mapWooCommerceOrder(order, settings)).toMatchObject({ input: { customerPhone: "971501234567" } });
  });

  it("skips no_phone when neither address has a valid number", () => {
    const order = fixture();
    order.billing.phone = "12345";
    expect(mapWooCommerceOrder(order, settings)).toMatchObject({ kind: "skip", reason: "no_phone" });
    order.billing.phone = "";
    expect(mapWooCommerceOrder(order, settings)).toMatchObject({ kind: "skip", reason: "no_phone" });
  });

  it("reads a national number with the other address's country when its own has none", () => {
    const order = fixture();
    order.billing.country = "";
    expect(mapWooCommerceOrder(order, settings)).toMatchObject({ input: { customerPhone: "966501234567" } });
  });

  it("keeps ids as strings and refuses ids past 2^53", () => {
    expect(mapWooCommerceOrder({ ...fixture(), id: "9007199254740993" }, settings)).toMatchObject({
      input: { externalOrderId: "woocommerce:9007199254740993" },
    });
    expect(mapWooCommerceOrder({ ...fixture(), id: 9007199254740993 }, settings)).toMatchObject({ kind: "skip", reason: "invalid" });
  });

  it("skips invalid bodies with what is wrong, never throws", () => {
    expect(mapWooCommerceOrder(null, settings)).toMatchObject({ kind: "skip", reason: "invalid", storeOrderId: null });
    expect(mapWooCommerceOrder({ id: 5 }, settings)).toMatchObject({ kind: "skip", reason: "invalid", storeOrderId: "5" });
    expect(mapWooCommerceOrder({ ...fixture(), currency: "XXXX" }, settings)).toMatchObject({ reason: "invalid", detail: expect.stringContaining("currency") });
    expect(mapWooCommerceOrder({ ...fixture(), line_items: [] }, settings)).toMatchObject({ reason: "invalid", detail: expect.stringContaining("items") });
    expect(mapWooCommerceOrder({ ...fixture(), total: "abc" }, settings)).toMatchObject({ reason: "invalid" });
  });

  it("never makes an order invalid for discounts or taxes", () => {
    const order = fixture();
    order.total = "230.44";
    order.total_tax = "25.94";
    expect(mapWooCommerceOrder(order, settings)).toMatchObject({ kind: "order", input: { totalCost: 230.44, subtotal: 179.5 } });
  });

  it("takes the order's language from WPML or Polylang", () => {
    const order = fixture();
    order.meta_data.push({ id: 1, key: "wpml_language", value: "ar" });
    expect(mapWooCommerceOrder(order, settings)).toMatchObject({ language: "ar" });
  });
});

describe("WooCommerce store URL", () => {
  it("is made canonical", () => {
    expect(parseStoreUrl("https://Shop.Example.com/", false)).toEqual({ ok: true, url: "https://shop.example.com", shop: "shop.example.com" });
    expect(parseStoreUrl("shop.example.com/wp-admin/admin.php?page=wc", false)).toEqual({
      ok: true,
      url: "https://shop.example.com",
      shop: "shop.example.com",
    });
    expect(parseStoreUrl("https://example.com/store/wp-json/wc/v3/", false)).toMatchObject({ url: "https://example.com/store" });
  });

  it("requires https unless private URLs are allowed, and refuses credentials and other schemes", () => {
    expect(parseStoreUrl("http://shop.example.com", false)).toEqual({ ok: false, problem: "https_required" });
    expect(parseStoreUrl("http://127.0.0.1:8080", true)).toMatchObject({ ok: true, url: "http://127.0.0.1:8080" });
    expect(parseStoreUrl("https://user:pass@shop.example.com", false)).toEqual({ ok: false, problem: "credentials" });
    expect(parseStoreUrl("ftp://shop.example.com", false)).toEqual({ ok: false, problem: "format" });
    expect(parseStoreUrl("", false)).toEqual({ ok: false, problem: "format" });
    expect(parseStoreUrl(`https://${"a".repeat(600)}.com`, false)).toEqual({ ok: false, problem: "format" });
  });
});
