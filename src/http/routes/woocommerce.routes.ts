import { createHash } from "node:crypto";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { AppServices } from "../../app-services.ts";
import { isUuid } from "../../domain/ids.ts";
import {
  verifyWooCommerceSignature,
  WOOCOMMERCE_SIGNATURE_HEADER,
  wooCommercePingWebhookId,
} from "../../providers/woocommerce/webhook-signature.ts";
import { headerValue } from "../auth.ts";

/** A WooCommerce order with 100 lines and its meta is well under 1 MB; 2 MB leaves room, then 413. */
export const WOOCOMMERCE_BODY_LIMIT = 2 * 1024 * 1024;
/** WooCommerce's ping (`webhook_id=<digits>`) is the only unsigned body, and it is this short. */
const PING_MAX_BYTES = 40;
/** base64 of 32 bytes. */
const SIGNATURE_SHAPE = /^[A-Za-z0-9+/]{43}=$/;

function unauthorized(reply: FastifyReply) {
  return reply.code(401).send({ success: false, error: "UNAUTHORIZED", message: "Invalid signature" });
}

/**
 * `POST /webhooks/woocommerce/{connection id}` (SPEC §13): routed by the connection id in the path and verified with
 * that connection's own webhook secret (X-WC-Webhook-Signature) before the body is parsed. WooCommerce's unsigned
 * ping gets 200. A verified delivery is recorded once (per WooCommerce delivery id) and answered 200 at once; the
 * intake worker turns it into an order (or a skip) after the answer. A disconnected connection's deliveries are
 * answered 200 and ignored (WooCommerce disables webhooks that keep failing).
 */
export function wooCommerceRoutes(services: AppServices): FastifyPluginAsync {
  const { stores } = services;
  const secrets = new ConnectionSecrets(stores);
  return async (plugin) => {
    plugin.removeAllContentTypeParsers();
    plugin.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: WOOCOMMERCE_BODY_LIMIT }, (_request, body, done) => done(null, body));

    plugin.post(
      "/webhooks/woocommerce/:id",
      {
        config: { public: true },
        schema: { hide: true },
        bodyLimit: WOOCOMMERCE_BODY_LIMIT,
        // Refused before the body is read: a malformed signature, or no signature on a body too long to be a ping.
        onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
          const signature = headerValue(request, WOOCOMMERCE_SIGNATURE_HEADER);
          if (signature === undefined) {
            const length = Number(headerValue(request, "content-length") ?? NaN);
            if (!(length > 0 && length <= PING_MAX_BYTES)) return unauthorized(reply);
          } else if (!SIGNATURE_SHAPE.test(signature.trim())) {
            return unauthorized(reply);
          }
        },
      },
      async (request, reply) => {
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const signature = headerValue(request, WOOCOMMERCE_SIGNATURE_HEADER);
        if (signature === undefined) {
          // WooCommerce pings the delivery URL while creating the webhook; it needs a 200.
          return wooCommercePingWebhookId(raw) ? reply.code(200).send({ success: true }) : unauthorized(reply);
        }
        const id = (request.params as { id: string }).id;
        if (!isUuid(id)) return unauthorized(reply);
        let found = await secrets.get(id.toLowerCase());
        // A reconnect makes a new secret: a signature the cached one refuses is checked against the stored one.
        if (found?.cached && !verifyWooCommerceSignature(raw, signature, found.secret)) found = await secrets.get(id.toLowerCase(), true);
        if (!found) {
          const gone = await stores.connection(id.toLowerCase());
          // Disconnected: answered and ignored (its secret is gone, so nothing could be verified anyway).
          if (gone?.platform === "woocommerce" && gone.status === "disconnected") return reply.code(200).send({ success: true });
          return unauthorized(reply);
        }
        if (!verifyWooCommerceSignature(raw, signature, found.secret)) {
          request.log.warn({ connectionId: found.id }, "woocommerce webhook with a bad signature");
          return unauthorized(reply);
        }
        const topic = (headerValue(request, "x-wc-webhook-topic") ?? "").trim().toLowerCase().slice(0, 100);
        const deliveryId =
          (headerValue(request, "x-wc-webhook-delivery-id") ?? "").trim().slice(0, 100) || `sha256:${createHash("sha256").update(raw).digest("hex")}`;
        const fresh = await stores.receive("woocommerce", `${found.id}:${deliveryId}`, topic, found.shop, raw.toString("utf8"));
        if (fresh) services.storeIntake.wake();
        return reply.code(200).send({ success: true });
      },
    );
  };
}

/**
 * Each live WooCommerce connection's webhook secret, opened once and kept for a few seconds: a store sending a
 * burst of orders costs one read and one decryption, not one per delivery. A connection disconnected meanwhile
 * may still have a delivery recorded on this instance for up to `TTL_MS`; the intake ignores it (it finds no live
 * connection), so nothing is created. Bounded: the least recently used entries beyond MAX_ENTRIES are dropped.
 */
class ConnectionSecrets {
  private static readonly TTL_MS = 5_000;
  private static readonly MAX_ENTRIES = 1_000;
  private readonly entries = new Map<string, { id: string; shop: string; secret: string; at: number }>();

  constructor(private readonly stores: AppServices["stores"]) {}

  async get(id: string, reload = false): Promise<{ id: string; shop: string; secret: string; cached: boolean } | null> {
    const cached = this.entries.get(id);
    if (!reload && cached && Date.now() - cached.at < ConnectionSecrets.TTL_MS) return { ...cached, cached: true };
    this.entries.delete(id);
    const found = await this.stores.withCredentials(id);
    const secret = found?.credentials.webhookSecret;
    if (!found || found.connection.platform !== "woocommerce" || !secret) return null;
    const entry = { id: found.connection.id, shop: found.connection.shop, secret, at: Date.now() };
    this.entries.set(id, entry);
    if (this.entries.size > ConnectionSecrets.MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    return { ...entry, cached: false };
  }
}
