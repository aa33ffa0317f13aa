import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { OrderConfirmationMessage } from "../../src/domain/messaging/messaging-provider.ts";
import { WhatsAppCloudProvider, type RetryPolicy } from "../../src/providers/whatsapp/whatsapp-cloud.provider.ts";
import { FakeWhatsApp, reply } from "../support/fake-whatsapp.ts";

/** The retry loop against the fake Graph API (loopback HTTP), with policies a test can reason about. */
let fake: FakeWhatsApp;
beforeAll(async () => (fake = await FakeWhatsApp.start()));
afterAll(() => fake?.close());
beforeEach(() => fake.reset());

const message: OrderConfirmationMessage = {
  orderId: "01a2027a-74a8-7762-97c0-4d6141b094c7",
  merchantId: "0b7f6a9e-1f7c-4b8e-9a51-3f0f7a2d1c11",
  externalOrderId: "ORD-1",
  language: "en",
  customerName: "Alex",
  customerPhone: "447700900123",
  customerAddress: null,
  items: [{ productName: "Tea", variantName: null, quantity: 1, unitPrice: 5, totalPrice: 5 }],
  subtotal: 5,
  shippingCost: 0,
  totalCost: 5,
  currency: "GBP",
};

// A generous per-request timeout by default: on a loaded machine the first request can take longer than a short
// one, and a timed-out first attempt would be retried (two requests where the test expects one). The timeout
// test sets its own short one.
const provider = (policy: Partial<RetryPolicy> = {}, timeoutMs = 5_000) =>
  new WhatsAppCloudProvider(
    { apiUrl: `${fake.apiUrl}/`, phoneNumberId: "271828182845904", accessToken: "secret-token", templateName: "order_confirmation", reminderTemplateName: "order_confirmation_reminder", timeoutMs },
    { maxAttempts: 3, budgetMs: 3000, backoffMs: () => 10, ...policy },
  );

describe("WhatsAppCloudProvider", () => {
  it("accepted: the wamid of the answer, one request to {apiUrl}/{phoneNumberId}/messages", async () => {
    const result = await provider().sendOrderConfirmation(message);
    expect(result).toEqual({ outcome: "accepted", providerMessageId: expect.stringMatching(/^wamid\./) });
    expect(fake.requests.map((request) => request.path)).toEqual(["/v26.0/271828182845904/messages"]);
  });

  it("no retry is started once the time budget would be exceeded", async () => {
    fake.forRecipient(message.customerPhone, reply.graphError(131000));
    const result = await provider({ budgetMs: 5 }).sendOrderConfirmation(message);
    expect(result).toMatchObject({ outcome: "unavailable", errorCode: 131000, failureReason: "(#131000) Something went wrong" });
    expect(fake.requests).toHaveLength(1);
  });

  it("gives up after maxAttempts; the detail lists each attempt and never the token", async () => {
    fake.forRecipient(message.customerPhone, reply.status(500, "oops"));
    const result = await provider().sendOrderConfirmation(message);
    expect(fake.requests).toHaveLength(3);
    expect(result).toMatchObject({ outcome: "unavailable", errorCode: null, failureReason: "Unknown failure" });
    if (result.outcome !== "unavailable") throw new Error("unreachable");
    expect(result.detail).toMatch(/^attempt 1: HTTP 500 .*; attempt 2: .*; attempt 3: /);
    expect(result.detail).not.toContain("secret-token");
  });

  it("a 200 without a wamid is not sent again (the message may have gone out)", async () => {
    fake.forRecipient(message.customerPhone, reply.status(200, "{}", "application/json"));
    const result = await provider().sendOrderConfirmation(message);
    expect(result).toMatchObject({ outcome: "unavailable", errorCode: null });
    expect(fake.requests).toHaveLength(1);
  });

  it("a timeout is reported as such", async () => {
    fake.forRecipient(message.customerPhone, reply.delay(1000));
    const result = await provider({ maxAttempts: 1 }, 200).sendOrderConfirmation(message);
    expect(result).toMatchObject({ outcome: "unavailable", errorCode: null, detail: "attempt 1: timed out after 200 ms" });
  });
});
