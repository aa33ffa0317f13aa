import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import type { OrderExpiryRepository } from "../domain/confirmation/order-expiry.repository.ts";
import type { OrderTaskRepository, ReminderToSend } from "../domain/confirmation/order-task.repository.ts";
import type { SendResult } from "../domain/messaging/messaging-provider.ts";
import type { OrderEventBus } from "../domain/orders/order-events.bus.ts";
import { confirmationOf, type ProviderRouter } from "../domain/orders/order.service.ts";
import { throttledWarn } from "../logger.ts";
import type { Metrics } from "../metrics.ts";
import { CoalescedRounds } from "./coalesced-rounds.ts";

/**
 * Carries out merchants' confirmation policies (SPEC §9): sends due reminders and expires orders nobody
 * answered.
 *
 * The database is the source of truth: each order's reminders and expiry are rows of `order_tasks` with their
 * due time, written with the order. Work is claimed `FOR UPDATE SKIP LOCKED` with a lease, so any number of
 * instances share it and a crashed instance's claims return to the schedule when their lease runs out. A
 * reminder is sent at most once: its send is decided under the order's row lock (never after a tap or a
 * cancel) and marked `sending` before the request leaves; a send whose result was never recorded (kill -9
 * mid-send) is recorded as failed, not repeated. Timers only wake the worker: it looks for due work at the
 * earliest due time it knows of, and at least every `pollIntervalMs` (other instances' orders).
 *
 * Sends are paced to `maxSendsPerSecond` across all instances (each send decision takes a token from one
 * bucket row in the database) and evenly within this one, so a backlog never trips the provider's throughput
 * limit (Meta's 130429).
 */
export interface ConfirmationSchedulerOptions {
  maxSendsPerSecond: number;
  /** A reminder send's own bound (provider timeout and retries); its lease outlives it. */
  sendTimeoutMs: number;
  pollIntervalMs?: number;
  /** Reminder sends in flight in this instance. */
  concurrency?: number;
  /** Expiries per transaction. */
  expiryBatch?: number;
}

export interface ConfirmationSchedulerDeps {
  tasks: OrderTaskRepository;
  expiries: OrderExpiryRepository;
  providers: ProviderRouter;
  bus: OrderEventBus;
  logger: Logger;
  metrics: Pick<Metrics, "remindersSent" | "ordersExpired">;
  clock?: () => Date;
}

const THROTTLE_NAME = "whatsapp-reminders";
/**
 * A claim waits at most about a second for its paced turn and its token (see sendDueReminders), so a claim
 * lease this long only runs out when its instance died; its reminders then go back to the schedule.
 */
const CLAIM_LEASE_SECONDS = 10;
/** A send decided but not recorded within its own bound plus this margin was interrupted by a crash. */
const SEND_LEASE_MARGIN_SECONDS = 10;
/** While a backlog of reminders is being sent, expiries are looked at this often. */
const EXPIRY_CHECK_DURING_SENDS_MS = 1_000;
const LEASE_RECOVERY_INTERVAL_MS = 5_000;

/**
 * The shared token bucket for `rate` sends per second: it holds about 100 ms of sends (claims stay small, so
 * every instance gets its share) and refills at `rate` less that burst, so no one-second window carries more
 * than `rate` sends however the claims fall (a token bucket allows its burst on top of its refill).
 */
export function bucketFor(rate: number): { burst: number; refillPerSecond: number } {
  const burst = Math.max(1, Math.floor(rate / 10));
  return { burst, refillPerSecond: Math.max(rate - burst, rate / 2) };
}

export class ConfirmationScheduler {
  private readonly options: Required<ConfirmationSchedulerOptions>;
  private readonly clock: () => Date;
  private readonly warn: (details: object, message: string) => void;
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  private readonly rounds = new CoalescedRounds(() => this.work(), () => !this.stopped);
  private readonly sends = new Set<Promise<void>>();
  /** Claimed by this instance, not yet decided: released on stop. */
  private readonly claimed = new Set<string>();
  private nextSendAt = 0;
  private lastRecovery = 0;

  constructor(
    private readonly deps: ConfirmationSchedulerDeps,
    options: ConfirmationSchedulerOptions,
  ) {
    this.options = { pollIntervalMs: 1000, concurrency: 16, expiryBatch: 200, ...options };
    this.clock = deps.clock ?? (() => new Date());
    this.warn = throttledWarn(deps.logger);
  }

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Looks for due work now (coalesced with a round already running). */
  wake(): void {
    this.rounds.wake();
  }

  /** Stops claiming, lets sends under way finish (their own timeout bounds them) and hands back the rest. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.rounds.settled();
    await Promise.allSettled([...this.sends]);
    await this.deps.tasks.releaseClaims([...this.claimed]).catch(() => undefined);
    this.claimed.clear();
  }

  private async work(): Promise<void> {
    // A round that starts now makes the armed timer's round unneeded; the round arms the next one.
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    try {
      await this.recoverLeases();
      await this.expireDue();
      await this.sendDueReminders();
      await this.armTimer();
    } catch (error) {
      this.warn({ err: error }, "confirmation scheduler round failed; retrying");
      this.arm(this.options.pollIntervalMs);
    }
  }

  private async recoverLeases(): Promise<void> {
    if (Date.now() - this.lastRecovery < LEASE_RECOVERY_INTERVAL_MS) return;
    this.lastRecovery = Date.now();
    const interrupted = await this.deps.tasks.recoverLeases(this.clock());
    if (interrupted) {
      this.deps.metrics.remindersSent.labels("interrupted").inc(interrupted);
      this.deps.logger.warn({ count: interrupted }, "reminder sends interrupted by a crash recorded as failed (never repeated)");
    }
  }

  private async expireDue(): Promise<void> {
    const { expiryBatch } = this.options;
    while (!this.stopped) {
      const batch = await this.deps.expiries.expireDue(this.clock(), expiryBatch);
      for (const event of batch.events) this.deps.bus.publish(event);
      this.deps.metrics.ordersExpired.inc(batch.events.length);
      if (batch.events.length) this.deps.logger.info({ count: batch.events.length }, "orders expired");
      if (batch.events.length + batch.skipped + batch.deferred < expiryBatch) return;
    }
  }

  private async sendDueReminders(): Promise<void> {
    const { concurrency, maxSendsPerSecond } = this.options;
    // Claimed reminders wait for their token at most about a second, far within their lease.
    const maxClaimed = Math.max(1, Math.min(concurrency, Math.floor(maxSendsPerSecond)));
    // Claims of at least half the room, so a claim statement serves several sends.
    const batch = Math.max(1, Math.floor(maxClaimed / 2));
    let expiredAt = Date.now();
    while (!this.stopped) {
      // A long backlog of reminders (paced) must not hold up expiries falling due meanwhile.
      if (Date.now() - expiredAt >= EXPIRY_CHECK_DURING_SENDS_MS) {
        await this.expireDue();
        await this.recoverLeases();
        expiredAt = Date.now();
      }
      if (maxClaimed - this.sends.size < batch) {
        await Promise.race(this.sends);
        continue;
      }
      const taskIds = await this.deps.tasks.claimDueReminders(this.clock(), maxClaimed - this.sends.size, CLAIM_LEASE_SECONDS);
      if (taskIds.length === 0) break;
      for (const taskId of taskIds) {
        this.claimed.add(taskId);
        const send = this.sendReminder(taskId).finally(() => this.sends.delete(send));
        this.sends.add(send);
      }
    }
    await Promise.allSettled([...this.sends]);
  }

  private async sendReminder(taskId: string): Promise<void> {
    const { tasks, metrics, logger } = this.deps;
    const { burst, refillPerSecond } = bucketFor(this.options.maxSendsPerSecond);
    const bucket = { name: THROTTLE_NAME, burst, ratePerSecond: refillPerSecond };
    try {
      const sendLeaseSeconds = Math.ceil(this.options.sendTimeoutMs / 1000) + SEND_LEASE_MARGIN_SECONDS;
      let decided: Awaited<ReturnType<OrderTaskRepository["beginSend"]>>;
      for (;;) {
        await this.pace();
        if (this.stopped) return; // still claimed: released by stop()
        decided = await tasks.beginSend(taskId, this.clock(), sendLeaseSeconds, bucket);
        if (decided !== "wait") break;
        // Every instance's tokens are spent: the next one accrues in 1/refill seconds.
        await sleep(Math.ceil(1000 / bucket.ratePerSecond));
      }
      this.claimed.delete(taskId);
      if (decided === "skipped") {
        metrics.remindersSent.labels("skipped").inc();
        return;
      }
      const reminder = decided;
      const result = await this.send(reminder);
      if (result.outcome === "accepted") {
        await tasks.recordSent(taskId, result.providerMessageId, this.clock());
        metrics.remindersSent.labels("sent").inc();
        return;
      }
      const failure =
        result.outcome === "not_configured"
          ? { errorCode: null, failureReason: "Unknown failure" }
          : { errorCode: result.errorCode, failureReason: result.failureReason };
      await tasks.recordFailed(taskId, failure, this.clock());
      metrics.remindersSent.labels(result.outcome === "rejected" ? "rejected" : "unavailable").inc();
      logger.info({ orderId: reminder.order.id, reminder: reminder.position, outcome: result.outcome, ...failure }, "reminder not sent");
    } catch (error) {
      // The lease recovers it: a claim goes back to the schedule, a decided send is recorded failed.
      this.warn({ err: error, taskId }, "reminder send could not be recorded");
    }
  }

  private send(reminder: ReminderToSend): Promise<SendResult> {
    const provider = this.deps.providers.forMode(reminder.mode);
    const message = { ...confirmationOf(reminder.order, reminder.language, reminder.merchantId), reminder: reminder.position };
    return provider.sendOrderConfirmation(message).catch((error: unknown) => {
      this.deps.logger.error({ err: error, orderId: reminder.order.id }, "reminder send threw");
      return { outcome: "unavailable", errorCode: null, failureReason: "Unknown failure", detail: String(error) } as const;
    });
  }

  /** Spaces this instance's sends evenly at the configured rate. */
  private async pace(): Promise<void> {
    const interval = 1000 / this.options.maxSendsPerSecond;
    const now = Date.now();
    const at = Math.max(now, this.nextSendAt);
    this.nextSendAt = at + interval;
    if (at > now) await sleep(at - now);
  }

  private async armTimer(): Promise<void> {
    if (this.stopped) return;
    const next = await this.deps.tasks.nextDueAt();
    const untilDue = next ? next.getTime() - this.clock().getTime() : Number.POSITIVE_INFINITY;
    // Work still due right now (rows another instance holds for a moment): look again shortly, not at once.
    this.arm(untilDue <= 0 ? 50 : Math.min(untilDue, this.options.pollIntervalMs));
  }

  private arm(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), delayMs);
    this.timer.unref();
  }
}
