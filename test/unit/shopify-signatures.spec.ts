import { describe, expect, it } from "vitest";
import {
  queryHmacMessage,
  validShopDomain,
  verifyQueryHmac,
  verifyWebhookHmac,
  webhookHmac,
} from "../../src/providers/shopify/shopify-signatures.ts";

describe("Shopify signatures", () => {
  // Shopify's documented OAuth example (secret "hush"), also used by shopify-api's and other libraries' tests.
  const documented = new URLSearchParams(
    "code=0907a61c0c8d55e99db179b68161bc00&hmac=700e2dadb827fcc8609e9d5ce208b2e9cdaab9df07390d2cbca10d7c328fc4bf&shop=some-shop.myshopify.com&state=0.6784241404160823&timestamp=1337178173",
  );

  it("verifies Shopify's documented OAuth hmac example", () => {
    expect(queryHmacMessage(documented)).toBe("code=0907a61c0c8d55e99db179b68161bc00&shop=some-shop.myshopify.com&state=0.6784241404160823&timestamp=1337178173");
    expect(verifyQueryHmac(documented, "hush")).toBe(true);
    expect(verifyQueryHmac(documented, "hush2")).toBe(false);
  });

  it("refuses an altered parameter, a missing or duplicated hmac", () => {
    const altered = new URLSearchParams(documented);
    altered.set("shop", "other-shop.myshopify.com");
    expect(verifyQueryHmac(altered, "hush")).toBe(false);
    const missing = new URLSearchParams(documented);
    missing.delete("hmac");
    expect(verifyQueryHmac(missing, "hush")).toBe(false);
    const twice = new URLSearchParams(documented);
    twice.append("hmac", documented.get("hmac")!);
    expect(verifyQueryHmac(twice, "hush")).toBe(false);
  });

  it("verifies webhook bodies byte for byte (base64 HMAC-SHA256)", () => {
    // The same vector other Shopify libraries document: body "Info", secret "hush".
    expect(webhookHmac("Info", "hush")).toBe("6ufKn53YDwFjg+2HbePaB4Yy4MIOwKA30/gtUW5JHTE=");
    const body = Buffer.from('{"id":820982911946154508}');
    const header = webhookHmac(body, "secret");
    expect(verifyWebhookHmac(body, header, "secret")).toBe(true);
    expect(verifyWebhookHmac(Buffer.from('{"id":820982911946154509}'), header, "secret")).toBe(false);
    expect(verifyWebhookHmac(body, undefined, "secret")).toBe(false);
    expect(verifyWebhookHmac(body, "not-base64", "secret")).toBe(false);
  });

  it("accepts only *.myshopify.com shop domains", () => {
    expect(validShopDomain("Cod-Shop.myshopify.com")).toBe("cod-shop.myshopify.com");
    for (const bad of ["shop.myshopify.com.evil.com", "evil.com", "https://shop.myshopify.com", "shop.myshopify.com/x", "-x.myshopify.com", "", null, "a b.myshopify.com", "shop.myshopify.com:8080"]) {
      expect(validShopDomain(bad)).toBeNull();
    }
  });
});
