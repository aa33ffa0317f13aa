import type { SmsMessage, SmsProvider, SmsSendResult } from "../../domain/messaging/sms-provider.ts";
import { randomIdText } from "../../domain/ids.ts";
import type { SimulatedPhones } from "./simulated-phones.ts";

/**
 * Test-mode SMS: shown on the simulated phone (the /simulator page shows it as an SMS with its link); its
 * delivery is driven by POST /api/v1/test/orders/{id}/sms-delivery.
 */
export class SimulatorSmsProvider implements SmsProvider {
  readonly name = "simulator";

  constructor(private readonly phones: SimulatedPhones) {}

  async sendSms(message: SmsMessage): Promise<SmsSendResult> {
    const id = `SMSIM${randomIdText(18)}`;
    this.phones.deliver({
      id,
      orderId: message.orderId,
      merchantId: message.merchantId,
      reminder: message.reminder ?? null,
      channel: "sms",
      phone: message.to,
      language: message.language,
      text: message.body,
      buttons: { approve: "", cancel: "" },
      sentAt: new Date().toISOString(),
    });
    return { outcome: "accepted", providerMessageId: id };
  }
}
