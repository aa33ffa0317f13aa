import type { MessagingProvider, SendResult } from "../domain/messaging/messaging-provider.ts";

/** Live mode without WhatsApp credentials: every send fails with a clear, actionable reason. */
export class UnconfiguredProvider implements MessagingProvider {
  readonly name = "unconfigured";

  async sendOrderConfirmation(): Promise<SendResult> {
    return {
      outcome: "not_configured",
      detail: "WhatsApp is not configured: set WHATSAPP_PHONE_NUMBER_ID, WHATSAPP_ACCESS_TOKEN and WHATSAPP_APP_SECRET",
    };
  }

  async sendConversationMessage(): Promise<SendResult> {
    return this.sendOrderConfirmation();
  }

  async markRead(): Promise<void> {}
}
