import { mkdirSync, openSync, closeSync, writeSync, readFileSync, unlinkSync, existsSync } from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
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
/** Unix socket paths are limited to ~107 bytes; beyond that we fall back to a loopback TCP port. */
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
  const lockPath = path.join(dataDir, LOCK_FILE);
  if (!existsSync(lockPath)) return null;
  const [pidText, url] = readFileSync(lockPath, "utf8").split("\n");
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || !isAlive(pid)) return null;
  return { pid, url: url ? url : null };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** One process per data directory: PGlite has no inter-process locking of its own. */
function acquireLock(dataDir: string): { release(): void; publish(url: string): void } {
  const lockPath = path.join(dataDir, LOCK_FILE);
  const holder = findRunningServer(dataDir);
  if (holder && holder.pid !== process.pid) throw new DataDirLockedError(dataDir, holder.pid);
  if (existsSync(lockPath)) unlinkSync(lockPath); // stale: its process is gone
  let fd: number;
  try {
    fd = openSync(lockPath, "wx");
  } catch {
    const racer = findRunningServer(dataDir);
    throw new DataDirLockedError(dataDir, racer?.pid ?? -1);
  }
  writeSync(fd, `${process.pid}\n`);
  closeSync(fd);
  return {
    publish(url) {
      const out = openSync(lockPath, "w");
      writeSync(out, `${process.pid}\n${url}\n`);
      closeSync(out);
    },
    release() {
      try {
        if (findRunningServer(dataDir)?.pid === process.pid) unlinkSync(lockPath);
      } catch {
        /* already gone */
      }
    },
  };
}

export interface EmbeddedPostgresOptions {
  /** Directory of the data; null keeps everything in memory. */
  dataDir: string | null;
  /** Let the process exit while the server still listens (short-lived tools such as the Prisma CLI). */
  unref?: boolean;
  /** Start from a dump (`PGlite.dumpDataDir()`) instead of an empty cluster: tests clone a migrated template. */
  template?: Blob;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const dataDir = options.dataDir ? path.resolve(options.dataDir) : null;
  let lock: ReturnType<typeof acquireLock> | null = null;
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    lock = acquireLock(dataDir);
  }
  // The socket lives beside the data (so the CLI finds it), or in a private temp dir for memory databases.
  const socketDir = dataDir ?? mkdtempSync(path.join(tmpdir(), "ocs-pg-"));
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
    const useSocket = socketPath.length <= MAX_SOCKET_PATH;
    const server = new PGLiteSocketServer({
      db,
      ...(useSocket ? { path: socketPath } : { host: "127.0.0.1", port: 0 }),
      maxConnections: 64,
    });
    // Replaced before any connection exists: handlers take the server's queue when they attach.
    (server as unknown as { queryQueue: SessionAwareQueue }).queryQueue = new SessionAwareQueue(db);
    await server.start();
    if (options.unref) {
      const listener = (server as unknown as { server: import("node:net").Server }).server;
      listener.unref();
      listener.on("connection", (socket) => socket.unref());
    }
    const url = useSocket ? socketUrlFor(socketDir) : `postgresql://postgres@${server.getServerConn()}/postgres`;
    lock?.publish(url);
    return {
      db,
      url,
      dataDir,
      async stop() {
        await server.stop();
        await db.close();
        lock?.release();
        if (!dataDir) rmSync(socketDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    lock?.release();
    throw error;
  }
}
