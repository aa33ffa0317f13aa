/**
 * Writes attempts' outcomes in batches: an outcome waits a few milliseconds (lingerMs) for others, and while one
 * batch is being written, the outcomes of the attempts that finish meanwhile queue up for the next. Under load
 * that is one statement for many deliveries instead of one each; when idle, a batch of one, lingerMs late.
 *
 * Nothing is acknowledged before its write commits: a delivery stays leased (so no instance attempts it again, and
 * the next event of its order waits) until its outcome is recorded. A failed write (database down) leaves the
 * leases to run out, after which the attempts are made again: at least once, as before batching.
 */
export interface AttemptRecorderOptions<T, R> {
  /** Writes a batch; returns which entries still held their lease (see WebhookDeliveryRepository.recordAttempts). */
  write: (batch: readonly T[]) => Promise<R>;
  /** Entries per statement. */
  maxBatch: number;
  /**
   * How long a batch waits for more outcomes before it is written, unless `fullBatch` are already queued. The
   * attempts in flight finish meanwhile and join it: a statement per many outcomes rather than per few (on the
   * embedded engine a statement also stops every request under way while it runs).
   */
  lingerMs: number;
  fullBatch: number;
  /** Called after each written batch (in the writer's loop: keep it cheap and synchronous). */
  written: (batch: readonly T[], result: R) => void;
  failed: (error: unknown, batch: readonly T[]) => void;
}

export class AttemptRecorder<T, R> {
  private queue: T[] = [];
  private writing: Promise<void> | null = null;

  constructor(private readonly options: AttemptRecorderOptions<T, R>) {}

  /** Outcomes queued or being written. */
  get pending(): number {
    return this.queue.length + (this.writing ? this.inBatch : 0);
  }

  private inBatch = 0;

  private lingering: (() => void) | null = null;

  record(entry: T): void {
    this.queue.push(entry);
    if (this.queue.length >= this.options.fullBatch) this.lingering?.();
    this.writing ??= this.writeAll().finally(() => {
      this.writing = null;
    });
  }

  /** Resolves once everything recorded so far is written (or failed). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async writeAll(): Promise<void> {
    while (this.queue.length) {
      await this.linger();
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.inBatch = batch.length;
      let result: R;
      try {
        result = await this.options.write(batch);
      } catch (error) {
        this.inBatch = 0;
        this.options.failed(error, batch);
        continue;
      }
      this.inBatch = 0;
      this.options.written(batch, result);
    }
  }

  private linger(): Promise<void> {
    if (this.queue.length >= this.options.fullBatch) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, this.options.lingerMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.lingering = () => {
        this.lingering = null;
        done();
      };
    }).finally(() => {
      this.lingering = null;
    });
  }
}
