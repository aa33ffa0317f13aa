import { setMaxListeners } from "node:events";
import type { Logger } from "pino";
import type { OrderEventBus } from "../domain/orders/order-events.bus.ts";
import type {
  AttemptOutcome,
  ClaimedDelivery,
  RecordedAttempt,
  RecordedBatch,
  WebhookDeliveryRepository,
} from "../domain/webhooks/webhook-delivery.repository.ts";
import { decideAfterAttempt, type AttemptDecision, type AttemptResult } from "../domain/webhooks/webhook-retry-policy.ts";
import { signDelivery } from "../domain/webhooks/webhook-signature.ts";
import { openEndpointSecret } from "../domain/webhooks/endpoint-secret-context.ts";
import type { SecretBox } from "../domain/secrets/secret-box.ts";
import { throttledWarn } from "../logger.ts";
import type { Metrics } from "../metrics.ts";
import { AttemptRecorder } from "./webhook-attempt-recorder.ts";
import { DEFAULT_CONNECTION_OPTIONS, WebhookConnections, type WebhookConnectionOptions } from "./webhook-connections.ts";
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
  /**
   * Due deliveries claimed per endpoint beyond its free slots, started as slots free up: one claim statement
   * then feeds many attempts. Bounded by MAX_HELD over all endpoints.
   */
  claimAheadPerEndpoint?: number;
  pollIntervalMs?: number;
  /** Keep-alive connections to endpoints (webhook-connections.ts); sockets per endpoint = maxInFlightPerEndpoint. */
  connections?: Partial<Omit<WebhookConnectionOptions, "maxSocketsPerEndpoint">>;
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
  /** Replaceable in tests (to look at the sockets). */
  connections?: WebhookConnections;
  /** Opens the endpoints' sealed secrets (SPEC §14); without it, stored secrets are used as they are (tests). */
  secrets?: SecretBox;
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
/** Outcomes recorded per statement; a batch is written after RECORD_LINGER_MS or once RECORD_FULL_BATCH wait. */
const RECORD_BATCH = 500;
const RECORD_LINGER_MS = 10;
const RECORD_FULL_BATCH = 64;
/**
 * Deliveries this instance holds a lease on, at most: claimed ahead, in flight, and finished with the outcome not
 * yet written. While the database is slow to take outcomes, no more is claimed.
 */
const MAX_HELD = 2_048;
/** A delivery claimed ahead is started within this long of its claim, or handed back (see releaseStale). */
const READY_MAX_WAIT_MS = 2_000;
/** An endpoint with every slot taken and no attempt finished for this long is not claimed ahead for. */
const STALLED_MS = 1_000;
/**
 * Fan-outs start at least this far apart: under a stream of commits (each one a wake-up) the events of a few
 * milliseconds share one fan-out and one claim instead of taking two statements each. An event that arrives after a
 * quiet spell (anything slower than one per gap) goes at once, as before.
 */
const FAN_OUT_MIN_GAP_MS = 5;

export class WebhookDispatcher {
  private readonly options: Required<Omit<WebhookDispatcherOptions, "connections">>;
  readonly connections: WebhookConnections;
  private readonly recorder: AttemptRecorder<RecordedAttempt, RecordedBatch>;
  private readonly send: NonNullable<WebhookDispatcherDeps["send"]>;
  private readonly clock: () => Date;
  private readonly warn: (details: object, message: string) => void;
  /** In-flight attempts per endpoint id. */
  private readonly inFlight = new Map<string, number>();
  private readonly attempts = new Set<Promise<void>>();
  /** Deliveries claimed ahead, per endpoint in claim order, waiting for one of its slots. */
  private readonly ready = new Map<string, { claim: ClaimedDelivery; claimedAt: number }[]>();
  private readyCount = 0;
  /** Per endpoint with attempts in flight: when one last finished (or the first started). */
  private readonly progress = new Map<string, number>();
  /**
   * Whether the last claim may have left due deliveries behind (it took all it was allowed for some endpoint):
   * then a freed slot calls for another claim. Otherwise new work comes with its own wake-up (an event, a retry
   * timer, an outcome that unblocks a later event, the poll), and a freed slot needs no claim statement.
   */
  private moreDue = true;
  private readonly releasing = new Set<Promise<void>>();
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
  /** When the last fan-out started (performance.now()), and the timer of a fan-out held back by the gap. */
  private lastFanOutAt = Number.NEGATIVE_INFINITY;
  private fanOutTimer: NodeJS.Timeout | null = null;
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
      claimAheadPerEndpoint: 60,
      dnsServers: null,
      pollIntervalMs: 1_000,
      stopGraceMs: 3_000,
      ...options,
    };
    this.send = deps.send ?? postWebhook;
    // Every attempt in flight listens for the stop.
    setMaxListeners(this.options.maxInFlight + 1, this.abort.signal);
    this.connections =
      deps.connections ??
      new WebhookConnections({
        ...DEFAULT_CONNECTION_OPTIONS,
        ...options.connections,
        maxSocketsPerEndpoint: this.options.maxInFlightPerEndpoint,
      });
    this.recorder = new AttemptRecorder<RecordedAttempt, RecordedBatch>({
      write: (batch) => this.deps.deliveries.recordAttempts(batch),
      maxBatch: RECORD_BATCH,
      lingerMs: RECORD_LINGER_MS,
      fullBatch: RECORD_FULL_BATCH,
      written: (batch, result) => this.recorded(batch, result),
      failed: (error, batch) => this.logError(error, "webhook attempts could not be recorded", { deliveries: batch.length }),
    });
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
    // An event stored already dispatched (no endpoint wants it) leaves nothing to fan out.
    this.unsubscribe = this.deps.bus.subscribe((event) => {
      if (event.awaitsFanOut !== false) this.wake({ newEvents: true });
    });
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
    // Only new events, and a fan-out started moments ago: they go with the next one, at the end of the gap.
    if (newEvents && this.holdFanOut()) return;
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
    if (this.fanOutTimer) clearTimeout(this.fanOutTimer);
    // Forgotten too, so a restart within the gap schedules its own.
    this.fanOutTimer = null;
    if (this.retryTimer) clearTimeout(this.retryTimer.timer);
    await this.round;
    // Claimed but not started: straight back, so a restart (or another instance) takes them at once.
    await this.releaseReady();
    let graceTimer: NodeJS.Timeout | undefined;
    const grace = new Promise((resolve) => (graceTimer = setTimeout(resolve, this.options.stopGraceMs)));
    await Promise.race([Promise.allSettled([...this.attempts]), grace]);
    clearTimeout(graceTimer);
    this.abort.abort();
    await Promise.allSettled([...this.attempts]);
    await this.recorder.flush();
    await Promise.allSettled([...this.releasing]);
    this.connections.destroy();
  }

  private async runRounds(): Promise<void> {
    do {
      this.again = false;
      try {
        if (this.fanOutDue && !this.holdFanOut()) {
          this.fanOutDue = false;
          this.lastFanOutAt = performance.now();
          await this.fanOut();
        }
        await this.claimAndStart();
      } catch (error) {
        this.logError(error, "webhook dispatch round failed");
      }
    } while (this.again && !this.stopped);
  }

  /** Whether a due fan-out must wait for the gap; if so, a timer runs it when the gap ends. */
  private holdFanOut(): boolean {
    const wait = this.lastFanOutAt + FAN_OUT_MIN_GAP_MS - performance.now();
    if (wait <= 0) return false;
    if (!this.fanOutTimer) {
      this.fanOutTimer = setTimeout(() => {
        this.fanOutTimer = null;
        this.wake({ newEvents: true });
      }, Math.ceil(wait));
      // Like the poll: a pending fan-out never keeps the process alive on its own.
      this.fanOutTimer.unref();
    }
    return true;
  }

  private async fanOut(): Promise<void> {
    for (let round = 0; round < FAN_OUT_ROUNDS && !this.stopped; round++) {
      // An event held back behind an earlier one of its order is taken by the next pass: loop until none. A pass
      // that took less than a batch and held nothing back has taken all there was (others' come with a wake-up).
      const { events, heldBack } = await this.deps.deliveries.fanOut(FAN_OUT_BATCH, this.maxAttempts);
      if (events < FAN_OUT_BATCH && !heldBack) return;
      // A backlog: its first deliveries go out while the rest is fanned out.
      if (this.readyCount < this.options.claimAheadPerEndpoint / 2) await this.claimAndStart();
    }
    this.fanOutDue = true;
    this.again = true;
  }

  private async claimAndStart(): Promise<void> {
    this.releaseStale();
    const free = MAX_HELD - this.attempts.size - this.readyCount - this.recorder.pending;
    if (free <= 0 || this.stopped) return;
    const held = new Map(this.inFlight);
    for (const [endpointId, queue] of this.ready) held.set(endpointId, (held.get(endpointId) ?? 0) + queue.length);
    // An endpoint whose slots are all taken by attempts that are not finishing (it hangs) gets nothing claimed
    // ahead: those deliveries would only wait out their time in the queue and go back.
    const perEndpoint = this.options.maxInFlightPerEndpoint + this.options.claimAheadPerEndpoint;
    const now = performance.now();
    for (const [endpointId, since] of this.progress) {
      const stalled = (this.inFlight.get(endpointId) ?? 0) >= this.options.maxInFlightPerEndpoint && now - since > STALLED_MS;
      if (stalled) held.set(endpointId, perEndpoint);
    }
    const claims = await this.deps.deliveries.claimDue(
      free,
      perEndpoint,
      held,
      this.options.timeoutMs + LEASE_MARGIN_MS,
    );
    const claimedAt = performance.now();
    this.moreDue = claims.length >= free || mayHaveMore(claims, held, perEndpoint);
    for (const claim of claims) {
      let queue = this.ready.get(claim.endpointId);
      if (!queue) this.ready.set(claim.endpointId, (queue = []));
      queue.push({ claim, claimedAt });
    }
    this.readyCount += claims.length;
    this.pump();
  }

  /** Starts the claimed deliveries that have a slot: per endpoint in claim order, within both bounds. */
  private pump(): void {
    if (this.stopped) return;
    const stale: ClaimedDelivery[] = [];
    for (const [endpointId, queue] of this.ready) {
      while (queue.length && this.attempts.size < this.options.maxInFlight && (this.inFlight.get(endpointId) ?? 0) < this.options.maxInFlightPerEndpoint) {
        const { claim, claimedAt } = queue.shift()!;
        this.readyCount--;
        if (performance.now() - claimedAt > READY_MAX_WAIT_MS) stale.push(claim);
        else this.startAttempt(claim);
      }
      if (queue.length === 0) this.ready.delete(endpointId);
    }
    this.release(stale);
  }

  /**
   * Claimed deliveries that waited too long for a slot (their endpoint is slow) go back, so that an attempt
   * started from the queue always has nearly its whole lease left: to finish, and to have its outcome written.
   */
  private releaseStale(): void {
    const stale: ClaimedDelivery[] = [];
    const now = performance.now();
    for (const [endpointId, queue] of this.ready) {
      while (queue.length && now - queue[0].claimedAt > READY_MAX_WAIT_MS) stale.push(queue.shift()!.claim);
      if (queue.length === 0) this.ready.delete(endpointId);
    }
    this.readyCount -= stale.length;
    this.release(stale);
  }

  /** Hands an endpoint's claimed, unstarted deliveries back (it answered 410, or we are stopping). */
  private releaseReady(endpointId?: string): Promise<void> {
    const claims: ClaimedDelivery[] = [];
    for (const [id, queue] of this.ready) {
      if (endpointId !== undefined && id !== endpointId) continue;
      claims.push(...queue.map((queued) => queued.claim));
      this.ready.delete(id);
    }
    this.readyCount -= claims.length;
    return this.release(claims);
  }

  private release(claims: ClaimedDelivery[]): Promise<void> {
    if (claims.length === 0) return Promise.resolve();
    const released = this.deps.deliveries
      .releaseLeases(claims)
      .catch((error: unknown) => this.logError(error, "webhook leases could not be released (they run out instead)"))
      .finally(() => this.releasing.delete(released));
    this.releasing.add(released);
    return released;
  }

  private startAttempt(claim: ClaimedDelivery): void {
    const before = this.inFlight.get(claim.endpointId) ?? 0;
    if (before === 0) this.progress.set(claim.endpointId, performance.now());
    this.inFlight.set(claim.endpointId, before + 1);
    this.deps.metrics.webhookAttemptsInFlight.inc();
    const attempt = this.attempt(claim)
      .catch((error: unknown) => this.logError(error, "webhook attempt failed", { deliveryId: claim.id }))
      .finally(() => {
        const left = (this.inFlight.get(claim.endpointId) ?? 1) - 1;
        if (left > 0) this.inFlight.set(claim.endpointId, left);
        else this.inFlight.delete(claim.endpointId);
        if (left > 0) this.progress.set(claim.endpointId, performance.now());
        else this.progress.delete(claim.endpointId);
        this.deps.metrics.webhookAttemptsInFlight.dec();
        this.attempts.delete(attempt);
        // A slot is free: the next claimed delivery takes it at once; a claim round tops the queue up when it
        // runs low. (The next event of this order waits for this outcome to be written: see recorded().)
        this.pump();
        const queued = this.ready.get(claim.endpointId)?.length ?? 0;
        if (this.moreDue && queued <= this.options.claimAheadPerEndpoint / 2) this.wake();
      });
    this.attempts.add(attempt);
  }

  private async attempt(claim: ClaimedDelivery): Promise<void> {
    const at = this.clock();
    if (claim.attemptCount === 0) {
      this.deps.metrics.webhookDeliveryLag.observe(Math.max(0, at.getTime() - claim.eventCreatedAt.getTime()) / 1000);
    }
    let secrets: string[];
    try {
      secrets = this.deps.secrets ? claim.secrets.map((stored) => openEndpointSecret(this.deps.secrets!, claim.endpointId, stored)) : claim.secrets;
    } catch (error) {
      // A secret sealed under a key this instance does not have (SECRETS_KEY changed without `ocs secrets
      // rotate-key`): nothing can be signed, so the attempt fails like an unreachable receiver and is retried.
      this.warn({ endpointId: claim.endpointId, err: error }, "cannot open a webhook endpoint's secret: is SECRETS_KEY the key it was sealed with?");
      secrets = [];
    }
    const signed = secrets.length ? signDelivery(secrets, claim.eventId, at, claim.body) : null;
    const headers: Record<string, string> = signed
      ? {
          "webhook-id": signed["webhook-id"],
          "webhook-timestamp": signed["webhook-timestamp"],
          "webhook-signature": signed["webhook-signature"],
          "content-type": "application/json",
          "user-agent": USER_AGENT,
          "x-webhook-event": claim.eventType,
          // The body-only HMAC has no timestamp (a receiver verifying it accepts replays): only on request.
          ...(claim.legacySignature ? { "x-webhook-signature-256": signed["x-webhook-signature-256"] } : {}),
        }
      : {};
    let agent;
    try {
      agent = this.connections.agentFor(claim.endpointId, new URL(claim.url));
    } catch {
      agent = undefined; // an invalid URL: the sender says so
    }
    let result: AttemptResult;
    try {
      result = !signed
        ? { statusCode: null, durationMs: 0, error: "the endpoint's signing secret cannot be opened with this SECRETS_KEY", retryAfter: null }
        : await this.send(
            { url: claim.url, body: claim.body, headers },
            {
              timeoutMs: this.options.timeoutMs,
              allowPrivateUrls: this.options.allowPrivateUrls,
              dnsServers: this.options.dnsServers,
              agent,
            },
            this.abort.signal,
          );
    } catch (error) {
      if (!(error instanceof AttemptAbortedError)) throw error;
      await this.release([claim]);
      return;
    }
    const decision = decideAfterAttempt(result, claim.attemptCount + 1, claim.maxAttempts, {
      scheduleMs: this.options.retryScheduleMs,
    }, at);
    // The slot is freed now; the outcome is written with those of the attempts that finish meanwhile.
    this.recorder.record({ claim, attemptedAt: at, result, outcome: outcomeOf(decision) });
    // 410 Gone: what was claimed ahead for this endpoint is not sent (its outcome disables the endpoint).
    if (decision.kind === "dead" && decision.disableEndpoint) void this.releaseReady(claim.endpointId);
  }

  /**
   * After a batch of outcomes was written: metrics, retry timers, and a claim round when a later event of one
   * of their orders was waiting for them.
   */
  private recorded(batch: readonly RecordedAttempt[], { kept, unblocked }: RecordedBatch): void {
    batch.forEach(({ claim, result, outcome }, index) => {
      this.count(outcome, result);
      if (!kept[index]) {
        this.deps.logger.warn({ deliveryId: claim.id }, "webhook attempt outlived its lease; another claim decides the delivery");
      }
      if (outcome.retryInMs !== null) this.wakeIn(outcome.retryInMs);
      if (outcome.disableEndpoint) {
        this.deps.logger.warn({ endpointId: claim.endpointId }, "webhook endpoint answered 410 Gone: disabled");
      }
    });
    // The next events of these orders may go now.
    if (unblocked) this.wake();
  }

  private count(outcome: AttemptOutcome, result: AttemptResult): void {
    const { metrics } = this.deps;
    metrics.webhookAttemptDuration.observe(result.durationMs / 1000);
    const label = outcome.status === "succeeded" ? "succeeded" : outcome.status === "pending" ? "failed" : "dead";
    metrics.webhookAttempts.labels(label).inc();
    if (outcome.status === "dead") metrics.webhookDeliveriesDead.labels(outcome.disableEndpoint ? "gone" : "exhausted").inc();
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

/** Whether some endpoint got as many deliveries as it was allowed (or was allowed none): more may be due. */
function mayHaveMore(claims: readonly ClaimedDelivery[], held: ReadonlyMap<string, number>, perEndpoint: number): boolean {
  for (const count of held.values()) if (count >= perEndpoint) return true;
  const taken = new Map<string, number>();
  for (const claim of claims) taken.set(claim.endpointId, (taken.get(claim.endpointId) ?? 0) + 1);
  for (const [endpointId, count] of taken) if (count >= perEndpoint - (held.get(endpointId) ?? 0)) return true;
  return false;
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
