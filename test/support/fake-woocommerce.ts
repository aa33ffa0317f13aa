import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import path from "node:path";
import { signWooCommerceBody } from "../../src/providers/woocommerce/webhook-signature.ts";
import {
  answer,
  phpJson,
  postDelivery,
  send,
  StoreFakeServer,
  storeReply,
  type DeliveryResult,
  type StoreFakeRequest,
} from "./store-fake-http.ts";

/**
 * A fake WooCommerce store on a real loopback port, speaking REST API v3 as WooCommerce does:
 * - `GET /wp-json/wc/v3/` (the namespace index, public), `GET /wp-json/wc/v3/webhooks` (authenticated);
 * - `POST /wp-json/wc/v3/webhooks`: creates the webhook and, before answering 201, pings its delivery URL with the
 *   unsigned form body `webhook_id=<id>` (WC_Webhook::deliver_ping), ignoring the ping's outcome as the REST
 *   controller does (the outcome is recorded);
 * - `DELETE /wp-json/wc/v3/webhooks/{id}`, `POST /wp-json/wc/v3/orders/{id}/notes`, `PUT /wp-json/wc/v3/orders/{id}`;
 * - HTTP basic auth with the consumer key and secret (401 `woocommerce_rest_cannot_view` otherwise; a read-only
 *   key gets 401 `woocommerce_rest_cannot_create` on writes).
 * `deliverOrder` sends a signed `order.created` delivery to the store's webhook, with WooCommerce's headers and
 * PHP's JSON escaping. Write calls can be programmed (`next`) to answer 429 with Retry-After, 5xx, slowly, or not.
 */
const FIXTURE = path.resolve(import.meta.dirname, "../fixtures/woocommerce/order-created.json");
const USER_AGENT = "WooCommerce/9.4.2 Hookshot (WordPress/6.7.1)";

export interface FakeWebhook {
  id: string;
  name: string;
  topic: string;
  deliveryUrl: string;
  secret: string;
  status: string;
  /** The ping's answer: its status, or the error when the URL could not be reached. */
  ping: { status: number | null; error: string | null };
}

export interface FakeOrderState {
  status: string;
  notes: { id: number; note: string; customer_note: boolean }[];
}

export interface FakeWooCommerceOptions {
  /** Serve the store under a folder (WordPress in a subdirectory), e.g. "/shop". */
  basePath?: string;
  readOnlyKey?: boolean;
}

export class FakeWooCommerce extends StoreFakeServer {
  readonly consumerKey = `ck_${randomBytes(20).toString("hex")}`;
  readonly consumerSecret = `cs_${randomBytes(20).toString("hex")}`;
  readonly webhooks = new Map<string, FakeWebhook>();
  readonly orders = new Map<string, FakeOrderState>();
  private nextWebhookId = 10;
  private nextOrderId = 1000;
  private nextNoteId = 500;

  private constructor(private readonly options: FakeWooCommerceOptions) {
    super();
  }

  static async start(options: FakeWooCommerceOptions = {}): Promise<FakeWooCommerce> {
    const fake = new FakeWooCommerce(options);
    await fake.listen();
    return fake;
  }

  /** The store URL a merchant types in. */
  get url(): string {
    return `${this.origin}${this.options.basePath ?? ""}`;
  }

  requestsTo(pattern: RegExp, method?: string): StoreFakeRequest[] {
    return this.requests.filter((request) => pattern.test(request.path) && (!method || request.method === method));
  }

  /** A realistic COD order (the recorded fixture) with a fresh id, `overrides` merged on top. */
  order(overrides: Record<string, unknown> = {}): Record<string, any> {
    const order = JSON.parse(readFileSync(FIXTURE, "utf8"));
    const id = this.nextOrderId++;
    return { ...order, id, number: String(id), ...overrides };
  }

  /** The one active webhook (connect creates exactly one). */
  get webhook(): FakeWebhook {
    const hooks = [...this.webhooks.values()].filter((hook) => hook.status === "active");
    if (hooks.length !== 1) throw new Error(`expected one active webhook, found ${hooks.length}`);
    return hooks[0];
  }

  /** The body and headers WooCommerce sends for `order.created` of `order`. */
  signedDelivery(order: Record<string, unknown>, webhook: FakeWebhook = this.webhook): { body: string; headers: Record<string, string> } {
    const body = phpJson(order);
    return {
      body,
      headers: {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        "x-wc-webhook-source": `${this.url}/`,
        "x-wc-webhook-topic": webhook.topic,
        "x-wc-webhook-resource": "order",
        "x-wc-webhook-event": "created",
        "x-wc-webhook-signature": signWooCommerceBody(body, webhook.secret),
        "x-wc-webhook-id": webhook.id,
        "x-wc-webhook-delivery-id": randomBytes(16).toString("hex"),
      },
    };
  }

  /** Delivers `order.created` for `order` (and remembers the order, so write-backs to it succeed). */
  async deliverOrder(order: Record<string, unknown>, webhook: FakeWebhook = this.webhook): Promise<DeliveryResult> {
    this.orders.set(String(order.id), this.orders.get(String(order.id)) ?? { status: String(order.status ?? "processing"), notes: [] });
    const { body, headers } = this.signedDelivery(order, webhook);
    return postDelivery(webhook.deliveryUrl, body, headers);
  }

  protected async handle(recorded: StoreFakeRequest, response: ServerResponse): Promise<void> {
    const base = `${this.options.basePath ?? ""}/wp-json/wc/v3/`;
    const url = new URL(recorded.path, this.origin);
    if (!url.pathname.startsWith(base) && url.pathname !== base.slice(0, -1)) {
      recorded.status = 404;
      return send(response, 404, { code: "rest_no_route", message: "No route was found matching the URL and request method.", data: { status: 404 } });
    }
    const route = url.pathname.slice(base.length);
    if (route === "" && recorded.method === "GET") {
      recorded.status = 200;
      return send(response, 200, { namespace: "wc/v3", routes: { "/wc/v3": {}, "/wc/v3/orders": {}, "/wc/v3/webhooks": {} } });
    }
    const auth = this.authorise(recorded);
    if (auth) return this.refuse(response, recorded, auth, recorded.method === "GET" ? "woocommerce_rest_cannot_view" : "woocommerce_rest_cannot_create");
    const write = recorded.method !== "GET";
    if (write && this.options.readOnlyKey) return this.refuse(response, recorded, 401, "woocommerce_rest_cannot_create");
    if (write && !/^webhooks/.test(route)) {
      const programmed = this.queue.shift();
      if (programmed) return answer(response, programmed, recorded);
    }
    return this.route(route, recorded, response);
  }

  private async route(route: string, recorded: StoreFakeRequest, response: ServerResponse): Promise<void> {
    const ok = (status: number, body: unknown) => {
      recorded.status = status;
      send(response, status, body);
    };
    let match: RegExpExecArray | null;
    if (route === "webhooks" && recorded.method === "GET") return ok(200, [...this.webhooks.values()].map(webhookJson));
    if (route === "webhooks" && recorded.method === "POST") {
      const body = recorded.body ?? {};
      if (typeof body.delivery_url !== "string" || typeof body.topic !== "string") {
        return ok(400, { code: "rest_missing_callback_param", message: "Missing parameter(s): topic, delivery_url", data: { status: 400 } });
      }
      const webhook: FakeWebhook = {
        id: String(this.nextWebhookId++),
        name: String(body.name ?? ""),
        topic: body.topic,
        deliveryUrl: body.delivery_url,
        secret: String(body.secret ?? ""),
        status: String(body.status ?? "active"),
        ping: { status: null, error: null },
      };
      this.webhooks.set(webhook.id, webhook);
      // WooCommerce pings the delivery URL before the REST answer (and ignores how that went).
      try {
        const ping = await postDelivery(webhook.deliveryUrl, `webhook_id=${webhook.id}`, {
          "user-agent": USER_AGENT,
          "content-type": "application/x-www-form-urlencoded",
        });
        webhook.ping.status = ping.status;
      } catch (error) {
        webhook.ping.error = error instanceof Error ? error.message : String(error);
      }
      return ok(201, webhookJson(webhook));
    }
    if ((match = /^webhooks\/(\d+)$/.exec(route)) && recorded.method === "DELETE") {
      const webhook = this.webhooks.get(match[1]);
      if (!webhook) return ok(404, { code: "woocommerce_rest_webhook_invalid_id", message: "Invalid ID.", data: { status: 404 } });
      this.webhooks.delete(match[1]);
      return ok(200, webhookJson(webhook));
    }
    if ((match = /^orders\/(\d+)\/notes$/.exec(route)) && recorded.method === "POST") {
      const order = this.orders.get(match[1]);
      if (!order) return ok(404, { code: "woocommerce_rest_order_invalid_id", message: "Invalid order ID.", data: { status: 404 } });
      const note = String(recorded.body?.note ?? "");
      if (!note) return ok(400, { code: "woocommerce_rest_missing_note", message: "Missing note.", data: { status: 400 } });
      const entry = { id: this.nextNoteId++, note, customer_note: recorded.body?.customer_note === true };
      order.notes.push(entry);
      return ok(201, { ...entry, author: "WooCommerce", date_created: new Date().toISOString().slice(0, 19) });
    }
    if ((match = /^orders\/(\d+)$/.exec(route)) && recorded.method === "PUT") {
      const order = this.orders.get(match[1]);
      if (!order) return ok(404, { code: "woocommerce_rest_shop_order_invalid_id", message: "Invalid ID.", data: { status: 404 } });
      if (typeof recorded.body?.status === "string") order.status = recorded.body.status;
      return ok(200, { id: Number(match[1]), status: order.status });
    }
    return ok(404, { code: "rest_no_route", message: "No route was found matching the URL and request method.", data: { status: 404 } });
  }

  /** Null when the request carries this store's key and secret; else the status to refuse with. */
  private authorise(recorded: StoreFakeRequest): number | null {
    const header = String(recorded.headers.authorization ?? "");
    if (!header.startsWith("Basic ")) return 401;
    const [key, secret] = Buffer.from(header.slice(6), "base64").toString("utf8").split(":");
    return key === this.consumerKey && secret === this.consumerSecret ? null : 401;
  }

  private refuse(response: ServerResponse, recorded: StoreFakeRequest, status: number, code: string): void {
    recorded.status = status;
    send(response, status, { code, message: "Sorry, you cannot list resources.", data: { status } });
  }
}

function webhookJson(webhook: FakeWebhook) {
  return {
    id: Number(webhook.id),
    name: webhook.name,
    status: webhook.status,
    topic: webhook.topic,
    resource: webhook.topic.split(".")[0],
    event: webhook.topic.split(".")[1],
    hooks: ["woocommerce_new_order"],
    delivery_url: webhook.deliveryUrl,
    date_created: new Date().toISOString().slice(0, 19),
  };
}

export { storeReply };
