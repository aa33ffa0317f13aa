import type { ConversationMessage, MessagingProvider, OrderConfirmationMessage, SendResult } from "../../domain/messaging/messaging-provider.ts";
import { buttonTitles, renderConfirmationText, renderReminderText } from "../../domain/messaging/confirmation-text.ts";
import type { SimulatedPhones } from "./simulated-phones.ts";
import { randomIdText } from "../../domain/ids.ts";

/**
 * Test-mode provider: "sends" to an in-process simulated phone and never reaches WhatsApp.
 *
 * Magic numbers let integrators exercise failure paths without a real provider: a phone number `999<code>`
 * is rejected synchronously with Graph error `<code>` (e.g. 999131030: recipient not in the allowed list),
 * and `9990000000` behaves like an unreachable provider.
 */
const KNOWN_REJECTIONS: Record<number, string> = {
  100: "(#100) Invalid parameter",
  190: "Error validating access token: Session has expired",
  131026: "(#131026) Message undeliverable",
  131030: "(#131030) Recipient phone number not in allowed list",
  131045: "(#131045) Incorrect certificate",
  131048: "(#131048) Spam rate limit hit",
  131056: "(#131056) (Business Account, Consumer Account) pair rate limit hit",
  132001: "(#132001) Template name does not exist in the translation",
  132015: "(#132015) Template is Paused",
  132016: "(#132016) Template is Disabled",
  133010: "(#133010) Phone number Not Registered",
};

export const SIMULATOR_UNREACHABLE_PHONE = "9990000000";

export function simulatedOutcome(phone: string): { rejectWith?: number; unreachable?: boolean } {
  if (phone === SIMULATOR_UNREACHABLE_PHONE) return { unreachable: true };
  const match = /^999(\d{1,6})$/.exec(phone);
  if (match && Number(match[1]) > 0) return { rejectWith: Number(match[1]) };
  return {};
}

export class SimulatorProvider implements MessagingProvider {
  readonly name = "simulator";

  constructor(private readonly phones: SimulatedPhones) {}

  async sendOrderConfirmation(message: OrderConfirmationMessage): Promise<SendResult> {
    const outcome = simulatedOutcome(message.customerPhone);
    if (outcome.unreachable) {
      return { outcome: "unavailable", errorCode: null, failureReason: "Unknown failure", detail: "simulated timeout" };
    }
    if (outcome.rejectWith !== undefined) {
      const code = outcome.rejectWith;
      return { outcome: "rejected", errorCode: code, failureReason: KNOWN_REJECTIONS[code] ?? `(#${code}) Simulated rejection` };
    }
    const id = `wamid.SIM${randomIdText(18)}`;
    this.phones.deliver({
      id,
      orderId: message.orderId,
      merchantId: message.merchantId,
      reminder: message.reminder ?? null,
      phone: message.customerPhone,
      language: message.language,
      text: message.reminder ? renderReminderText(message) : renderConfirmationText(message),
      buttons: buttonTitles(message.language),
      sentAt: new Date().toISOString(),
    });
    return { outcome: "accepted", providerMessageId: id };
  }

  /** A free-form message of the conversation (SPEC §11), shown on the simulated phone as it would appear. */
  async sendConversationMessage(message: ConversationMessage): Promise<SendResult> {
    const outcome = simulatedOutcome(message.customerPhone);
    if (outcome.unreachable) return { outcome: "unavailable", errorCode: null, failureReason: "Unknown failure", detail: "simulated timeout" };
    const id = `wamid.SIM${randomIdText(18)}`;
    const { content } = message;
    this.phones.deliver({
      id,
      orderId: message.orderId,
      merchantId: message.merchantId,
      reminder: null,
      phone: message.customerPhone,
      language: message.language,
      text: content.body,
      buttons: buttonTitles(message.language),
      sentAt: new Date().toISOString(),
      kind: content.type,
      sender: content.type === "text" ? "merchant" : "service",
      hasButtons: content.type === "buttons",
      rows: content.type === "list" ? content.rows : undefined,
    });
    return { outcome: "accepted", providerMessageId: id };
  }

  /** The simulated phone has no read receipts to send back. */
  async markRead(): Promise<void> {}
}
