import { timingSafeEqual } from "node:crypto";
import type { FastifyPluginAsync } from "fastify";
import type { AppServices } from "../../app-services.ts";
import { headerValue } from "../auth.ts";
import { RetryLaterError, applyCallback, hasValidSignature, isSignatureHeaderFormat } from "../whatsapp-callbacks.ts";

/**
 * Meta's notifications are at most 3 MB (its documented payload limit; a batch of 10,000 statuses is about
 * 2.5 MB), larger than the API's 1 MiB. Beyond it: 413, before the signature is computed over the bytes.
 */
export const CALLBACK_BODY_LIMIT = 3 * 1024 * 1024;

/**
 * `/webhooks/whatsapp`: Meta's callbacks (SPEC §5.3). Public (no API key, not rate-limited per key): the
 * POST is authenticated by its `X-Hub-Signature-256`, the GET handshake by `WHATSAPP_VERIFY_TOKEN`.
 */
export function whatsappWebhookRoutes(services: AppServices): FastifyPluginAsync {
  const { appSecret, verifyToken } = services.config.whatsapp;
  return async (app) => {
    // This plugin's own parsers: the signature covers the exact bytes received, so the body stays a Buffer
    // (whatever the content type) and is parsed as JSON only once verified.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: CALLBACK_BODY_LIMIT }, (_request, body, done) => done(null, body));

    app.get("/webhooks/whatsapp", { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const token = query["hub.verify_token"];
      const challenge = query["hub.challenge"];
      if (
        verifyToken &&
        query["hub.mode"] === "subscribe" &&
        typeof token === "string" &&
        sameText(token, verifyToken) &&
        typeof challenge === "string" &&
        /^[\w.-]{1,256}$/.test(challenge)
      ) {
        return reply.code(200).type("text/plain").header("x-content-type-options", "nosniff").send(challenge);
      }
      return reply.code(403).type("text/plain").send("");
    });

    app.post(
      "/webhooks/whatsapp",
      {
        config: { public: true },
        schema: { hide: true },
        bodyLimit: CALLBACK_BODY_LIMIT,
        // Before a byte of the body is read (SPEC §14): a missing or malformed signature header, or no app secret to
        // check one with, is refused at once, so unsigned requests cannot make us buffer 3 MiB each.
        onRequest: async (request, reply) => {
          if (appSecret && isSignatureHeaderFormat(headerValue(request, "x-hub-signature-256"))) return;
          request.log.warn({ configured: Boolean(appSecret) }, "whatsapp callback without a well-formed signature header");
          return reply.code(401).header("connection", "close").send({ success: false, message: "Invalid signature", error: "UNAUTHORIZED" });
        },
      },
      async (request, reply) => {
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        if (!appSecret || !hasValidSignature(appSecret, raw, headerValue(request, "x-hub-signature-256"))) {
          request.log.warn({ configured: Boolean(appSecret) }, "whatsapp callback with a missing or bad signature");
          return reply.code(401).send({ success: false, message: "Invalid signature", error: "UNAUTHORIZED" });
        }
        let body: unknown;
        try {
          body = JSON.parse(raw.toString("utf8"));
        } catch {
          // Signed by Meta but not JSON: nothing to apply, and a retry would not change that.
          request.log.warn("whatsapp callback body is not JSON");
          return reply.code(200).send();
        }
        // Quick (one lookup and one short transaction per item), so applied before answering: a 200 means
        // it is stored, and an error answers 500 so that Meta retries (repeats are no-ops).
        try {
          await applyCallback(body, services.orderService, services.reminders, request.log, services.conversations);
        } catch (error) {
          if (!(error instanceof RetryLaterError)) throw error;
          // Items already applied are recorded, so Meta's redelivery repeats only what is still missing.
          request.log.info({ orderId: error.orderId }, "whatsapp callback ahead of its send result; asking Meta to retry");
          return reply.code(503).header("retry-after", "1").send();
        }
        return reply.code(200).send();
      },
    );
  };
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
