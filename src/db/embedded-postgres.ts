import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { SessionAwareQueue } from "./session-aware-queue.ts";

/**
 * Embedded PostgreSQL (PGlite, WASM) served over the PostgreSQL wire protocol on a unix socket, so the
 * runtime, the migrator and the CLI use exactly the same `pg`-based data path as against a real server.
 */
export interface EmbeddedPostgres {
  readonly db: PGlite;
  /** A `postgresql://` URL that reaches the embedded database through its socket. */
  readonly url: string;
  readonly dataDir: string | null;
  stop(): Promise<void>;
}

export const SOCKET_FILE = ".s.PGSQL.5432";
const LOCK_FILE = "ocs.lock";
/** Unix socket paths are limited to ~107 bytes; a longer data path gets its socket in a private temp dir. */
const MAX_SOCKET_PATH = 100;

export class DataDirLockedError extends Error {
  constructor(readonly dataDir: string, readonly pid: number) {
    super(`The embedded database in ${dataDir} is in use by process ${pid}.`);
  }
}

export function socketUrlFor(socketDir: string): string {
  return `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}`;
}

/** The running server that holds `dataDir`, if any (its socket URL and pid). */
export function findRunningServer(dataDir: string): { pid: number; url: string | null } | null {
  const holder = readLock(path.join(dataDir, LOCK_FILE));
  return holder && holderAlive(holder) ? { pid: holder.pid, url: holder.url } : null;
}

interface LockContent {
  pid: number;
  url: string | null;
  startTime: string | null;
}

/** `pid`, socket URL (once listening) and the process start time, one per line. */
function readLock(lockPath: string): LockContent | null {
  let text: string;
  try {
    text = readFileSync(lockPath, "utf8");
  } catch {
    return null;
  }
  const [pidText, url, startTime] = text.split("\n");
  const pid = Number(pidText);
  return Number.isInteger(pid) && pid > 0 ? { pid, url: url || null, startTime: startTime || null } : null;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Start time of a process (Linux), so a recycled pid is not mistaken for the lock's holder. */
function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

function holderAlive(holder: LockContent): boolean {
  if (!isAlive(holder.pid)) return false;
  const startTime = processStartTime(holder.pid);
  return !holder.startTime || !startTime || holder.startTime === startTime;
}

/** Replaces a file's content in one step: readers see the old or the new content, never a partial one. */
function writeAtomically(file: string, content: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, content, { mode: 0o600 });
  renameSync(temp, file);
}

const GUARD_STALE_MS = 10_000;

/**
 * One process per data directory: PGlite has no inter-process locking of its own. The lock file is created
 * with O_EXCL; a stale one (its process is gone) is removed only under a short-lived guard file, so two
 * processes finding the same stale lock cannot both remove it and each create their own.
 */
function acquireLock(dataDir: string): { release(): void; publish(url: string): void } {
  const lockPath = path.join(dataDir, LOCK_FILE);
  const guardPath = `${lockPath}.takeover`;
  const content = (url: string | null) => `${process.pid}\n${url ?? ""}\n${processStartTime(process.pid) ?? ""}\n`;
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      const fd = openSync(lockPath, "wx", 0o600);
      writeSync(fd, content(null));
      closeSync(fd);
      return {
        publish: (url) => writeAtomically(lockPath, content(url)),
        release() {
          if (readLock(lockPath)?.pid === process.pid) rmSync(lockPath, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = readLock(lockPath);
    if (holder && holderAlive(holder)) throw new DataDirLockedError(dataDir, holder.pid);
    if (holder === null && existsSync(lockPath)) {
      sleepSync(20); // being written right now by its new holder
      continue;
    }
    takeOverStaleLock(lockPath, guardPath);
  }
  throw new DataDirLockedError(dataDir, readLock(lockPath)?.pid ?? -1);
}

function takeOverStaleLock(lockPath: string, guardPath: string): void {
  let guard: number;
  try {
    guard = openSync(guardPath, "wx", 0o600);
  } catch {
    // Someone else is taking over; a guard left by a crashed process expires.
    try {
      if (Date.now() - statSync(guardPath).mtimeMs > GUARD_STALE_MS) rmSync(guardPath, { force: true });
    } catch {
      /* gone meanwhile */
    }
    sleepSync(20);
    return;
  }
  try {
    const holder = readLock(lockPath);
    if (holder && !holderAlive(holder)) rmSync(lockPath, { force: true });
  } finally {
    closeSync(guard);
    rmSync(guardPath, { force: true });
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export interface EmbeddedPostgresOptions {
  /** Directory of the data; null keeps everything in memory. */
  dataDir: string | null;
  /** Let the process exit while the server still listens (short-lived tools such as the Prisma CLI). */
  unref?: boolean;
  /** Start from a dump (`PGlite.dumpDataDir()`) instead of an empty cluster: tests clone a migrated template. */
  template?: Blob;
  /** How long one connection may hold the engine idle while others wait (see SessionAwareQueue). */
  ownerIdleLimitMs?: number;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const dataDir = options.dataDir ? path.resolve(options.dataDir) : null;
  let lock: ReturnType<typeof acquireLock> | null = null;
  if (dataDir) {
    // Customer data and the superuser socket: owner only, as PostgreSQL itself insists.
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    chmodSync(dataDir, 0o700);
    lock = acquireLock(dataDir);
  }
  // The socket lives beside the data (so the CLI finds it through the lock file), or in a private (0700)
  // temp dir for memory databases and data paths too long for a socket address. Never on TCP: the embedded
  // server has no authentication.
  const besideData = dataDir !== null && path.join(dataDir, SOCKET_FILE).length <= MAX_SOCKET_PATH;
  const socketDir = besideData ? dataDir! : mkdtempSync(path.join(tmpdir(), "ocs-pg-"));
  try {
    const db = await PGlite.create({
      dataDir: dataDir ? path.join(dataDir, "pgdata") : undefined,
      loadDataDir: options.template,
      // Without this, a start after an unclean stop leaves a 10 s progress timer holding the event loop.
      startParams: [...(PGlite as unknown as { defaultStartParams: string[] }).defaultStartParams,
        "-c", "log_startup_progress_interval=0"],
    });
    const socketPath = path.join(socketDir, SOCKET_FILE);
    if (existsSync(socketPath)) unlinkSync(socketPath);
    const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 64 });
    // Replaced before any connection exists: handlers take the server's queue when they attach.
    (server as unknown as { queryQueue: SessionAwareQueue }).queryQueue = new SessionAwareQueue(db, options.ownerIdleLimitMs);
    await server.start();
    if (options.unref) {
      const listener = (server as unknown as { server: import("node:net").Server }).server;
      listener.unref();
      listener.on("connection", (socket) => socket.unref());
    }
    const url = socketUrlFor(socketDir);
    lock?.publish(url);
    return {
      db,
      url,
      dataDir,
      async stop() {
        await server.stop();
        await db.close();
        lock?.release();
        if (!besideData) rmSync(socketDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    lock?.release();
    if (!besideData) rmSync(socketDir, { recursive: true, force: true });
    throw error;
  }
}
