import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/**
 * A merchant's webhook receiver: a real HTTP server on loopback that records every request and verifies it
 * exactly as a merchant would, with the official `standardwebhooks` library on the raw body. Each test tells it
 * how to answer (status, Retry-After, a delay, a hang, a redirect).
 */
export interface ReceivedWebhook {
  method: string;
  path: string;
  headers: Record<string, string>;
  rawBody: string;
  receivedAt: number;
  /** `new Webhook(secret).verify(rawBody, headers)`: true, or the error it threw (null when no secret was set). */
  verified: true | string | null;
  /** The parsed envelope (null when the body is not JSON). */
  body: any;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Answer after this long. */
  delayMs?: number;
  /** Never answer (until `release()` or close). */
  hang?: boolean;
}

export type Responder = (request: ReceivedWebhook, index: number) => Reply | undefined;

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** `origin` + `path` (default `/hooks`). */
  url(path?: string): string;
  readonly port: number;
  /** Every request so far, in arrival order. */
  readonly requests: ReceivedWebhook[];
  /** The signing secret to verify with (set it once the endpoint is created). */
  secret: string | null;
  /** How to answer each request; unset: 204. */
  respond(responder: Responder): void;
  /** Resolves once `count` requests matching `filter` have arrived. */
  waitFor(count: number, filter?: (request: ReceivedWebhook) => boolean, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  /** Requests that are hanging (`hang: true`) and not yet answered. */
  readonly hanging: number;
  /** Answers every hanging request with `status`. */
  release(status?: number): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(options: { secret?: string } = {}): Promise<WebhookReceiver> {
  const requests: ReceivedWebhook[] = [];
  const waiters = new Set<() => void>();
  const hanging = new Set<ServerResponse>();
  let responder: Responder = () => undefined;

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : String(value)]),
      );
      const received: ReceivedWebhook = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers,
        rawBody,
        receivedAt: Date.now(),
        verified: verify(receiver.secret, rawBody, headers),
        body: parse(rawBody),
      };
      requests.push(received);
      const reply = responder(received, requests.length - 1) ?? {};
      waiters.forEach((check) => check());
      const answer = () => {
        hanging.delete(res);
        if (res.writableEnded || res.destroyed) return;
        res.writeHead(reply.status ?? 204, reply.headers ?? {});
        res.end(reply.body ?? "");
      };
      if (reply.hang) {
        hanging.add(res);
        res.on("close", () => hanging.delete(res));
      } else if (reply.delayMs) setTimeout(answer, reply.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  const receiver: WebhookReceiver = {
    origin,
    port,
    url: (path = "/hooks") => `${origin}${path}`,
    requests,
    secret: options.secret ?? null,
    respond(next) {
      responder = next;
    },
    waitFor(count, filter = () => true, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const matching = requests.filter(filter);
          if (matching.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(matching);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          const seen = requests.map((r) => `${r.headers["x-webhook-event"]} ${r.headers["webhook-id"]}`).join("\n  ");
          reject(new Error(`expected ${count} matching webhook request(s) within ${timeoutMs} ms; got ${requests.filter(filter).length}:\n  ${seen}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    get hanging() {
      return hanging.size;
    },
    release(status = 204) {
      for (const res of [...hanging]) {
        hanging.delete(res);
        if (!res.writableEnded && !res.destroyed) {
          res.writeHead(status);
          res.end();
        }
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

function verify(secret: string | null, rawBody: string, headers: Record<string, string>): true | string | null {
  if (!secret) return null;
  try {
    new Webhook(secret).verify(rawBody, headers);
    return true;
  } catch (error) {
    return String((error as Error).message);
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
