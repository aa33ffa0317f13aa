import type { PGlite } from "@electric-sql/pglite";

/**
 * The query queue of the embedded engine's socket server (replaces pglite-socket's own).
 *
 * PGlite is one PostgreSQL session shared by every socket connection. pglite-socket's queue interleaves
 * connections message by message, so one client's Parse/Bind/Execute can land between another's and run
 * the wrong statement; and it stalls for good after an engine exception. This queue gives a connection the
 * engine from the first message of an extended-protocol batch until its Sync (or a simple Query) has run,
 * and for as long as that connection has a transaction open. Other connections wait their turn.
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

export class SessionAwareQueue {
  private queue: Entry[] = [];
  private processing = false;
  private owner: number | null = null;

  constructor(private readonly db: PGlite) {}

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
      void this.process();
    });
  }

  getQueueLength(): number {
    return this.queue.length;
  }

  clearQueueForHandler(handlerId: number): void {
    this.queue = this.queue.filter((entry) => {
      if (entry.handlerId !== handlerId) return true;
      entry.reject(new Error("Handler disconnected"));
      return false;
    });
    if (this.owner === handlerId && !this.db.isInTransaction()) this.owner = null;
    void this.process();
  }

  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.owner !== handlerId) return;
    if (this.db.isInTransaction()) await this.db.exec("ROLLBACK");
    this.owner = null;
    void this.process();
  }

  private next(): Entry | undefined {
    if (this.owner === null) return this.queue.shift();
    const index = this.queue.findIndex((entry) => entry.handlerId === this.owner);
    return index === -1 ? undefined : this.queue.splice(index, 1)[0];
  }

  private async process(): Promise<void> {
    if (this.processing) return;
    this.processing = true;
    try {
      for (let entry = this.next(); entry; entry = this.next()) {
        let bytes = 0;
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
          this.owner = this.db.isInTransaction() ? entry.handlerId : null;
          entry.reject(error);
          continue;
        }
        const type = entry.message[0];
        const batchDone = type === SYNC || type === QUERY || type === TERMINATE || type === 0;
        this.owner = !batchDone || this.db.isInTransaction() ? entry.handlerId : null;
        entry.resolve(bytes);
      }
    } finally {
      this.processing = false;
    }
  }
}
