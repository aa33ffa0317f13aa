import type { Logger } from "pino";
import type { OrderEventBus } from "../domain/orders/order-events.bus.ts";
import type { AttemptOutcome, ClaimedDelivery, WebhookDeliveryRepository } from "../domain/webhooks/webhook-delivery.repository.ts";
import { decideAfterAttempt, type AttemptDecision, type AttemptResult } from "../domain/webhooks/webhook-retry-policy.ts";
import { signDelivery } from "../domain/webhooks/webhook-signature.ts";
import { throttledWarn } from "../logger.ts";
import type { Metrics } from "../metrics.ts";
import { AttemptAbortedError, postWebhook, USER_AGENT, type SenderOptions, type WebhookRequest } from "./webhook-sender.ts";

/**
 * Delivers the outbox to merchants' webhook endpoints (SPEC §4), at least once, in order per order and endpoint.
 *
 * The database is the queue: fan-out turns outbox events into one delivery row per endpoint, and attempts claim
 * due rows with a lease (see WebhookDeliveryRepository), so any number of instances share the work and a
 * crashed instance's attempts are made again once their lease passes, with the same webhook-id.
 *
 * Wake-ups: an event committed in this process (the bus), an attempt finishing (it may unblock the next event of
 * its order, or free a slot), the earliest retry this instance scheduled, and a slow poll for everything else
 * (other instances' events, expired leases, manual retries made elsewhere). Bursts of wake-ups coalesce into one
 * more round.
 */
export interface WebhookDispatcherOptions {
  retryScheduleMs: readonly number[];
  timeoutMs: number;
  allowPrivateUrls: boolean;
  /** WEBHOOK_DNS_SERVERS (null: the system's). */
  dnsServers?: readonly string[] | null;
  /** Attempts in flight in this instance, all endpoints together. */
  maxInFlight?: number;
  /**
   * Attempts in flight per endpoint (per instance): a slow or dead endpoint holds at most this many slots while
   * it times out, so other endpoints and their orders go on.
   */
  maxInFlightPerEndpoint?: number;
  pollIntervalMs?: number;
  /** How long stop() lets attempts under way finish before abandoning them (their leases are released). */
  stopGraceMs?: number;
}

export interface WebhookDispatcherDeps {
  deliveries: WebhookDeliveryRepository;
  bus: OrderEventBus;
  logger: Logger;
  metrics: Pick<
    Metrics,
    "webhookAttempts" | "webhookDeliveriesDead" | "webhookAttemptDuration" | "webhookDeliveryLag" | "webhookAttemptsInFlight"
  >;
  /** Replaceable in tests. */
  send?: (request: WebhookRequest, options: SenderOptions, signal: AbortSignal) => Promise<AttemptResult>;
  clock?: () => Date;
}

const FAN_OUT_BATCH = 100;
/** One wake-up does not loop forever while producers keep writing; the next wake-up carries on. */
const FAN_OUT_ROUNDS = 20;
/**
 * A lease outlives its attempt (bounded by the timeout) by this much, which covers recording the outcome on a
 * busy database. Only a crash lets a lease run out: the attempt is then made again this long after the timeout.
 */
export const LEASE_MARGIN_MS = 10_000;

export class WebhookDispatcher {
  private readonly options: Required<WebhookDispatcherOptions>;
  private readonly send: NonNullable<WebhookDispatcherDeps["send"]>;
  private readonly clock: () => Date;
  private readonly warn: (details: object, message: string) => void;
  /** In-flight attempts per endpoint id. */
  private readonly inFlight = new Map<string, number>();
  private readonly attempts = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private round: Promise<void> | null = null;
  private again = false;
  /**
   * Whether the next round must look for new outbox events. Only a committed event (the bus) or the poll (other
   * instances' events) can bring some; an attempt finishing or a manual retry only needs a claim, and skipping
   * the fan-out statement then saves a round trip per delivery.
   */
  private fanOutDue = true;
  private stopped = true;
  private unsubscribe: (() => void) | null = null;
  private poll: NodeJS.Timeout | null = null;
  private retryTimer: { at: number; timer: NodeJS.Timeout } | null = null;

  constructor(
    private readonly deps: WebhookDispatcherDeps,
    options: WebhookDispatcherOptions,
  ) {
    this.options = {
      // Attempts wait on the network, not the CPU: room for many endpoints that time out at once (a dead
      // endpoint holds its 4 slots for WEBHOOK_TIMEOUT_MS) without starving the healthy ones.
      maxInFlight: 256,
      maxInFlightPerEndpoint: 4,
      dnsServers: null,
      pollIntervalMs: 1_000,
      stopGraceMs: 3_000,
      ...options,
    };
    this.send = deps.send ?? postWebhook;
    this.clock = deps.clock ?? (() => new Date());
    this.warn = throttledWarn(deps.logger);
  }

  /** A delivery's attempts allowed: the immediate one plus one per scheduled retry. */
  get maxAttempts(): number {
    return 1 + this.options.retryScheduleMs.length;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.unsubscribe = this.deps.bus.subscribe(() => this.wake({ newEvents: true }));
    this.poll = setInterval(() => this.wake({ newEvents: true }), this.options.pollIntervalMs);
    this.poll.unref();
    this.wake({ newEvents: true });
  }

  /**
   * Runs a claim round now (or right after the one under way), preceded by a fan-out when `newEvents` says
   * outbox events may be waiting. Cheap to call often.
   */
  wake({ newEvents = false }: { newEvents?: boolean } = {}): void {
    if (newEvents) this.fanOutDue = true;
    if (this.stopped) return;
    if (this.round) {
      this.again = true;
      return;
    }
    this.round = this.runRounds().finally(() => {
      this.round = null;
      if (this.again) this.wake();
    });
  }

  /**
   * Stops claiming, lets attempts under way finish for a short grace period, then abandons the rest: their
   * leases are released, so a restart (or another instance) makes them again at once.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.unsubscribe?.();
    if (this.poll) clearInterval(this.poll);
    if (this.retryTimer) clearTimeout(this.retryTimer.timer);
    await this.round;
    let graceTimer: NodeJS.Timeout | undefined;
    const grace = new Promise((resolve) => (graceTimer = setTimeout(resolve, this.options.stopGraceMs)));
    await Promise.race([Promise.allSettled([...this.attempts]), grace]);
    clearTimeout(graceTimer);
    this.abort.abort();
    await Promise.allSettled([...this.attempts]);
  }

  private async runRounds(): Promise<void> {
    do {
      this.again = false;
      try {
        if (this.fanOutDue) {
          this.fanOutDue = false;
          await this.fanOut();
        }
        await this.claimAndStart();
      } catch (error) {
        this.logError(error, "webhook dispatch round failed");
      }
    } while (this.again && !this.stopped);
  }

  private async fanOut(): Promise<void> {
    for (let round = 0; round < FAN_OUT_ROUNDS && !this.stopped; round++) {
      // An event held back behind an earlier one of its order is taken by the next pass: loop until none.
      const { events } = await this.deps.deliveries.fanOut(FAN_OUT_BATCH, this.maxAttempts);
      if (events === 0) return;
    }
    this.fanOutDue = true;
    this.again = true;
  }

  private async claimAndStart(): Promise<void> {
    const free = this.options.maxInFlight - this.attempts.size;
    if (free <= 0 || this.stopped) return;
    const claims = await this.deps.deliveries.claimDue(
      free,
      this.options.maxInFlightPerEndpoint,
      this.inFlight,
      this.options.timeoutMs + LEASE_MARGIN_MS,
    );
    for (const claim of claims) this.startAttempt(claim);
  }

  private startAttempt(claim: ClaimedDelivery): void {
    this.inFlight.set(claim.endpointId, (this.inFlight.get(claim.endpointId) ?? 0) + 1);
    this.deps.metrics.webhookAttemptsInFlight.inc();
    const attempt = this.attempt(claim)
      .catch((error: unknown) => this.logError(error, "webhook attempt could not be recorded", { deliveryId: claim.id }))
      .finally(() => {
        const left = (this.inFlight.get(claim.endpointId) ?? 1) - 1;
        if (left > 0) this.inFlight.set(claim.endpointId, left);
        else this.inFlight.delete(claim.endpointId);
        this.deps.metrics.webhookAttemptsInFlight.dec();
        this.attempts.delete(attempt);
        // A slot is free, and the next event of this order may now go.
        this.wake();
      });
    this.attempts.add(attempt);
  }

  private async attempt(claim: ClaimedDelivery): Promise<void> {
    const at = this.clock();
    if (claim.attemptCount === 0) {
      this.deps.metrics.webhookDeliveryLag.observe(Math.max(0, at.getTime() - claim.eventCreatedAt.getTime()) / 1000);
    }
    const signed = signDelivery(claim.secrets, claim.eventId, at, claim.body);
    const headers = {
      "webhook-id": signed["webhook-id"],
      "webhook-timestamp": signed["webhook-timestamp"],
      "webhook-signature": signed["webhook-signature"],
      "content-type": "application/json",
      "user-agent": USER_AGENT,
      "x-webhook-event": claim.eventType,
      "x-webhook-signature-256": signed["x-webhook-signature-256"],
    };
    let result: AttemptResult;
    try {
      result = await this.send(
        { url: claim.url, body: claim.body, headers },
        { timeoutMs: this.options.timeoutMs, allowPrivateUrls: this.options.allowPrivateUrls, dnsServers: this.options.dnsServers },
        this.abort.signal,
      );
    } catch (error) {
      if (!(error instanceof AttemptAbortedError)) throw error;
      await this.deps.deliveries.releaseLease(claim);
      return;
    }
    const decision = decideAfterAttempt(result, claim.attemptCount + 1, claim.maxAttempts, {
      scheduleMs: this.options.retryScheduleMs,
    }, at);
    const kept = await this.deps.deliveries.recordAttempt(claim, at, result, outcomeOf(decision));
    this.count(decision, result);
    if (!kept) {
      this.deps.logger.warn({ deliveryId: claim.id }, "webhook attempt outlived its lease; another claim decides the delivery");
    }
    if (decision.kind === "retry") this.wakeIn(decision.delayMs);
    if (decision.kind === "dead" && decision.disableEndpoint) {
      this.deps.logger.warn({ endpointId: claim.endpointId }, "webhook endpoint answered 410 Gone: disabled");
    }
  }

  private count(decision: AttemptDecision, result: AttemptResult): void {
    const { metrics } = this.deps;
    metrics.webhookAttemptDuration.observe(result.durationMs / 1000);
    const outcome = decision.kind === "succeeded" ? "succeeded" : decision.kind === "retry" ? "failed" : "dead";
    metrics.webhookAttempts.labels(outcome).inc();
    if (decision.kind === "dead") metrics.webhookDeliveriesDead.labels(decision.disableEndpoint ? "gone" : "exhausted").inc();
  }

  /** One timer, for the earliest retry this instance knows of; the poll covers the others. */
  private wakeIn(delayMs: number): void {
    if (this.stopped) return;
    // The due time was computed by the database's clock when the outcome was written, just before now.
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

  private logError(error: unknown, message: string, context: Record<string, unknown> = {}): void {
    // While the database is unreachable every poll fails: said every 30 s, not every second.
    this.warn({ err: error, ...context }, message);
  }
}

function outcomeOf(decision: AttemptDecision): AttemptOutcome {
  switch (decision.kind) {
    case "succeeded":
      return { status: "succeeded", retryInMs: null, disableEndpoint: null };
    case "dead":
      return { status: "dead", retryInMs: null, disableEndpoint: decision.disableEndpoint };
    case "retry":
      return { status: "pending", retryInMs: decision.delayMs, disableEndpoint: null };
  }
}
