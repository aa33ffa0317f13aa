import { describe, expect, it } from "vitest";
import { measureSms, renderSmsText, type SmsTextInput } from "../../src/domain/messaging/sms-text.ts";

describe("measureSms", () => {
  it("counts GSM-7 septets, the extension characters as two", () => {
    expect(measureSms("a".repeat(160))).toEqual({ encoding: "GSM-7", units: 160, segments: 1 });
    expect(measureSms("a".repeat(161))).toEqual({ encoding: "GSM-7", units: 161, segments: 2 });
    expect(measureSms("a".repeat(306))).toEqual({ encoding: "GSM-7", units: 306, segments: 2 });
    expect(measureSms("a".repeat(307))).toEqual({ encoding: "GSM-7", units: 307, segments: 3 });
    expect(measureSms("€".repeat(80))).toEqual({ encoding: "GSM-7", units: 160, segments: 1 });
    expect(measureSms("{}[]~|^\\")).toMatchObject({ encoding: "GSM-7", units: 16 });
    // An escape pair never straddles two segments: 152 septets then a two-septet character opens the second.
    expect(measureSms(`${"a".repeat(152)}€${"a".repeat(152)}`)).toMatchObject({ units: 306, segments: 3 });
    expect(measureSms("é à ñ Ä ¿ £ ¥ @ _")).toMatchObject({ encoding: "GSM-7" });
  });

  it("counts UCS-2 in UTF-16 units: Arabic, emoji and characters outside GSM-7", () => {
    expect(measureSms("م".repeat(70))).toEqual({ encoding: "UCS-2", units: 70, segments: 1 });
    expect(measureSms("م".repeat(71))).toEqual({ encoding: "UCS-2", units: 71, segments: 2 });
    expect(measureSms("م".repeat(134))).toEqual({ encoding: "UCS-2", units: 134, segments: 2 });
    expect(measureSms("م".repeat(135))).toEqual({ encoding: "UCS-2", units: 135, segments: 3 });
    expect(measureSms(`${"a".repeat(100)}ç`)).toMatchObject({ encoding: "UCS-2", segments: 2 });
    expect(measureSms("😀")).toEqual({ encoding: "UCS-2", units: 2, segments: 1 });
    expect(measureSms("a\u00a0b").encoding).toBe("UCS-2");
  });
});

describe("renderSmsText", () => {
  const url = `https://confirm.example.com/c/${"A".repeat(43)}`;
  const base: SmsTextInput = {
    kind: "fallback",
    language: "en",
    merchantName: "Dates Shop",
    externalOrderId: "ORD-1042",
    totalCost: 164.99,
    currency: "SAR",
    url,
  };

  it("English: shop, reference, total and the URL in one GSM-7 segment", () => {
    const text = renderSmsText(base);
    expect(text).toBe(`Dates Shop: please confirm your order ORD-1042 (SAR 164.99): ${url}`);
    expect(measureSms(text)).toMatchObject({ encoding: "GSM-7", segments: 1 });
  });

  it("Arabic is UCS-2 and fits two segments", () => {
    const text = renderSmsText({ ...base, language: "ar", merchantName: "متجر التمور" });
    expect(text).toContain("يرجى تأكيد طلبك ORD-1042");
    expect(text).toContain(url);
    expect(text).toContain("164.99");
    const length = measureSms(text);
    expect(length.encoding).toBe("UCS-2");
    expect(length.segments).toBeLessThanOrEqual(2);
  });

  it("the longest shop names and references are shortened to two segments, the URL kept whole", () => {
    for (const language of ["en", "ar"] as const) {
      for (const kind of ["fallback", "reminder"] as const) {
        for (const merchantName of ["M".repeat(200), "متجر".repeat(50), "Shop 😀".repeat(28)]) {
          const text = renderSmsText({ ...base, language, kind, merchantName, externalOrderId: "R".repeat(100), totalCost: 123456789.99 });
          expect(measureSms(text).segments, `${language} ${kind} ${merchantName.slice(0, 8)}`).toBeLessThanOrEqual(2);
          expect(text.endsWith(url)).toBe(true);
          expect(text).toContain("...");
        }
      }
    }
    const english = renderSmsText({ ...base, merchantName: "M".repeat(200), externalOrderId: "R".repeat(100) });
    expect(measureSms(english)).toMatchObject({ encoding: "GSM-7", segments: 2 });
  });

  it("control characters in names never reach the SMS", () => {
    expect(renderSmsText({ ...base, merchantName: "Dates\n\tShop\u0007" })).toMatch(/^Dates Shop: /);
  });
});
