import { setTimeout as sleep } from "node:timers/promises";
import type { SmsMessage, SmsProvider, SmsSendResult } from "../../domain/messaging/sms-provider.ts";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../whatsapp/whatsapp-cloud.provider.ts";

export interface TwilioSettings {
  /** https://api.twilio.com, or a fake in tests (no trailing slash). */
  apiUrl: string;
  accountSid: string;
  authToken: string;
  /** A sender number (E.164) or a Messaging Service SID (MG…). */
  from: string;
  /** Where Twilio posts the message's status: PUBLIC_BASE_URL/webhooks/twilio. */
  statusCallbackUrl: () => string;
  timeoutMs: number;
}

const UNKNOWN_FAILURE = "Unknown failure";

type Attempt =
  | { kind: "accepted"; sid: string }
  | { kind: "rejected"; code: number | null; message: string }
  | { kind: "transient"; code: number | null; message: string | null; detail: string };

/**
 * Live-mode SMS through Twilio's Messages API, by hand over the platform fetch (one form-encoded POST with basic
 * auth; the official `twilio` package would bring axios and a large tree for this one call, and does not let us
 * bound retries and timeouts the way the WhatsApp provider does). HTTP 5xx, 429, network errors and timeouts are
 * retried within the same bound as WhatsApp sends (3 attempts in about 3 s); any other answer is final.
 */
export class TwilioSmsProvider implements SmsProvider {
  readonly name = "twilio";
  private readonly endpoint: string;
  private readonly authorization: string;

  constructor(
    private readonly settings: TwilioSettings,
    private readonly retry: RetryPolicy = DEFAULT_RETRY_POLICY,
  ) {
    this.endpoint = `${settings.apiUrl.replace(/\/+$/, "")}/2010-04-01/Accounts/${encodeURIComponent(settings.accountSid)}/Messages.json`;
    this.authorization = `Basic ${Buffer.from(`${settings.accountSid}:${settings.authToken}`).toString("base64")}`;
  }

  async sendSms(message: SmsMessage): Promise<SmsSendResult> {
    const form = new URLSearchParams({ To: `+${message.to}` });
    if (/^MG[0-9a-fA-F]{32}$/.test(this.settings.from)) form.set("MessagingServiceSid", this.settings.from);
    else form.set("From", this.settings.from);
    form.set("Body", message.body);
    form.set("StatusCallback", this.settings.statusCallbackUrl());
    const body = form.toString();
    const started = Date.now();
    const details: string[] = [];
    let last: Extract<Attempt, { kind: "transient" }> | null = null;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(body);
      if (outcome.kind === "accepted") return { outcome: "accepted", providerMessageId: outcome.sid };
      if (outcome.kind === "rejected") return { outcome: "rejected", errorCode: outcome.code, failureReason: outcome.message };
      last = outcome;
      details.push(`attempt ${attempt}: ${outcome.detail}`);
      const delay = this.retry.backoffMs(attempt);
      if (attempt >= this.retry.maxAttempts || Date.now() - started + delay > this.retry.budgetMs) {
        return { outcome: "unavailable", errorCode: last.code, failureReason: last.message ?? UNKNOWN_FAILURE, detail: details.join("; ") };
      }
      await sleep(delay);
    }
  }

  private async attempt(body: string): Promise<Attempt> {
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.endpoint, {
        method: "POST",
        headers: { authorization: this.authorization, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body,
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      return { kind: "transient", code: null, message: null, detail: describeFetchError(error, this.settings.timeoutMs) };
    }
    const parsed = parseJson(text);
    const code = typeof parsed?.code === "number" && Number.isInteger(parsed.code) ? parsed.code : null;
    const message = typeof parsed?.message === "string" && parsed.message.trim() ? parsed.message.trim().slice(0, 1000) : null;
    if (response.status === 201 || response.status === 200) {
      const sid = typeof parsed?.sid === "string" && /^(SM|MM)[0-9a-fA-F]{32}$/.test(parsed.sid) ? parsed.sid : null;
      // Accepted without a SID we can match callbacks to: treat as an answer we cannot trust (not retried: it may have gone).
      if (!sid) return { kind: "rejected", code: null, message: UNKNOWN_FAILURE };
      return { kind: "accepted", sid };
    }
    if (response.status === 429 || response.status >= 500) {
      return { kind: "transient", code, message, detail: `HTTP ${response.status}${code ? ` (${code})` : ""}` };
    }
    return { kind: "rejected", code, message: message ?? `HTTP ${response.status}` };
  }
}

function parseJson(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function describeFetchError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) return `timed out after ${timeoutMs} ms`;
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  return `network error: ${cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error))}`;
}
