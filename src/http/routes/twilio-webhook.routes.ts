import type { FastifyPluginAsync } from "fastify";
import type { AppServices } from "../../app-services.ts";
import { headerValue } from "../auth.ts";
import { hasValidTwilioSignature } from "../../providers/twilio/twilio-signature.ts";
import type { SmsReport } from "../../domain/sms/sms.service.ts";
import { isInt4 } from "../../domain/storable.ts";

/** Twilio's status callbacks are a few hundred bytes; anything near this is not one. */
const CALLBACK_BODY_LIMIT = 64 * 1024;
/** Base64 of the 20 bytes of an HMAC-SHA1. */
const TWILIO_SIGNATURE_SHAPE = /^[A-Za-z0-9+/]{27}=$/;
const REPORTS = new Set<string>(["delivered", "failed", "undelivered"]);

/**
 * `POST /webhooks/twilio` (SPEC §12): Twilio's message status callbacks. Public; authenticated by
 * `X-Twilio-Signature` over PUBLIC_BASE_URL/webhooks/twilio and the sorted form parameters, checked before any
 * state is read (missing or wrong: 403, nothing changes). `delivered`, `failed` and `undelivered` are applied
 * once each (an SMS's state only moves forward, so replays and late or out-of-order reports change nothing); the
 * other statuses (queued, sending, sent, …) and unknown messages are acknowledged and ignored.
 */
export function twilioWebhookRoutes(services: AppServices): FastifyPluginAsync {
  const authToken = services.config.sms.twilio?.authToken ?? null;
  return async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", { parseAs: "string", bodyLimit: CALLBACK_BODY_LIMIT }, (_request, body, done) => done(null, body));

    app.post(
      "/webhooks/twilio",
      {
        config: { public: true },
        schema: { hide: true },
        bodyLimit: CALLBACK_BODY_LIMIT,
        // Before a byte of the body is read (SPEC §14): no auth token to check with, or a signature header that is
        // missing or is not the base64 of a 20-byte HMAC-SHA1.
        onRequest: async (request, reply) => {
          if (authToken && TWILIO_SIGNATURE_SHAPE.test(headerValue(request, "x-twilio-signature") ?? "")) return;
          request.log.warn({ configured: Boolean(authToken) }, "twilio callback without a well-formed signature header");
          return reply.code(403).header("connection", "close").type("text/plain").send("");
        },
      },
      async (request, reply) => {
      const form = new URLSearchParams(typeof request.body === "string" ? request.body : "");
      const url = services.publicUrls.to("/webhooks/twilio");
      if (!authToken || !hasValidTwilioSignature(authToken, url, form.entries(), headerValue(request, "x-twilio-signature"))) {
        request.log.warn({ configured: Boolean(authToken) }, "twilio callback with a missing or bad signature");
        return reply.code(403).type("text/plain").send("");
      }
      const sid = form.get("MessageSid") ?? "";
      const status = form.get("MessageStatus") ?? "";
      const code = /^\d{1,10}$/.test(form.get("ErrorCode") ?? "") ? Number(form.get("ErrorCode")) : null;
      if (/^(SM|MM)[0-9a-fA-F]{32}$/.test(sid) && REPORTS.has(status)) {
        const outcome = await services.sms.applyReport(sid, status as SmsReport, code !== null && isInt4(code) ? code : null);
        request.log.debug({ sid, status, outcome }, "twilio status applied");
      }
      // Twilio expects an empty 2xx; TwiML is not needed for status callbacks.
      return reply.code(204).send();
      },
    );
  };
}
