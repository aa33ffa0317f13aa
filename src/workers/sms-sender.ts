import type { Logger } from "pino";
import type { SmsProvider, SmsSendResult } from "../domain/messaging/sms-provider.ts";
import { measureSms, renderSmsText } from "../domain/messaging/sms-text.ts";
import type { OrderEventBus } from "../domain/orders/order-events.bus.ts";
import type { MerchantScope } from "../domain/orders/order.repository.ts";
import type { SmsOutboxRepository, SmsToSend } from "../domain/sms/sms-outbox.repository.ts";
import { throttledWarn } from "../logger.ts";
import { CoalescedRounds } from "./coalesced-rounds.ts";

/**
 * Sends the SMS outbox (SPEC §12): the fallback SMS of orders whose first WhatsApp message failed with a listed
 * code, and their reminders by SMS. Like the confirmation scheduler, the database is the source of truth: rows are
 * claimed `FOR UPDATE SKIP LOCKED` with a lease (any number of instances share them), the send is decided under
 * the order's row lock and marked `sending` before the request leaves, and a send whose result was never recorded
 * (kill -9 mid-send) is recorded failed by the lease recovery, never sent again. Timers only wake the worker.
 */
export interface SmsSenderDeps {
  outbox: SmsOutboxRepository;
  /** The SMS provider of a mode; null when that mode has none (live without SMS_PROVIDER). */
  providers: { forMode(mode: MerchantScope["mode"]): SmsProvider | null };
  /** The confirmation page's URL of an order (PUBLIC_BASE_URL/c/<token>). */
  pageUrl: (orderId: string) => string;
  bus: OrderEventBus;
  logger: Logger;
  clock?: () => Date;
}

export interface SmsSenderOptions {
  /** One send's own bound (the provider's timeout and retries); the send lease outlives it. */
  sendTimeoutMs: number;
  pollIntervalMs?: number;
  concurrency?: number;
}

const CLAIM_LEASE_SECONDS = 30;
const SEND_LEASE_MARGIN_SECONDS = 10;
const LEASE_RECOVERY_INTERVAL_MS = 5_000;

export class SmsSender {
  private readonly options: Required<SmsSenderOptions>;
  private readonly clock: () => Date;
  private readonly warn: (details: object, message: string) => void;
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  private readonly rounds = new CoalescedRounds(() => this.work(), () => !this.stopped);
  private lastRecovery = 0;
  private readonly claimed = new Set<string>();

  constructor(
    private readonly deps: SmsSenderDeps,
    options: SmsSenderOptions,
  ) {
    this.options = { pollIntervalMs: 1000, concurrency: 8, ...options };
    this.clock = deps.clock ?? (() => new Date());
    this.warn = throttledWarn(deps.logger);
  }

  start(): void {
    this.stopped = false;
    this.wake();
  }

  wake(): void {
    this.rounds.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.rounds.settled();
    await this.deps.outbox.releaseClaims([...this.claimed]).catch(() => undefined);
    this.claimed.clear();
  }

  private async work(): Promise<void> {
    // A round that starts now makes the armed timer's round unneeded; the round arms the next one.
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    try {
      if (Date.now() - this.lastRecovery >= LEASE_RECOVERY_INTERVAL_MS) {
        this.lastRecovery = Date.now();
        const interrupted = await this.deps.outbox.recoverLeases(this.clock());
        if (interrupted) this.deps.logger.warn({ count: interrupted }, "SMS sends interrupted by a crash recorded as failed (never repeated)");
      }
      while (!this.stopped) {
        const ids = await this.deps.outbox.claimDue(this.clock(), this.options.concurrency, CLAIM_LEASE_SECONDS);
        if (ids.length === 0) break;
        for (const id of ids) this.claimed.add(id);
        await Promise.all(ids.map((id) => this.sendOne(id)));
      }
      await this.armTimer();
    } catch (error) {
      this.warn({ err: error }, "SMS sender round failed; retrying");
      this.arm(this.options.pollIntervalMs);
    }
  }

  private async sendOne(smsId: string): Promise<void> {
    const { outbox, logger } = this.deps;
    try {
      const leaseSeconds = Math.ceil(this.options.sendTimeoutMs / 1000) + SEND_LEASE_MARGIN_SECONDS;
      if (this.stopped) return; // still claimed: released by stop()
      const decided = await outbox.beginSend(smsId, this.clock(), leaseSeconds);
      this.claimed.delete(smsId);
      if (decided === "skipped") return;
      const body = renderSmsText({
        kind: decided.kind,
        language: decided.language,
        merchantName: decided.merchantName,
        externalOrderId: decided.externalOrderId,
        totalCost: decided.totalCost,
        currency: decided.currency,
        url: this.deps.pageUrl(decided.orderId),
      });
      const segments = measureSms(body).segments;
      const provider = this.deps.providers.forMode(decided.mode);
      const result = provider ? await this.send(provider, decided, body) : null;
      if (result?.outcome === "accepted") {
        await outbox.recordSent(smsId, { provider: provider!.name, providerMessageId: result.providerMessageId, body, segments }, this.clock());
        return;
      }
      const failure = result
        ? { errorCode: result.errorCode, failureReason: result.failureReason }
        : { errorCode: null, failureReason: "SMS is not configured (SMS_PROVIDER)" };
      const failed = await outbox.recordFailed(smsId, failure, this.clock(), { text: body, segments });
      if (failed.event) this.deps.bus.publish(failed.event);
      logger.info({ orderId: decided.orderId, sms: decided.kind, outcome: result?.outcome ?? "not_configured", ...failure }, "SMS not sent");
    } catch (error) {
      // The lease recovers it: a claim goes back to the outbox, a decided send is recorded failed.
      this.warn({ err: error, smsId }, "SMS send could not be recorded");
    }
  }

  private send(provider: SmsProvider, sms: SmsToSend, body: string): Promise<SmsSendResult> {
    return provider
      .sendSms({
        smsId: sms.smsId,
        orderId: sms.orderId,
        merchantId: sms.merchantId,
        to: sms.to,
        body,
        language: sms.language,
        reminder: sms.kind === "reminder" ? sms.position : null,
      })
      .catch((error: unknown) => {
        this.deps.logger.error({ err: error, orderId: sms.orderId }, "SMS send threw");
        return { outcome: "unavailable", errorCode: null, failureReason: "Unknown failure", detail: String(error) } as const;
      });
  }

  private async armTimer(): Promise<void> {
    if (this.stopped) return;
    const next = await this.deps.outbox.nextDueAt();
    const untilDue = next ? next.getTime() - this.clock().getTime() : Number.POSITIVE_INFINITY;
    this.arm(untilDue <= 0 ? 50 : Math.min(untilDue, this.options.pollIntervalMs));
  }

  private arm(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), delayMs);
    this.timer.unref();
  }
}
