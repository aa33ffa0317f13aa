import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { AppServices } from "../../app-services.ts";
import { isDatabaseUnavailable, DATABASE_RETRY_AFTER_SECONDS, warnDatabaseUnavailable } from "../../db/unavailable.ts";
import type { Language } from "../../domain/messaging/messaging-provider.ts";
import { callerOf, headerValue } from "../auth.ts";
import { RateLimitedError } from "../error-mapper.ts";
import { negotiateLanguage } from "../language.ts";
import { PAGE_CSS, renderOrderPage, renderProblemPage, type ProblemPage } from "../confirmation-page/page-html.ts";
import { errorSchema, orderIdParams } from "../schemas.ts";

/**
 * The page's policy: nothing runs, nothing loads from elsewhere, nothing frames it, forms post only to itself.
 * The stylesheet is the one resource (same origin).
 */
export const PAGE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** An answer is one short field; anything larger is not from our form. */
const FORM_BODY_LIMIT = 1024;
const answerBody = z.object({ action: z.enum(["approve", "cancel"]) });

/**
 * `/c/<token>` (SPEC §12): the customer's confirmation page and its answer, public (the token is the
 * credential) and rate-limited per address by the global limiter (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW).
 */
export function confirmationPageRoutes(services: AppServices): FastifyPluginAsync {
  const pages = services.confirmationPages;
  return async (app) => {
    // Only this plugin reads form bodies (as text, parsed once the request is known to be same-site).
    app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string", bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) =>
      done(null, body),
    );
    // Problems render as pages here, never as the API's JSON.
    app.setErrorHandler((error, request, reply) => {
      const language = pageLanguage(request, null);
      if (error instanceof RateLimitedError) {
        return sendPage(reply.code(429).header("retry-after", String(error.retryAfterSeconds)), renderProblemPage("rateLimited", language), language);
      }
      if (isDatabaseUnavailable(error)) {
        warnDatabaseUnavailable(request.log as never, error);
        return sendPage(reply.code(503).header("retry-after", String(DATABASE_RETRY_AFTER_SECONDS)), renderProblemPage("unavailable", language), language);
      }
      const status = (error as { statusCode?: number }).statusCode;
      if (status === 413 || status === 415 || status === 400) return problem(reply, 400, "badRequest", language);
      request.log.error({ err: error }, "confirmation page failed");
      return sendPage(reply.code(503).header("retry-after", "5"), renderProblemPage("unavailable", language), language);
    });

    app.get("/c/assets/page.css", { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
      reply
        .header("content-type", "text/css; charset=utf-8")
        .header("cache-control", "public, max-age=3600")
        .header("x-content-type-options", "nosniff")
        .send(PAGE_CSS),
    );

    app.get("/c/:token", { schema: { hide: true } }, async (request, reply) => {
      const { token } = request.params as { token: string };
      const page = await pages.read(token);
      if (!page) return problem(reply, 404, "notFound", pageLanguage(request, null));
      const language = pageLanguage(request, page.language);
      return sendPage(reply.code(200), renderOrderPage(page, language), language);
    });

    app.post("/c/:token", { schema: { hide: true }, bodyLimit: FORM_BODY_LIMIT }, async (request, reply) => {
      const { token } = request.params as { token: string };
      const language = pageLanguage(request, null);
      // Before the body is read and before the token is looked at: another site's form must not act for the customer.
      if (isCrossSite(request, services.publicUrls.base())) return problem(reply, 403, "forbidden", language);
      const parsed = answerBody.safeParse(Object.fromEntries(new URLSearchParams(typeof request.body === "string" ? request.body : "")));
      if (!parsed.success) return problem(reply, 400, "badRequest", language);
      const answered = await pages.answer(token, parsed.data.action);
      if (answered === "not_found") return problem(reply, 404, "notFound", language);
      // Post/redirect/get: the page then shows the order's status (a repeat of the answer changes nothing).
      return reply
        .code(303)
        .header("location", `${encodeURIComponent(token)}?lang=${language}`)
        .header("cache-control", "no-store")
        .send();
    });
  };
}

/** `GET /api/v1/orders/{id}/confirmation-link` → `{ url }` for an order of the caller (SPEC §12). */
export function confirmationLinkRoutes(services: AppServices): FastifyPluginAsync {
  return async (plain) => {
    const app = plain.withTypeProvider<ZodTypeProvider>();
    app.get(
      "/orders/:id/confirmation-link",
      {
        schema: {
          tags: ["orders"],
          summary: "The order's confirmation page, to send the customer yourself (same URL every time)",
          params: orderIdParams,
          response: {
            200: z.object({ url: z.string().meta({ description: "Absolute URL of the page: PUBLIC_BASE_URL/c/<token>" }) }).meta({ id: "ConfirmationLink" }),
            401: errorSchema,
            404: errorSchema,
            429: errorSchema,
          },
        },
      },
      async (request) => ({ url: await services.confirmationPages.linkFor(callerOf(request), request.params.id) }),
    );
  };
}

/**
 * A browser POST from another site: `Sec-Fetch-Site: cross-site`, or an `Origin` that is neither the public base
 * URL's nor the one the request was addressed to. Clients that send neither (no browser) are not cross-site.
 */
export function isCrossSite(request: FastifyRequest, publicBase: string): boolean {
  if (headerValue(request, "sec-fetch-site")?.toLowerCase() === "cross-site") return true;
  const origin = headerValue(request, "origin");
  if (origin === undefined) return false;
  const own = new Set([new URL(publicBase).origin, `${request.protocol}://${request.host}`.toLowerCase()]);
  return !own.has(origin.trim().toLowerCase());
}

/** `?lang=en|ar` wins; then Accept-Language when it names one we speak; then the order's own language. */
function pageLanguage(request: FastifyRequest, orderLanguage: Language | null): Language {
  const lang = (request.query as Record<string, unknown> | undefined)?.lang;
  if (lang === "ar" || lang === "en") return lang;
  const accept = headerValue(request, "accept-language");
  if (accept && /(^|,)\s*(ar|en)\b/i.test(accept)) return negotiateLanguage(accept);
  return orderLanguage ?? negotiateLanguage(accept);
}

function problem(reply: FastifyReply, status: number, kind: ProblemPage, language: Language) {
  return sendPage(reply.code(status), renderProblemPage(kind, language), language);
}

function sendPage(reply: FastifyReply, html: string, language: Language) {
  return reply
    .header("content-type", "text/html; charset=utf-8")
    .header("content-language", language)
    .header("content-security-policy", PAGE_CONTENT_SECURITY_POLICY)
    .header("cache-control", "no-store")
    // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on the form POST, which is refused.
    .header("referrer-policy", "same-origin")
    .header("x-content-type-options", "nosniff")
    .header("x-frame-options", "DENY")
    .send(html);
}
