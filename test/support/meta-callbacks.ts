import { createHmac, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Meta-shaped WhatsApp callbacks, built from the fixtures in test/fixtures/whatsapp/ (copies of Meta's
 * documented shapes) with this test's wamids and ids, signed like Meta signs them and POSTed over real HTTP.
 */
const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "whatsapp");

export const TEST_APP_SECRET = "test-app-secret-0123456789abcdef";
export const TEST_VERIFY_TOKEN = "vt_test_9f2c71e0b4";

export function fixture<T = any>(name: string): T {
  return JSON.parse(readFileSync(path.join(FIXTURES, name), "utf8")) as T;
}

/** A fresh inbound-message id, as Meta assigns one per message. */
export const newInboundId = () => `wamid.TEST${randomBytes(16).toString("base64url")}`;

export function sign(rawBody: string | Buffer, secret = TEST_APP_SECRET): string {
  return `sha256=${createHmac("sha256", secret).update(rawBody).digest("hex")}`;
}

type Status = "sent" | "delivered" | "read" | "failed";
const STATUS_FIXTURE: Record<Status, string> = {
  sent: "webhook-status-sent.json",
  delivered: "webhook-status-delivered.json",
  read: "webhook-status-read.json",
  failed: "webhook-status-failed-131026.json",
};

/** A status notification for our message `wamid` (of order `orderId`, named in biz_opaque_callback_data). */
export function statusCallback(
  wamid: string,
  status: Status,
  options: { orderId?: string; reminder?: number; timestamp?: number } = {},
) {
  const body = fixture(STATUS_FIXTURE[status]);
  const item = body.entry[0].changes[0].value.statuses[0];
  item.id = wamid;
  if (options.orderId) {
    item.biz_opaque_callback_data = options.reminder ? `order=${options.orderId};reminder=${options.reminder}` : `order=${options.orderId}`;
  }
  else delete item.biz_opaque_callback_data;
  if (options.timestamp) item.timestamp = String(options.timestamp);
  return body;
}

/**
 * Taps come from the order's customer (SPEC §14: a tap from any other number changes nothing); by default the
 * phone of fixtures.ts's orderInput().
 */
export const DEFAULT_CUSTOMER_PHONE = "966501234567";

function setSender(body: any, phone: string): void {
  const value = body.entry[0].changes[0].value;
  value.messages[0].from = phone;
  if (value.contacts?.[0]) value.contacts[0].wa_id = phone;
}

/** The customer taps a quick-reply button of our template (`type: "button"`). */
export function quickReplyCallback(options: { wamid: string | null; payload: string; text?: string; messageId?: string; from?: string }) {
  const body = fixture("webhook-button-reply-template-quick-reply.json");
  const message = body.entry[0].changes[0].value.messages[0];
  setSender(body, options.from ?? DEFAULT_CUSTOMER_PHONE);
  message.id = options.messageId ?? newInboundId();
  if (options.wamid) message.context.id = options.wamid;
  else delete message.context;
  message.button = { payload: options.payload, text: options.text ?? message.button.text };
  return body;
}

/** The customer taps a reply button of an interactive message (`interactive.type: "button_reply"`). */
export function buttonReplyCallback(options: { wamid: string; id: string; title?: string; messageId?: string; from?: string }) {
  const body = fixture("webhook-interactive-button-reply.json");
  const message = body.entry[0].changes[0].value.messages[0];
  setSender(body, options.from ?? DEFAULT_CUSTOMER_PHONE);
  message.id = options.messageId ?? newInboundId();
  message.context.id = options.wamid;
  message.interactive.button_reply = { id: options.id, title: options.title ?? message.interactive.button_reply.title };
  return body;
}

export function textMessageCallback(options: { messageId?: string; body?: string } = {}) {
  const body = fixture("webhook-text-message.json");
  const message = body.entry[0].changes[0].value.messages[0];
  message.id = options.messageId ?? newInboundId();
  if (options.body) message.text.body = options.body;
  return body;
}

export interface CallbackResponse {
  status: number;
  text: string;
  /** Round trip, in milliseconds. */
  ms: number;
}

/** POSTs a callback the way Meta does: JSON body, `X-Hub-Signature-256` over the exact bytes sent. */
export async function sendCallback(
  baseUrl: string,
  body: unknown,
  options: { secret?: string; signature?: string | null; rawBody?: string | Buffer } = {},
): Promise<CallbackResponse> {
  const raw = options.rawBody ?? JSON.stringify(body);
  const headers: Record<string, string> = { "content-type": "application/json" };
  const signature = options.signature === undefined ? sign(raw, options.secret) : options.signature;
  if (signature !== null) headers["x-hub-signature-256"] = signature;
  const started = performance.now();
  const response = await fetch(new URL("/webhooks/whatsapp", baseUrl), { method: "POST", headers, body: raw });
  const text = await response.text();
  return { status: response.status, text, ms: performance.now() - started };
}
