import { randomUUID } from "node:crypto";

/** A valid create-order body; every test gets a unique externalOrderId unless it sets one. */
export function orderInput(overrides: Record<string, unknown> = {}) {
  return {
    externalOrderId: `ORD-${randomUUID().slice(0, 8)}`,
    customerName: "Layla Hassan",
    customerPhone: "966501234567",
    customerAddress: "12 King Fahd Rd, Riyadh",
    subtotal: 149.99,
    shippingCost: 15,
    totalCost: 164.99,
    currency: "SAR",
    note: "Leave at the door",
    items: [
      { productName: "Arabic coffee", variantName: "500 g", quantity: 1, unitPrice: 99.99, totalPrice: 99.99 },
      { productName: "Dates", quantity: 2, unitPrice: 25, totalPrice: 50 },
    ],
    ...overrides,
  };
}

/** The seed's order fields, in order: what every order body and event `data` must carry, and nothing else. */
export const ORDER_FIELDS = [
  "id",
  "externalOrderId",
  "status",
  "customerAction",
  "deliveryStatus",
  "customerName",
  "customerPhone",
  "customerAddress",
  "subtotal",
  "shippingCost",
  "totalCost",
  "currency",
  "failureReason",
  "errorCode",
  "items",
  "createdAt",
  "updatedAt",
];

export const ITEM_FIELDS = ["id", "productName", "variantName", "quantity", "unitPrice", "totalPrice"];

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
