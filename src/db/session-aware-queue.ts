import type { PGlite } from "@electric-sql/pglite";

/**
 * The query queue of the embedded engine's socket server (replaces pglite-socket's own).
 *
 * PGlite is one PostgreSQL session shared by every socket connection. pglite-socket's queue interleaves
 * connections message by message, so one client's Parse/Bind/Execute can land between another's and run
 * the wrong statement; and it stalls for good after an engine exception. This queue gives a connection the
 * engine from the first message of an extended-protocol batch until its Sync (or a simple Query) has run,
 * and for as long as that connection has a transaction open. Other connections wait their turn, but not
 * forever: an owner that stays silent while others wait is rolled back and cut off.
 */
interface Entry {
  handlerId: number;
  message: Uint8Array;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (error: unknown) => void;
}

const SYNC = 0x53; // 'S'
const QUERY = 0x51; // 'Q'
const TERMINATE = 0x58; // 'X'
const SYNC_MESSAGE = new Uint8Array([SYNC, 0, 0, 0, 4]);

export class OwnerEvictedError extends Error {
  constructor() {
    super("connection closed: it held the embedded database idle while others waited");
  }
}

export class SessionAwareQueue {
  private queue: Entry[] = [];
  private processing = false;
  private owner: number | null = null;
  private ownerActiveAt = 0;
  private readonly gone = new Set<number>();
  private watchdog: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: PGlite,
    /** How long an owner may stay silent while other connections wait. */
    private readonly ownerIdleLimitMs = 30_000,
  ) {}

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    if (this.gone.has(handlerId)) return Promise.reject(new OwnerEvictedError());
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
      void this.process();
    });
  }

  getQueueLength(): number {
    return this.queue.length;
  }

  clearQueueForHandler(handlerId: number): void {
    this.gone.add(handlerId);
    this.rejectQueued(handlerId, new Error("Handler disconnected"));
  }

  /** Called when a connection goes away: end its half-sent batch and its transaction, then free the engine. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.owner === handlerId) await this.release();
    void this.process();
  }

  private rejectQueued(handlerId: number, error: Error): void {
    this.queue = this.queue.filter((entry) => {
      if (entry.handlerId !== handlerId) return true;
      entry.reject(error);
      return false;
    });
  }

  /** Sync ends any extended-protocol batch (and its error state); then an open transaction is rolled back. */
  private async release(): Promise<void> {
    await this.db.runExclusive(() => this.db.execProtocolRawStream(SYNC_MESSAGE, { onRawData: () => undefined }));
    // exec takes the engine's lock itself.
    if (this.db.isInTransaction()) await this.db.exec("ROLLBACK");
    this.owner = null;
  }

  private next(): Entry | undefined {
    if (this.owner === null) return this.queue.shift();
    const index = this.queue.findIndex((entry) => entry.handlerId === this.owner);
    if (index === -1) {
      if (this.queue.length > 0) this.watch();
      return undefined;
    }
    return this.queue.splice(index, 1)[0];
  }

  private watch(): void {
    if (this.watchdog) return;
    this.watchdog = setTimeout(() => {
      this.watchdog = null;
      void this.evictIdleOwner();
    }, this.ownerIdleLimitMs);
    this.watchdog.unref();
  }

  private async evictIdleOwner(): Promise<void> {
    const owner = this.owner;
    if (owner === null || this.processing || this.queue.length === 0) return;
    if (Date.now() - this.ownerActiveAt < this.ownerIdleLimitMs) return this.watch();
    this.gone.add(owner);
    this.rejectQueued(owner, new OwnerEvictedError());
    await this.release();
    void this.process();
  }

  private async process(): Promise<void> {
    if (this.processing) return;
    this.processing = true;
    try {
      for (let entry = this.next(); entry; entry = this.next()) {
        let bytes = 0;
        let failed: unknown = null;
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(entry!.message, {
              onRawData: (data) => {
                bytes += data.length;
                entry!.onData(data);
              },
            }),
          );
        } catch (error) {
          failed = error;
        }
        const type = entry.message[0];
        const batchDone = failed !== null || type === SYNC || type === QUERY || type === TERMINATE || type === 0;
        const keeps = (!batchDone || this.db.isInTransaction()) && !this.gone.has(entry.handlerId);
        this.owner = keeps ? entry.handlerId : null;
        this.ownerActiveAt = Date.now();
        if (!keeps && this.gone.has(entry.handlerId) && this.db.isInTransaction()) await this.release();
        if (failed !== null) entry.reject(failed);
        else entry.resolve(bytes);
      }
    } finally {
      this.processing = false;
    }
  }
}
