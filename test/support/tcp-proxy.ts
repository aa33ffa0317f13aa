import net from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { SOCKET_FILE, socketUrlFor } from "../../src/db/embedded-postgres.ts";

/**
 * A byte-for-byte proxy in front of a database, which a test can cut (every connection dropped, new ones
 * refused, as when PostgreSQL stops), black-hole (every byte either way silently dropped, connections left open and
 * new ones accepted, as when a firewall or a dead network path drops packets) and restore. It listens where the target does: on loopback TCP for
 * PostgreSQL, on a unix socket (in its own directory) for the embedded database.
 */
export interface DatabaseProxy {
  /** The database URL that goes through the proxy. */
  readonly url: string;
  /** Connections currently open through the proxy. */
  readonly open: number;
  cut(): Promise<void>;
  /** Nothing answers any more, and nothing says so: no reset, no close. */
  blackHole(): void;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function proxyDatabase(targetUrl: string): Promise<DatabaseProxy> {
  const target = new URL(targetUrl);
  const socketDir = target.searchParams.get("host");
  const connectTarget = (): net.Socket =>
    socketDir ? net.connect(path.join(socketDir, SOCKET_FILE)) : net.connect(Number(target.port || 5432), target.hostname);

  const sockets = new Set<net.Socket>();
  let silent = false;
  const forward = (from: net.Socket, to: net.Socket) =>
    from.on("data", (chunk) => {
      if (!silent) to.write(chunk);
    });
  const server = net.createServer((client) => {
    const upstream = connectTarget();
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
    }
    forward(client, upstream);
    forward(upstream, client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });

  const ownDir = socketDir ? mkdtempSync(path.join(tmpdir(), "ocs-proxy-")) : null;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      const done = () => {
        server.off("error", reject);
        resolve();
      };
      if (ownDir) server.listen(path.join(ownDir, SOCKET_FILE), done);
      else server.listen(port, "127.0.0.1", done);
    });
  await listen();
  if (!ownDir) port = (server.address() as net.AddressInfo).port;

  let url: string;
  if (ownDir) {
    const proxied = new URL(socketUrlFor(ownDir));
    proxied.pathname = target.pathname;
    url = proxied.toString();
  } else {
    const proxied = new URL(targetUrl);
    proxied.hostname = "127.0.0.1";
    proxied.port = String(port);
    url = proxied.toString();
  }

  let listening = true;
  const stop = async () => {
    if (!listening) return;
    listening = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  return {
    url,
    get open() {
      return sockets.size / 2;
    },
    cut: stop,
    blackHole() {
      silent = true;
    },
    async restore() {
      silent = false;
      if (listening) return;
      await listen();
      listening = true;
    },
    async close() {
      await stop();
      if (ownDir) rmSync(ownDir, { recursive: true, force: true });
    },
  };
}
