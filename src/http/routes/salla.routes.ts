import { createHash } from "node:crypto";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { AppServices } from "../../app-services.ts";
import type { SallaLinks } from "../../domain/stores/salla-link.ts";
import { parseSallaEvent } from "../../providers/salla/events.ts";
import { SALLA_SIGNATURE_HEADER, verifySallaSignature } from "../../providers/salla/webhook-signature.ts";
import { headerValue } from "../auth.ts";

export const SALLA_BODY_LIMIT = 2 * 1024 * 1024;
/** hex of 32 bytes. */
const SIGNATURE_SHAPE = /^[0-9a-fA-F]{64}$/;

function unauthorized(reply: FastifyReply) {
  return reply.code(401).send({ success: false, error: "UNAUTHORIZED", message: "Invalid signature" });
}

/**
 * `POST /webhooks/salla` (SPEC §13): every event of the app, verified with X-Salla-Signature (the app's webhook
 * secret) before the body is parsed, then routed by the envelope's `merchant`. Linking happens here, at once:
 * `app.store.authorize` (tokens) and `app.settings.updated` (the link code). Orders and uninstalls are recorded
 * once (by the body's hash: Salla's redeliveries are the same bytes) and answered 200; the intake worker does the
 * rest after the answer. Every verified delivery is 200, whatever it leads to (Salla retries failures).
 */
export function sallaRoutes(services: AppServices, links: SallaLinks): FastifyPluginAsync {
  const { stores, config } = services;
  const secret = config.stores.salla.webhookSecret;
  return async (plugin) => {
    plugin.removeAllContentTypeParsers();
    plugin.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: SALLA_BODY_LIMIT }, (_request, body, done) => done(null, body));

    plugin.post(
      "/webhooks/salla",
      {
        config: { public: true },
        schema: { hide: true },
        bodyLimit: SALLA_BODY_LIMIT,
        onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
          if (!SIGNATURE_SHAPE.test((headerValue(request, SALLA_SIGNATURE_HEADER) ?? "").trim())) return unauthorized(reply);
        },
      },
      async (request, reply) => {
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        if (!secret || !verifySallaSignature(raw, headerValue(request, SALLA_SIGNATURE_HEADER), secret)) {
          request.log.warn({ configured: Boolean(secret) }, "salla webhook with a bad signature");
          return unauthorized(reply);
        }
        let body: unknown;
        try {
          body = JSON.parse(raw.toString("utf8"));
        } catch {
          return reply.code(200).send({ success: true });
        }
        const event = parseSallaEvent(body);
        switch (event.kind) {
          case "store_authorized": {
            const outcome = await links.authorized(event.merchantId, event.tokens);
            request.log.info({ sallaMerchant: event.merchantId, linked: outcome.linked }, "salla store authorized");
            break;
          }
          case "settings_updated": {
            const outcome = await links.settingsUpdated(event.merchantId, event.linkCode);
            request.log.info({ sallaMerchant: event.merchantId, outcome }, "salla settings updated");
            break;
          }
          case "uninstalled":
          case "order_created": {
            if (event.kind === "uninstalled") await links.uninstalled(event.merchantId);
            const webhookId = `sha256:${createHash("sha256").update(raw).digest("hex")}`;
            const topic = event.kind === "uninstalled" ? "app.uninstalled" : "order.created";
            const fresh = await stores.receive("salla", webhookId, topic, event.merchantId, raw.toString("utf8"));
            if (fresh) services.storeIntake.wake();
            break;
          }
          case "ignored":
            break;
        }
        return reply.code(200).send({ success: true });
      },
    );
  };
}
