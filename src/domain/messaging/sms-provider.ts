import type { Language } from "./messaging-provider.ts";

/**
 * The port through which SMS leave (SPEC §12): the fallback when WhatsApp cannot deliver, and the reminders of
 * such an order. Adapters: the simulator (test mode) and Twilio's Messages API (live mode).
 */
export interface SmsMessage {
  /** Our SMS record's id. */
  smsId: string;
  orderId: string;
  merchantId: string;
  /** Digits with country code, no leading + (the adapter formats it for the provider). */
  to: string;
  body: string;
  language: Language;
  /** The reminder's number (1..3), or null for the fallback SMS. */
  reminder: number | null;
}

export type SmsSendResult =
  /** The provider took it (Twilio: HTTP 201 with a Message SID). */
  | { outcome: "accepted"; providerMessageId: string }
  /** Refused for good (Twilio: a 4xx with its error code, e.g. 21211 invalid To). */
  | { outcome: "rejected"; errorCode: number | null; failureReason: string }
  /** Unreachable, timed out or still failing transiently after the bounded retry. */
  | { outcome: "unavailable"; errorCode: number | null; failureReason: string; detail: string };

export interface SmsProvider {
  readonly name: string;
  sendSms(message: SmsMessage): Promise<SmsSendResult>;
}
