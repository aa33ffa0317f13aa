import type { Logger } from "pino";
import type { OrderEventBus } from "../domain/orders/order-events.bus.ts";
import { effectKey, effectsFor, type WritebackResult } from "../domain/stores/store-connector.ts";
import type { ClaimedWriteback, StoreRepository } from "../domain/stores/store.repository.ts";
import type { StoreService } from "../domain/stores/store.service.ts";
import { scheduledDelay, withJitter } from "../domain/webhooks/webhook-retry-policy.ts";
import { throttledWarn } from "../logger.ts";
import { CoalescedRounds } from "./coalesced-rounds.ts";

/**
 * Drains the write-back outbox (store_writebacks, written by the order-events trigger in the transaction of each
 * state change): at least once, in order per order, one write-back in flight per connection across instances,
 * each effect recorded as done as soon as the store took it so a retry never repeats it. Retries follow
 * WEBHOOK_RETRY_SCHEDULE (at least Retry-After when the store gives one); throttling (429, Shopify's THROTTLED or
 * an empty bucket) pauses the connection until its bucket refills and does not use up an attempt.
 */
export interface StoreWritebackOptions {
  retryScheduleMs: readonly number[];
  timeoutMs: number;
  pollIntervalMs?: number;
  /** Fulfillment orders appear shortly after a Shopify order: asked again on this schedule, then given up. */
  notReadyScheduleMs?: readonly number[];
}

const CLAIM_BATCH = 64;
/**
 * Write-backs of one store claimed together and made one after the other: the claim and the reads are shared, so
 * a store limited by its rate (Shopify's bucket) is kept at that rate even when each database round trip is slow.
 */
const PER_CONNECTION = 8;
/** A write-back makes a few calls (a hold: one query and one mutation per fulfillment order). */
const CALLS_PER_WRITEBACK = 6;
const LEASE_MARGIN_MS = 10_000;
/**
 * A store whose bucket is refilling is claimed this long before it holds the next call's cost: the claim and the
 * credentials are read meanwhile, and the call itself waits for the exact moment (`paceUntil`).
 */
const PACE_LEAD_MS = 80;
const DEFAULT_NOT_READY_SCHEDULE = [1_000, 2_000, 5_000, 10_000, 30_000, 60_000, 120_000, 300_000];

export class StoreWritebackWorker {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly rounds = new CoalescedRounds(() => this.run(), () => !this.stopped);
  private stopped = true;
  private poll: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private retryTimer: { at: number; timer: NodeJS.Timeout } | null = null;
  private readonly warn: (details: object, message: string) => void;
  private readonly leaseMs: number;
  private readonly notReadySchedule: readonly number[];
  /** Per connection: when its bucket holds the next call's cost again (this instance's last call said so). */
  private readonly paceUntil = new Map<string, number>();

  constructor(
    private readonly deps: { stores: StoreRepository; service: StoreService; bus: OrderEventBus; logger: Logger },
    private readonly options: StoreWritebackOptions,
  ) {
    this.warn = throttledWarn(deps.logger);
    this.leaseMs = options.timeoutMs * CALLS_PER_WRITEBACK + LEASE_MARGIN_MS;
    this.notReadySchedule = options.notReadyScheduleMs ?? DEFAULT_NOT_READY_SCHEDULE;
  }

  get maxAttempts(): number {
    return 1 + this.options.retryScheduleMs.length;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    // Any committed order event may have written a write-back (the trigger): look now, unless its merchant has no
    // store connection (then the trigger wrote nothing; the poll covers a connection made meanwhile).
    this.unsubscribe = this.deps.bus.subscribe((event) => {
      if (event.storeWriteback !== false) this.wake();
    });
    this.poll = setInterval(() => this.wake(), this.options.pollIntervalMs ?? 1_000);
    this.poll.unref();
    this.wake();
  }

  wake(): void {
    this.rounds.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.poll) clearInterval(this.poll);
    if (this.retryTimer) clearTimeout(this.retryTimer.timer);
    await this.rounds.settled();
    await Promise.allSettled([...this.inFlight]);
  }

  private async run(): Promise<void> {
    try {
      // The chain's later write-backs renew their lease as they start; twice one lease covers the first two.
      const claimed = await this.deps.stores.claimWritebacks(CLAIM_BATCH, this.leaseMs * 2, PER_CONNECTION);
      const byConnection = new Map<string, ClaimedWriteback[]>();
      for (const writeback of claimed) {
        const chain = byConnection.get(writeback.connectionId) ?? [];
        chain.push(writeback);
        byConnection.set(writeback.connectionId, chain);
      }
      for (const chain of byConnection.values()) {
        const work = (async () => {
          for (const [index, claimedWriteback] of chain.entries()) {
            let writeback = claimedWriteback;
            if (this.stopped) {
              await this.deps.stores.releaseWriteback(writeback.id, writeback.leaseUntil).catch(() => undefined);
              continue;
            }
            if (index >= 2) {
              const renewed = await this.deps.stores.renewWriteback(writeback.id, writeback.leaseUntil, this.leaseMs).catch(() => null);
              if (!renewed) continue; // its lease ran out and another claim took it
              writeback = { ...writeback, leaseUntil: renewed };
            }
            await this.handle(writeback).catch((error: unknown) => {
              this.warn({ err: error, writebackId: writeback.id }, "store write-back failed unexpectedly; its lease hands it back");
            });
          }
        })();
        this.inFlight.add(work);
        void work.finally(() => {
          this.inFlight.delete(work);
          this.wake();
        });
      }
    } catch (error) {
      this.warn({ err: error }, "store write-back claim failed");
    }
  }

  private async handle(writeback: ClaimedWriteback): Promise<void> {
    const { stores, service } = this.deps;
    let context;
    try {
      context = await service.writebackContext(writeback.connectionId);
    } catch (error) {
      await this.refreshFailed(writeback, error);
      return;
    }
    const connector = context ? service.connector(context.platform) : null;
    if (!context || !connector) {
      await this.finish(writeback, "failed", "store disconnected");
      return;
    }
    let { credentials } = context;
    /** A 401 is answered once per write-back with a refresh (or another instance's new token) and the same call again. */
    let refreshedAfterRefusal = false;
    const connection = context;
    const effects = effectsFor(writeback.outcome, connection.settings, writeback.held);
    const pending = effects.map(effectKey).filter((key) => !writeback.doneEffects.includes(key));
    const applied: string[] = [];
    for (const effect of effects) {
      const key = effectKey(effect);
      if (writeback.doneEffects.includes(key)) continue;
      const last = key === pending.at(-1);
      const wait = (this.paceUntil.get(writeback.connectionId) ?? 0) - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      let calledAt = Date.now();
      let result = await connector.writeBack(effect, { shop: connection.shop, storeOrderId: writeback.storeOrderId, credentials });
      if (result.kind === "unauthorized" && !refreshedAfterRefusal) {
        // The access token was refused before its stored expiry (revoked, or expired early): refresh once, try again.
        refreshedAfterRefusal = true;
        let renewed;
        try {
          renewed = await service.credentialsAfterRefusal(writeback.connectionId, credentials.accessToken);
        } catch (error) {
          await this.refreshFailed(writeback, error);
          return;
        }
        if (renewed) {
          credentials = renewed;
          calledAt = Date.now();
          result = await connector.writeBack(effect, { shop: connection.shop, storeOrderId: writeback.storeOrderId, credentials });
        }
      }
      if (result.kind === "done") {
        if (result.pace) {
          // The bucket is short of the next call's cost: this store waits (all instances, through the claim). The
          // bucket was read while the call was served, so the wait counts from the call's start (the bucket refills
          // while the answer travels back); a call that comes a little early is THROTTLED and simply waits again.
          const readyAt = calledAt + result.pace.waitMs;
          this.paceUntil.set(writeback.connectionId, readyAt);
          await stores.throttle(writeback.connectionId, new Date(readyAt - PACE_LEAD_MS));
          this.wakeIn(Math.max(0, readyAt - PACE_LEAD_MS - Date.now()));
        } else {
          this.paceUntil.delete(writeback.connectionId);
        }
        applied.push(key);
        // The last effect is recorded with the outcome (one statement); earlier ones as they go.
        if (last) break;
        if (!(await stores.effectDone(writeback.id, key, writeback.leaseUntil))) return; // lease lost: another claim decides
        continue;
      }
      if (result.kind === "unauthorized") {
        await service.markUnauthorized(writeback.connectionId, result.error);
        await this.finish(writeback, "failed", result.error);
        return;
      }
      if (result.kind === "failed") {
        await this.finish(writeback, "failed", result.error);
        return;
      }
      await this.retry(writeback, result);
      return;
    }
    const all = [...writeback.doneEffects, ...applied];
    if (!(await stores.writebackSucceeded(writeback, applied.at(-1) ?? null, all, new Date()))) {
      this.deps.logger.warn({ writebackId: writeback.id }, "store write-back outlived its lease; another claim decides it");
    }
  }

  /**
   * A token refresh that threw: refused by the store (`retriable: false`, the grant is gone: the connection needs
   * the merchant to reconnect or reinstall) or not answered (tried again on the retry schedule).
   */
  private async refreshFailed(writeback: ClaimedWriteback, error: unknown): Promise<void> {
    if ((error as { retriable?: boolean }).retriable === false) {
      await this.deps.service.markUnauthorized(writeback.connectionId, "token refresh refused");
      await this.finish(writeback, "failed", "token refresh refused");
      return;
    }
    await this.retry(writeback, { kind: "retry", error: `token refresh: ${(error as Error).message}`, retryAfterMs: null, statusCode: null, throttled: false });
  }

  private async retry(writeback: ClaimedWriteback, result: Extract<WritebackResult, { kind: "retry" | "not_ready" }>): Promise<void> {
    const { stores, service } = this.deps;
    const attempt = writeback.attemptCount + 1;
    if (result.kind === "not_ready") {
      if (attempt > this.notReadySchedule.length) {
        await this.finish(writeback, "failed", result.error);
        return;
      }
      const delay = this.notReadySchedule[attempt - 1];
      await stores.writebackRetry(writeback.id, delay, result.error, true, writeback.leaseUntil);
      this.wakeIn(delay);
      return;
    }
    if (result.throttled) {
      // The store's rate limit, not a failure: the connection pauses, the attempt is not counted.
      const delay = result.retryAfterMs ?? 1_000;
      this.paceUntil.set(writeback.connectionId, Date.now() + delay);
      await stores.throttle(writeback.connectionId, new Date(Date.now() + delay));
      await stores.writebackRetry(writeback.id, delay, result.error, false, writeback.leaseUntil);
      this.wakeIn(delay);
      return;
    }
    if (attempt >= this.maxAttempts) {
      await this.finish(writeback, "failed", result.error);
      return;
    }
    const scheduled = withJitter(scheduledDelay(this.options.retryScheduleMs, attempt), Math.random);
    const delay = Math.max(scheduled, result.retryAfterMs ?? 0);
    await stores.writebackRetry(writeback.id, delay, result.error, true, writeback.leaseUntil);
    await service.activity(writeback.connectionId, "writeback_retrying", writeback.storeOrderId, writeback.orderId, {
      outcome: writeback.outcome,
      error: result.error,
      attempt,
    });
    this.wakeIn(delay);
  }

  private async finish(writeback: ClaimedWriteback, status: "succeeded" | "failed", error: string | null, effects: string[] = []): Promise<void> {
    const kept = await this.deps.stores.writebackFinished(writeback.id, status, error, writeback.leaseUntil);
    if (!kept) return;
    if (status === "succeeded" && effects.length === 0) return; // nothing to do under these settings
    await this.deps.service.activity(
      writeback.connectionId,
      status === "succeeded" ? "writeback_succeeded" : "writeback_failed",
      writeback.storeOrderId,
      writeback.orderId,
      status === "succeeded" ? { outcome: writeback.outcome, effects } : { outcome: writeback.outcome, error },
    );
  }

  private wakeIn(delayMs: number): void {
    if (this.stopped) return;
    const at = Date.now() + delayMs + 5;
    if (this.retryTimer && this.retryTimer.at <= at) return;
    if (this.retryTimer) clearTimeout(this.retryTimer.timer);
    const timer = setTimeout(() => {
      this.retryTimer = null;
      this.wake();
    }, at - Date.now());
    timer.unref();
    this.retryTimer = { at, timer };
  }
}
