import type { Server } from "node:http";
import type { Socket } from "node:net";

/**
 * At most `maxPerAddress` open connections per peer address (0: unbounded). One more is closed at once, before
 * the HTTP server reads anything from it (so no request on it ever runs), after a best-effort minimal 429
 * RATE_LIMITED (in English: nothing of the request is known yet). One client, or a slow-body attack from one
 * address, cannot hold every socket the process has. Upgraded websockets count while open. Behind a proxy every connection comes from the proxy's address: raise the bound or set it to 0
 * there, and let the proxy bound its clients.
 */
export function limitConnectionsPerAddress(server: Server, maxPerAddress: number): { readonly open: number } {
  const perAddress = new Map<string, number>();
  let open = 0;
  if (maxPerAddress > 0) {
    // Ahead of the HTTP server's own listener, so that a refused socket never gets a parser.
    server.prependListener("connection", (socket: Socket) => {
      const address = socket.remoteAddress ?? "unknown";
      const held = perAddress.get(address) ?? 0;
      if (held >= maxPerAddress) {
        refuse(socket, maxPerAddress);
        return;
      }
      perAddress.set(address, held + 1);
      open++;
      socket.once("close", () => {
        open--;
        const left = (perAddress.get(address) ?? 1) - 1;
        if (left > 0) perAddress.set(address, left);
        else perAddress.delete(address);
      });
    });
  }
  return {
    get open() {
      return open;
    },
  };
}

const RETRY_AFTER_SECONDS = 1;

function refuse(socket: Socket, limit: number): void {
  const body = JSON.stringify({
    success: false,
    message: `Too many open connections from this address (at most ${limit}); retry in ${RETRY_AFTER_SECONDS} second`,
    error: "RATE_LIMITED",
  });
  socket.on("error", () => undefined);
  // A fresh socket's first write goes straight to the kernel; the socket is then closed without waiting.
  socket.write(
    "HTTP/1.1 429 Too Many Requests\r\n" +
      "Content-Type: application/json; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `Retry-After: ${RETRY_AFTER_SECONDS}\r\n` +
      "Connection: close\r\n\r\n" +
      body,
  );
  socket.destroy();
}

