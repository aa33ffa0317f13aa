import { randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { twilioSignature } from "../../src/providers/twilio/twilio-signature.ts";

/**
 * A fake of Twilio's Messages API on loopback: `POST /2010-04-01/Accounts/{sid}/Messages.json`, form-encoded,
 * basic auth (wrong credentials: 401 with Twilio's error 20003), answering 201 with a Message resource as Twilio
 * does, or a programmed error. Status callbacks go to the message's StatusCallback, form-encoded and signed with
 * `X-Twilio-Signature` exactly as Twilio signs them (the URL, then the sorted parameters, HMAC-SHA1 with the
 * auth token).
 */
export const TEST_TWILIO_SID = `AC${"0123456789abcdef".repeat(2)}`;
export const TEST_TWILIO_TOKEN = "twilio-test-auth-token-0123456789";
export const TEST_TWILIO_FROM = "+15005550006";

export type TwilioReply =
  | { kind: "created" }
  | { kind: "error"; status: number; code: number; message: string }
  /** Never answers (the client's timeout fires). */
  | { kind: "hang" };

export const twilioReply = {
  created: (): TwilioReply => ({ kind: "created" }),
  invalidTo: (): TwilioReply => ({ kind: "error", status: 400, code: 21211, message: "The 'To' number is not a valid phone number." }),
  unreachable: (): TwilioReply => ({ kind: "error", status: 400, code: 21612, message: "The 'To' phone number is not currently reachable via SMS." }),
  serverError: (): TwilioReply => ({ kind: "error", status: 500, code: 20500, message: "An internal server error has occurred" }),
  tooManyRequests: (): TwilioReply => ({ kind: "error", status: 429, code: 20429, message: "Too Many Requests" }),
  hang: (): TwilioReply => ({ kind: "hang" }),
};

export interface SentSms {
  sid: string;
  to: string;
  from: string | null;
  messagingServiceSid: string | null;
  body: string;
  statusCallback: string | null;
  headers: IncomingHttpHeaders;
  path: string;
}

export class FakeTwilio {
  /** Every send request received (answered or not). */
  readonly requests: { path: string; headers: IncomingHttpHeaders; form: URLSearchParams }[] = [];
  /** The messages created (201). */
  readonly messages: SentSms[] = [];
  private readonly queue: TwilioReply[] = [];
  /** Every created message is answered this much later (sends in flight, for crash tests). */
  delayMs = 0;
  private readonly sockets = new Set<Socket>();
  private readonly server = createServer((request, response) => void this.handle(request, response));
  private constructor(readonly authToken: string) {
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    });
  }

  static async start(authToken = TEST_TWILIO_TOKEN): Promise<FakeTwilio> {
    const fake = new FakeTwilio(authToken);
    await new Promise<void>((resolve) => fake.server.listen(0, "127.0.0.1", resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The service's settings pointing at this fake. */
  get env(): Record<string, string> {
    return {
      SMS_PROVIDER: "twilio",
      TWILIO_ACCOUNT_SID: TEST_TWILIO_SID,
      TWILIO_AUTH_TOKEN: this.authToken,
      TWILIO_FROM: TEST_TWILIO_FROM,
      TWILIO_API_URL: this.url,
    };
  }

  /** Answers for the next sends, one each; afterwards every send is created. */
  next(...replies: TwilioReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  messagesTo(digits: string): SentSms[] {
    return this.messages.filter((message) => message.to === `+${digits.replace(/^\+/, "")}`);
  }

  /**
   * Twilio reports a status of message `sid` to its StatusCallback, signed the real way (`signWith` another
   * token to forge one; `signature: null` to leave the header out). Returns the service's answer.
   */
  async sendStatus(
    sid: string,
    status: string,
    options: { errorCode?: number; signWith?: string; signature?: string | null; url?: string } = {},
  ): Promise<{ status: number; text: string }> {
    const message = this.messages.find((entry) => entry.sid === sid);
    const url = options.url ?? message?.statusCallback;
    if (!url) throw new Error(`no StatusCallback for ${sid}`);
    const form = new URLSearchParams({
      AccountSid: TEST_TWILIO_SID,
      ApiVersion: "2010-04-01",
      From: message?.from ?? TEST_TWILIO_FROM,
      MessageSid: sid,
      MessageStatus: status,
      SmsSid: sid,
      SmsStatus: status,
      To: message?.to ?? "+15005550006",
    });
    if (options.errorCode !== undefined) form.set("ErrorCode", String(options.errorCode));
    const signature = options.signature === undefined ? twilioSignature(options.signWith ?? this.authToken, url, form.entries()) : options.signature;
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", "user-agent": "TwilioProxy/1.1" };
    if (signature !== null) headers["x-twilio-signature"] = signature;
    const response = await fetch(url, { method: "POST", headers, body: form.toString() });
    return { status: response.status, text: await response.text() };
  }

  reset(): void {
    this.requests.length = 0;
    this.messages.length = 0;
    this.queue.length = 0;
    this.delayMs = 0;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
    const path = request.url ?? "";
    this.requests.push({ path, headers: request.headers, form });
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    const match = /^\/2010-04-01\/Accounts\/(AC[0-9a-f]{32})\/Messages\.json$/.exec(path);
    if (request.method !== "POST" || !match) return json(404, { code: 20404, message: "The requested resource was not found", status: 404 });
    const expected = `Basic ${Buffer.from(`${TEST_TWILIO_SID}:${this.authToken}`).toString("base64")}`;
    if (match[1] !== TEST_TWILIO_SID || request.headers.authorization !== expected) {
      return json(401, { code: 20003, message: "Authentication Error - invalid username", status: 401 });
    }
    if (!/^application\/x-www-form-urlencoded/.test(request.headers["content-type"] ?? "")) {
      return json(400, { code: 20001, message: "Unsupported content type", status: 400 });
    }
    const to = form.get("To");
    const body = form.get("Body");
    if (!to || !/^\+[1-9]\d{1,14}$/.test(to)) return json(400, { code: 21211, message: `Invalid 'To' Phone Number: ${to}`, status: 400 });
    if (!body) return json(400, { code: 21602, message: "Message body is required.", status: 400 });
    if (!form.get("From") && !form.get("MessagingServiceSid")) return json(400, { code: 21603, message: "A 'From' phone number is required.", status: 400 });
    const reply = this.queue.shift() ?? twilioReply.created();
    if (reply.kind === "hang") return; // the socket stays open until close()
    if (reply.kind === "error") return json(reply.status, { code: reply.code, message: reply.message, more_info: `https://www.twilio.com/docs/errors/${reply.code}`, status: reply.status });
    if (this.delayMs) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const sid = `SM${randomBytes(16).toString("hex")}`;
    const message: SentSms = {
      sid,
      to,
      from: form.get("From"),
      messagingServiceSid: form.get("MessagingServiceSid"),
      body,
      statusCallback: form.get("StatusCallback"),
      headers: request.headers,
      path,
    };
    this.messages.push(message);
    json(201, {
      sid,
      account_sid: TEST_TWILIO_SID,
      to,
      from: message.from,
      messaging_service_sid: message.messagingServiceSid,
      body,
      status: "queued",
      num_segments: "1",
      direction: "outbound-api",
      api_version: "2010-04-01",
      error_code: null,
      error_message: null,
      uri: `/2010-04-01/Accounts/${TEST_TWILIO_SID}/Messages/${sid}.json`,
    });
  }
}
