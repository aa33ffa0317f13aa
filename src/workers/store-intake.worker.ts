import type { Logger } from "pino";
import type { StoreRepository, ClaimedDelivery } from "../domain/stores/store.repository.ts";
import type { StoreService } from "../domain/stores/store.service.ts";
import { throttledWarn } from "../logger.ts";
import { CoalescedRounds } from "./coalesced-rounds.ts";

/**
 * Processes verified store deliveries after they were answered (SPEC §13: stores drop slow webhooks). The database
 * is the queue: `POST /webhooks/<platform>` stores the delivery and answers 2xx; this worker claims due deliveries
 * with a lease (SKIP LOCKED), so any number of instances share them and a crash mid-way leaves the delivery to be
 * claimed again once its lease passes (processing is idempotent, see StoreService.process).
 */
const CLAIM_BATCH = 32;
/** Batches processed at a time by this instance (each creates its orders 16 at a time). */
const MAX_BATCHES_IN_FLIGHT = 2;
const LEASE_MS = 60_000;
const POLL_MS = 1_000;
/** A delivery that keeps failing (our database, a bug) is given up after this many attempts, with an error logged. */
const MAX_ATTEMPTS = 12;

export class StoreIntakeWorker {
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = true;
  private readonly rounds = new CoalescedRounds(() => this.run(), () => !this.stopped);
  private poll: NodeJS.Timeout | null = null;
  private readonly warn: (details: object, message: string) => void;

  constructor(
    private readonly deps: { stores: StoreRepository; service: StoreService; logger: Logger; clock?: () => Date },
  ) {
    this.warn = throttledWarn(deps.logger);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.poll = setInterval(() => this.wake(), POLL_MS);
    this.poll.unref();
    this.wake();
  }

  wake(): void {
    this.rounds.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.poll) clearInterval(this.poll);
    await this.rounds.settled();
    await Promise.allSettled([...this.inFlight]);
  }

  private async run(): Promise<void> {
    try {
      while (!this.stopped) {
        const free = MAX_BATCHES_IN_FLIGHT - this.inFlight.size;
        if (free <= 0) return;
        const claimed = await this.deps.stores.claimDeliveries(CLAIM_BATCH, LEASE_MS);
        if (claimed.length) this.track(this.handle(claimed));
        if (claimed.length < CLAIM_BATCH) return;
      }
    } catch (error) {
      this.warn({ err: error }, "store intake round failed");
    }
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => {
      this.inFlight.delete(work);
      this.wake();
    });
  }

  private async handle(batch: ClaimedDelivery[]): Promise<void> {
    const now = this.deps.clock ?? (() => new Date());
    let outcome: Awaited<ReturnType<StoreService["processBatch"]>>;
    try {
      outcome = await this.deps.service.processBatch(batch);
    } catch (error) {
      outcome = { done: [], failed: batch.map((delivery) => ({ id: delivery.id, error })) };
    }
    const byId = new Map(batch.map((delivery) => [delivery.id, delivery]));
    const givenUp: { id: string; connectionId: string | null }[] = [];
    for (const { id, error } of outcome.failed) {
      const delivery = byId.get(id)!;
      if (delivery.attemptCount >= MAX_ATTEMPTS) {
        this.deps.logger.error({ err: error, deliveryId: id, topic: delivery.topic }, "store delivery given up after repeated failures");
        givenUp.push({ id, connectionId: null });
        continue;
      }
      this.warn({ err: error, deliveryId: id }, "store delivery failed; retried later");
      await this.deps.stores.deliveryRetry(id, Math.min(1_000 * 2 ** (delivery.attemptCount - 1), 5 * 60_000)).catch(() => undefined);
    }
    // Not marked done (the database failed): the lease runs out and the batch is processed again, idempotently.
    await this.deps.stores.deliveriesDone([...outcome.done, ...givenUp], now()).catch((error: unknown) => {
      this.warn({ err: error }, "store deliveries could not be marked done; processed again after their lease");
    });
  }
}
