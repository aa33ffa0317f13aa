import { setTimeout as sleep } from "node:timers/promises";
import type { ConversationMessage, MessagingProvider, OrderConfirmationMessage, SendResult } from "../../domain/messaging/messaging-provider.ts";
import { buildConversationRequest, buildMarkReadRequest } from "./conversation-request.ts";
import { classifyResponse, failureReasonOf, UNKNOWN_FAILURE, type AttemptOutcome, type GraphError } from "./graph-errors.ts";
import { buildTemplateRequest } from "./template-request.ts";

export interface WhatsAppCloudSettings {
  /** Graph API base URL with its version, e.g. https://graph.facebook.com/v26.0 (no trailing slash). */
  apiUrl: string;
  phoneNumberId: string;
  accessToken: string;
  templateName: string;
  /** The approved reminder template (same parameters and buttons as `templateName`). */
  reminderTemplateName: string;
  /** Per-request timeout. */
  timeoutMs: number;
}

/** At most two retries, none started once `budgetMs` has gone by (SPEC §5.1: "at most twice within about 3 s"). */
export interface RetryPolicy {
  maxAttempts: number;
  budgetMs: number;
  /** Delay before attempt `attempt + 1`, jitter included. */
  backoffMs(attempt: number): number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  budgetMs: 3000,
  // 250 ms then 750 ms, each scaled by a random 0.5–1.5 so that senders who failed together do not retry together.
  backoffMs: (attempt) => 250 * 3 ** (attempt - 1) * (0.5 + Math.random()),
};

/**
 * Live-mode provider: sends the approved utility template through the WhatsApp Cloud API with the
 * platform fetch. Transient failures are retried within the policy; the answer becomes a SendResult.
 */
export class WhatsAppCloudProvider implements MessagingProvider {
  readonly name = "whatsapp";
  private readonly endpoint: string;

  constructor(
    private readonly settings: WhatsAppCloudSettings,
    private readonly retry: RetryPolicy = DEFAULT_RETRY_POLICY,
  ) {
    this.endpoint = `${settings.apiUrl.replace(/\/+$/, "")}/${encodeURIComponent(settings.phoneNumberId)}/messages`;
  }

  async sendOrderConfirmation(message: OrderConfirmationMessage): Promise<SendResult> {
    return this.send(JSON.stringify(buildTemplateRequest(message, this.settings.templateName, this.settings.reminderTemplateName)));
  }

  /** A free-form message inside the customer's window (SPEC §11), with the same bounded retry. */
  async sendConversationMessage(message: ConversationMessage): Promise<SendResult> {
    return this.send(JSON.stringify(buildConversationRequest(message)));
  }

  /** One attempt, no retry: a read receipt that does not arrive changes nothing for anyone. */
  async markRead(providerMessageId: string): Promise<void> {
    await this.attempt(JSON.stringify(buildMarkReadRequest(providerMessageId)));
  }

  private async send(body: string): Promise<SendResult> {
    const started = Date.now();
    // The last Graph error seen on any attempt: its code is reported even if a later attempt timed out.
    let lastGraphError: GraphError | null = null;
    const details: string[] = [];
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(body);
      switch (outcome.kind) {
        case "accepted":
          return { outcome: "accepted", providerMessageId: outcome.providerMessageId };
        case "rejected":
          return { outcome: "rejected", errorCode: outcome.error?.code ?? null, failureReason: failureReasonOf(outcome.error) };
        case "unknown":
          return { outcome: "unavailable", errorCode: null, failureReason: UNKNOWN_FAILURE, detail: outcome.detail };
      }
      lastGraphError = outcome.error ?? lastGraphError;
      details.push(`attempt ${attempt}: ${outcome.detail}`);
      const delay = this.retry.backoffMs(attempt);
      if (attempt >= this.retry.maxAttempts || Date.now() - started + delay > this.retry.budgetMs) {
        return {
          outcome: "unavailable",
          errorCode: lastGraphError?.code ?? null,
          failureReason: failureReasonOf(lastGraphError),
          detail: details.join("; "),
        };
      }
      await sleep(delay);
    }
  }

  private async attempt(body: string): Promise<AttemptOutcome> {
    try {
      const response = await fetch(this.endpoint, {
        method: "POST",
        headers: {
          authorization: `Bearer ${this.settings.accessToken}`,
          "content-type": "application/json",
          accept: "application/json",
        },
        body,
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
      const text = await response.text();
      let parsed: unknown = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = null; // not JSON: classified on the status alone
      }
      return classifyResponse(response.status, parsed);
    } catch (error) {
      return { kind: "transient", error: null, detail: describeFetchError(error, this.settings.timeoutMs) };
    }
  }
}

function describeFetchError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) return `timed out after ${timeoutMs} ms`;
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  const reason = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return `network error: ${reason}`;
}
