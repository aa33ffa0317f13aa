/**
 * The create-order body every benchmark request sends (the same shape as test/support/fixtures.ts), with a
 * caller-chosen externalOrderId so each POST is a new order. Shared by the seeding code and the load worker.
 */
export function benchOrderBody(externalOrderId: string) {
  return {
    externalOrderId,
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
  };
}

export type BenchOrderBody = ReturnType<typeof benchOrderBody>;
