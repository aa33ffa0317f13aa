import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import path from "node:path";

/**
 * A fake WhatsApp Cloud API on a real loopback HTTP port, speaking Meta's formats: it records every send and
 * answers success (fresh wamid) unless programmed per request or per recipient to answer a Graph error, a bare
 * HTTP status, a delay, or a connection reset.
 */
const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
const REPO_FIXTURES = path.join(REPO_ROOT, "test/fixtures/whatsapp");
/** The reference copy the repository's fixtures were taken from (not needed to run the tests). */
export const SHARED_FIXTURES = path.resolve(REPO_ROOT, "../shared/reference/whatsapp-fixtures");

export type FixtureName =
  | "send-success-response"
  | "send-error-131000-response"
  | "send-error-131030-response"
  | "send-error-132001-response"
  | "send-error-190-token-expired-response"
  | "send-template-request";

/** A fixture from test/fixtures/whatsapp (copied from shared/reference/whatsapp-fixtures), parsed fresh each call. */
export function loadFixture<T = any>(name: FixtureName): T {
  const file = path.join(REPO_FIXTURES, `${name}.json`);
  const source = existsSync(file) ? file : path.join(SHARED_FIXTURES, `${name}.json`);
  return JSON.parse(readFileSync(source, "utf8")) as T;
}

/** The HTTP status Meta's old error table pairs with each fixture (reference §16). */
export const GRAPH_ERROR_FIXTURES = {
  131000: { fixture: "send-error-131000-response", status: 500 },
  131030: { fixture: "send-error-131030-response", status: 400 },
  132001: { fixture: "send-error-132001-response", status: 404 },
  190: { fixture: "send-error-190-token-expired-response", status: 401 },
} as const satisfies Record<number, { fixture: FixtureName; status: number }>;

export type FakeReply =
  | { kind: "success" }
  | { kind: "graph-error"; status: number; body: unknown }
  | { kind: "status"; status: number; body?: string; contentType?: string }
  | { kind: "delay"; ms: number; then: FakeReply }
  | { kind: "reset" };

export const reply = {
  success: (): FakeReply => ({ kind: "success" }),
  /** A Graph error from a fixture, with the status Meta pairs with it. */
  graphError: (code: keyof typeof GRAPH_ERROR_FIXTURES, status?: number): FakeReply => ({
    kind: "graph-error",
    status: status ?? GRAPH_ERROR_FIXTURES[code].status,
    body: loadFixture(GRAPH_ERROR_FIXTURES[code].fixture),
  }),
  /** Any Graph error body `{ error: {...} }`. */
  graphErrorBody: (status: number, error: Record<string, unknown>): FakeReply => ({ kind: "graph-error", status, body: { error } }),
  status: (status: number, body = "", contentType = "text/html"): FakeReply => ({ kind: "status", status, body, contentType }),
  delay: (ms: number, then: FakeReply = { kind: "success" }): FakeReply => ({ kind: "delay", ms, then }),
  /** The connection is destroyed without an answer. */
  reset: (): FakeReply => ({ kind: "reset" }),
};

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (null when it was not JSON). */
  body: any;
  rawBody: string;
  at: number;
  /** The JSON answered (a success's `messages[0].id` is the wamid), once answered. */
  response?: any;
}

export class FakeWhatsApp {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: FakeReply[] = [];
  private readonly byRecipient = new Map<string, FakeReply[]>();
  private readonly sockets = new Set<Socket>();
  private readonly server = createServer((request, response) => void this.handle(request, response));

  private constructor() {
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    });
  }

  /** Starts on 127.0.0.1 with a random port. */
  static async start(): Promise<FakeWhatsApp> {
    const fake = new FakeWhatsApp();
    await new Promise<void>((resolve) => fake.server.listen(0, "127.0.0.1", resolve));
    return fake;
  }

  /** http://127.0.0.1:<port> */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** WHATSAPP_API_URL for the service: the base URL with the Graph version. */
  get apiUrl(): string {
    return `${this.url}/v26.0`;
  }

  /** Answers for the next requests, one each, before any per-recipient programme. */
  next(...replies: FakeReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /**
   * Answers for requests to `to` (digits, with or without "+"), in order; the last one keeps answering.
   * `forRecipient(phone, graphError(131000), success())`: one transient error, then success.
   */
  forRecipient(to: string, ...replies: FakeReply[]): this {
    this.byRecipient.set(to.replace(/^\+/, ""), replies);
    return this;
  }

  requestsTo(to: string): RecordedRequest[] {
    const digits = to.replace(/^\+/, "");
    return this.requests.filter((request) => String(request.body?.to ?? "").replace(/^\+/, "") === digits);
  }

  /** Forgets recorded requests and programmes. */
  reset(): void {
    this.requests.length = 0;
    this.queue.length = 0;
    this.byRecipient.clear();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString("utf8");
    let body: any = null;
    try {
      body = JSON.parse(rawBody);
    } catch {
      body = null;
    }
    const recorded: RecordedRequest = { method: request.method ?? "", path: request.url ?? "", headers: request.headers, body, rawBody, at: Date.now() };
    this.requests.push(recorded);
    await this.answer(this.replyFor(body), body, response, recorded);
  }

  private replyFor(body: any): FakeReply {
    const queued = this.queue.shift();
    if (queued) return queued;
    const programme = this.byRecipient.get(String(body?.to ?? "").replace(/^\+/, ""));
    if (programme?.length) return programme.length > 1 ? programme.shift()! : programme[0];
    return reply.success();
  }

  private async answer(planned: FakeReply, body: any, response: ServerResponse, recorded: RecordedRequest): Promise<void> {
    switch (planned.kind) {
      case "delay":
        await new Promise((resolve) => setTimeout(resolve, planned.ms));
        if (response.destroyed || response.socket?.destroyed) return; // the client gave up
        return this.answer(planned.then, body, response, recorded);
      case "reset":
        response.socket?.destroy();
        return;
      case "success":
        recorded.response = successBody(body?.to);
        return json(response, 200, recorded.response);
      case "graph-error":
        recorded.response = planned.body;
        return json(response, planned.status, planned.body);
      case "status":
        response.writeHead(planned.status, { "content-type": planned.contentType ?? "text/html" });
        response.end(planned.body ?? "");
    }
  }
}

/** The shape of send-success-response.json with a fresh wamid and the recipient echoed as Meta does. */
function successBody(to: unknown) {
  const success = loadFixture("send-success-response");
  const input = typeof to === "string" ? to : "";
  success.contacts = [{ input, wa_id: input.replace(/\D/g, "") }];
  success.messages = [{ id: `wamid.${randomBytes(30).toString("base64")}`, message_status: "accepted" }];
  return success;
}

function json(response: ServerResponse, status: number, body: unknown): void {
  if (response.destroyed) return;
  response.writeHead(status, { "content-type": "application/json; charset=UTF-8" });
  response.end(JSON.stringify(body));
}
