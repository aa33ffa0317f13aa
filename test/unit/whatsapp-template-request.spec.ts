import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { OrderConfirmationMessage } from "../../src/domain/messaging/messaging-provider.ts";
import { BUTTON_PAYLOAD } from "../../src/domain/messaging/messaging-provider.ts";
import {
  PARAMETER_LIMITS,
  bodyParameters,
  buildTemplateRequest,
  itemsSummary,
  templateParameter,
} from "../../src/providers/whatsapp/template-request.ts";

const ORDER_ID = "01a2027a-74a8-7762-97c0-4d6141b094c7";
const metaExample = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../fixtures/whatsapp/send-template-request.json"), "utf8"));

function message(overrides: Partial<OrderConfirmationMessage> = {}): OrderConfirmationMessage {
  return {
    orderId: ORDER_ID,
    merchantId: "0b7f6a9e-1f7c-4b8e-9a51-3f0f7a2d1c11",
    externalOrderId: "ORD-10045",
    language: "en",
    customerName: "Layla Hassan",
    customerPhone: "966501234567",
    customerAddress: "12 King Fahd Rd, Riyadh",
    items: [
      { productName: "Arabic coffee", variantName: "500 g", quantity: 1, unitPrice: 149.99, totalPrice: 149.99 },
      { productName: "Dates", variantName: null, quantity: 2, unitPrice: 25, totalPrice: 50 },
    ],
    subtotal: 199.99,
    shippingCost: 15,
    totalCost: 214.99,
    currency: "SAR",
    ...overrides,
  };
}

describe("buildTemplateRequest", () => {
  it("builds the exact body of SPEC §5.1", () => {
    expect(buildTemplateRequest(message(), "order_confirmation")).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: "+966501234567",
      type: "template",
      biz_opaque_callback_data: `order=${ORDER_ID}`,
      template: {
        name: "order_confirmation",
        language: { code: "en", policy: "deterministic" },
        components: [
          {
            type: "body",
            parameters: [
              { type: "text", text: "Layla Hassan" },
              { type: "text", text: "ORD-10045" },
              { type: "text", text: "1 × Arabic coffee (500 g), 2 × Dates" },
              { type: "text", text: "SAR\u00a0214.99" },
              { type: "text", text: "12 King Fahd Rd, Riyadh" },
            ],
          },
          { type: "button", sub_type: "quick_reply", index: "0", parameters: [{ type: "payload", payload: `APPROVE:${ORDER_ID}` }] },
          { type: "button", sub_type: "quick_reply", index: "1", parameters: [{ type: "payload", payload: `CANCEL:${ORDER_ID}` }] },
        ],
      },
    });
  });

  it("has the shape of Meta's example request (same keys at every level)", () => {
    const ours = buildTemplateRequest(message(), "order_confirmation");
    expect(Object.keys(ours).sort()).toEqual(Object.keys(metaExample).sort());
    expect(Object.keys(ours.template.language).sort()).toEqual(Object.keys(metaExample.template.language).sort());
    const exampleButton = metaExample.template.components.find((component: { type: string }) => component.type === "button");
    for (const button of ours.template.components.slice(1)) expect(Object.keys(button).sort()).toEqual(Object.keys(exampleButton).sort());
  });

  it("uses the message's language and the configured template name; payloads parse back to the order", () => {
    const request = buildTemplateRequest(message({ language: "ar" }), "order_confirmation_v2");
    expect(request.template.name).toBe("order_confirmation_v2");
    expect(request.template.language).toEqual({ code: "ar", policy: "deterministic" });
    const payloads = request.template.components.slice(1).map((component) => (component as any).parameters[0].payload);
    expect(payloads.map((payload: string) => BUTTON_PAYLOAD.parse(payload))).toEqual([
      { action: "approve", orderId: ORDER_ID },
      { action: "cancel", orderId: ORDER_ID },
    ]);
  });
});

describe("body parameters", () => {
  it("a missing or blank address is '-'", () => {
    expect(bodyParameters(message({ customerAddress: null }))[4]).toBe("-");
    expect(bodyParameters(message({ customerAddress: "  \n " }))[4]).toBe("-");
  });

  it("never carries newlines, tabs or runs of spaces (Meta error 132018)", () => {
    const parameters = bodyParameters(
      message({ customerName: "Layla\tHassan", customerAddress: "12 King Fahd Rd\nRiyadh     11564", items: [{ productName: "Coffee\r\nbeans", variantName: null, quantity: 1, unitPrice: 1, totalPrice: 1 }] }),
    );
    expect(parameters[0]).toBe("Layla Hassan");
    expect(parameters[2]).toBe("1 × Coffee beans");
    expect(parameters[4]).toBe("12 King Fahd Rd Riyadh 11564");
    for (const parameter of parameters) {
      expect(parameter).not.toMatch(/[\n\t\r]| {2,}/);
      expect(parameter.length).toBeGreaterThan(0);
    }
  });

  it("each parameter stays within its budget, and all five within Meta's 1024-character body", () => {
    const long = (n: number) => "x".repeat(n);
    const items = Array.from({ length: 100 }, (_, i) => ({ productName: `Product ${i} ${long(180)}`, variantName: long(200), quantity: 3, unitPrice: 1, totalPrice: 3 }));
    const parameters = bodyParameters(message({ customerName: long(120), externalOrderId: long(100), customerAddress: long(500), items, totalCost: 999999999999.99 }));
    const limits = [PARAMETER_LIMITS.customerName, PARAMETER_LIMITS.orderReference, PARAMETER_LIMITS.items, PARAMETER_LIMITS.total, PARAMETER_LIMITS.address];
    parameters.forEach((parameter, i) => expect(parameter.length).toBeLessThanOrEqual(limits[i]));
    expect(parameters.join("").length).toBeLessThan(800);
    expect(parameters[0].endsWith("…")).toBe(true);
    expect(parameters[1]).toBe(long(100));
  });

  it("templateParameter never splits a surrogate pair", () => {
    const text = templateParameter("😀".repeat(10), 5);
    expect(Array.from(text)).toEqual(["😀", "😀", "😀", "😀", "…"]);
  });
});

describe("itemsSummary", () => {
  const item = (productName: string, quantity = 1, variantName: string | null = null) => ({ productName, variantName, quantity, unitPrice: 1, totalPrice: quantity });

  it("lists quantity × name (variant), joined in the message's language", () => {
    const items = [item("Arabic coffee", 1, "500 g"), item("Dates", 2)];
    expect(itemsSummary(items, "en")).toBe("1 × Arabic coffee (500 g), 2 × Dates");
    expect(itemsSummary(items, "ar")).toBe("1 × Arabic coffee (500 g)، 2 × Dates");
  });

  it("cuts to whole items with '+N more' when over the limit", () => {
    const items = Array.from({ length: 10 }, (_, i) => item(`Item number ${i}`));
    const summary = itemsSummary(items, "en", 60);
    expect(summary.length).toBeLessThanOrEqual(60);
    expect(summary).toMatch(/^1 × Item number 0, 1 × Item number 1, .*\+\d+ more$/);
    const kept = summary.split(", ").length - 1;
    expect(summary.endsWith(`+${10 - kept} more`)).toBe(true);
    expect(itemsSummary(items, "ar", 60)).toMatch(/\+\d+ أخرى$/);
  });

  it("shortens a single overlong first item rather than dropping it", () => {
    const summary = itemsSummary([item("y".repeat(400)), item("Dates")], "en", 50);
    expect(summary.length).toBeLessThanOrEqual(50);
    expect(summary).toMatch(/^1 × y+…, \+1 more$/);
  });

  it("is never empty", () => {
    expect(itemsSummary([], "en")).toBe("-");
  });
});
