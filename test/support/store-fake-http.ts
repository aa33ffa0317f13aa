import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * Pieces shared by the store fakes (fake-woocommerce.ts, fake-salla.ts): programmed replies, request recording,
 * PHP-style JSON (both platforms are PHP: `wp_json_encode`/`json_encode` escape "/" and non-ASCII, so a receiver
 * that re-serialised the body instead of verifying the raw bytes would fail), and POSTing a delivery.
 */
export type StoreFakeReply =
  | { kind: "status"; status: number; body?: unknown; headers?: Record<string, string> }
  | { kind: "delay"; ms: number; then?: StoreFakeReply }
  | { kind: "reset" };

export const storeReply = {
  status: (status: number, body?: unknown, headers?: Record<string, string>): StoreFakeReply => ({ kind: "status", status, body, headers }),
  /** 429 with Retry-After in seconds. */
  rateLimited: (retryAfterSeconds: number, body?: unknown): StoreFakeReply => ({
    kind: "status",
    status: 429,
    body: body ?? { status: 429, success: false, error: { code: "TooManyRequests", message: "Too Many Attempts." } },
    headers: { "retry-after": String(retryAfterSeconds) },
  }),
  serverError: (status = 500): StoreFakeReply => ({ kind: "status", status, body: "<html><body>Internal Server Error</body></html>" }),
  delay: (ms: number, then?: StoreFakeReply): StoreFakeReply => ({ kind: "delay", ms, then }),
  reset: (): StoreFakeReply => ({ kind: "reset" }),
};

export interface StoreFakeRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: any;
  at: number;
  status?: number;
}

export async function readRequest(request: IncomingMessage): Promise<StoreFakeRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const rawBody = Buffer.concat(chunks).toString("utf8");
  let body: any = null;
  const type = String(request.headers["content-type"] ?? "");
  if (type.includes("application/x-www-form-urlencoded")) body = Object.fromEntries(new URLSearchParams(rawBody));
  else {
    try {
      body = rawBody ? JSON.parse(rawBody) : null;
    } catch {
      body = null;
    }
  }
  return { method: request.method ?? "", path: request.url ?? "", headers: request.headers, rawBody, body, at: Date.now() };
}

/** Answers a programmed reply; returns false when the connection was reset instead. */
export async function answer(response: ServerResponse, reply: StoreFakeReply, recorded: StoreFakeRequest): Promise<void> {
  switch (reply.kind) {
    case "delay":
      await new Promise((resolve) => setTimeout(resolve, reply.ms));
      if (response.destroyed || response.socket?.destroyed) return;
      return answer(response, reply.then ?? { kind: "status", status: 200, body: {} }, recorded);
    case "reset":
      response.socket?.destroy();
      return;
    case "status":
      recorded.status = reply.status;
      return send(response, reply.status, reply.body, reply.headers);
  }
}

export function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (response.destroyed) return;
  const text = typeof body === "string" ? body : body === undefined ? "" : phpJson(body);
  const type = typeof body === "string" ? "text/html; charset=UTF-8" : "application/json; charset=UTF-8";
  response.writeHead(status, { "content-type": type, ...headers });
  response.end(text);
}

/** PHP's json_encode defaults: "/" as "\/" and every non-ASCII character as \uXXXX. */
export function phpJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/\//g, "\\/")
    .replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export interface DeliveryResult {
  status: number;
  body: string;
}

/** POSTs a delivery as the platform does (a fresh connection, its headers) and returns the answer. */
export function postDelivery(url: string, body: string, headers: Record<string, string>, timeoutMs = 20_000): Promise<DeliveryResult> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const outgoing = httpRequest(
      target,
      { method: "POST", agent: false, headers: { ...headers, "content-length": String(Buffer.byteLength(body)) }, timeout: timeoutMs },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        response.on("error", reject);
      },
    );
    outgoing.on("timeout", () => outgoing.destroy(new Error("delivery timed out")));
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

/**
 * The loopback HTTP server under each store fake: a free port of 127.0.0.1, every request recorded (in arrival
 * order) before the fake handles it, programmed answers queued with `next` (each fake says which calls take them),
 * and kept-alive sockets dropped on close so the service under test sees the store go away.
 */
export abstract class StoreFakeServer {
  readonly requests: StoreFakeRequest[] = [];
  protected readonly queue: StoreFakeReply[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly server = createServer((request, response) => void this.receive(request, response));

  protected constructor() {
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    });
  }

  protected listen(): Promise<void> {
    return new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Answers for the next calls that take programmed answers, one each, before the fake's own logic. */
  next(...replies: StoreFakeReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  reset(): void {
    this.requests.length = 0;
    this.queue.length = 0;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  protected abstract handle(recorded: StoreFakeRequest, response: ServerResponse): Promise<void> | void;

  private async receive(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const recorded = await readRequest(request);
    this.requests.push(recorded);
    await this.handle(recorded, response);
  }
}
