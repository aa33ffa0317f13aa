import { Readable } from "node:stream";
import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { AppServices } from "../../app-services.ts";
import { ForbiddenError, UnauthorizedError } from "../../domain/errors.ts";
import type { MerchantScope } from "../../domain/orders/order.repository.ts";
import { customerAnswerInput } from "../../domain/orders/customer-answer.ts";
import { roleMay } from "../../domain/users/permissions.ts";
import { callerOf, headerValue } from "../auth.ts";
import { isAllowedOrigin, sessionCookieName, sessionCookieOf } from "../console-session.ts";
import { errorSchema, orderFilterQuery, orderIdParams, orderSchema, validationErrorSchema } from "../schemas.ts";

const commonErrors = { 401: errorSchema, 429: errorSchema, 500: errorSchema };
const tags = ["follow-up"];

const exportQuery = orderFilterQuery.extend({
  mode: z
    .enum(["test", "live"])
    .optional()
    .meta({ description: "With a console session cookie: which mode's orders (default test). An API key's own mode always applies." }),
});

/**
 * The follow-up desk's REST routes (SPEC §15): recording an answer the customer gave outside WhatsApp, and the
 * CSV export of the order list. The export also accepts the console's session cookie (admins and agents, see
 * domain/users/permissions.ts), so the console's Export button is a plain download link.
 */
export function followUpRoutes(services: AppServices): FastifyPluginAsync {
  const { orderService, sessions, config } = services;

  return async (plain) => {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    app.post(
      "/orders/:id/customer-answer",
      {
        schema: {
          tags,
          summary: "Record the customer's answer given outside WhatsApp (phone, in person): acts exactly like the customer's tap",
          params: orderIdParams,
          body: customerAnswerInput,
          response: { 200: orderSchema, 400: validationErrorSchema, 404: errorSchema, 409: errorSchema, 413: errorSchema, 415: errorSchema, ...commonErrors },
        },
      },
      async (request) => {
        const caller = callerOf(request);
        const { action, channel, note } = request.body;
        return orderService.recordCustomerAnswer(caller, request.params.id, {
          action,
          channel,
          note: note || null,
          by: caller.keyPrefix ?? caller.keyId,
        });
      },
    );

    // A console session may download the export: resolved before the rate limiter (a hook of this plugin, like
    // /graphql's), so the download counts against the user, not the address.
    app.addHook("onRequest", async (request) => {
      if (request.routeOptions.url !== "/api/v1/orders/export" || headerValue(request, "x-api-key") !== undefined) return;
      const cookie = sessionCookieOf(request.headers, sessionCookieName(config));
      if (cookie === undefined) return;
      if (!isAllowedOrigin(request.headers, config.console.allowedOrigins)) throw new ForbiddenError("origin");
      const principal = await sessions.authenticate(cookie);
      if (!principal) {
        request.authError = new UnauthorizedError("session");
        return;
      }
      request.authError = null;
      request.graphqlSession = { principal, mode: modeParameter(request) };
    });

    app.get(
      "/orders/export",
      {
        schema: {
          tags,
          summary:
            "The order list as CSV (UTF-8 with BOM, CRLF, formula-safe), with the list's filters, newest first, up to 100,000 rows; API key or console session (admin, agent)",
          querystring: exportQuery,
          produces: ["text/csv"],
          response: { 400: validationErrorSchema, 403: errorSchema, ...commonErrors },
        },
      },
      async (request, reply) => {
        const session = request.graphqlSession;
        let scope: MerchantScope;
        if (session) {
          const role = session.principal.user.role;
          if (!roleMay(role, "REST.exportOrders")) throw new ForbiddenError(role === "agent" ? "agent" : "viewer");
          scope = { merchantId: session.principal.merchant.id, mode: request.query.mode ?? "test" };
        } else {
          const caller = callerOf(request);
          scope = { merchantId: caller.merchantId, mode: caller.mode };
        }
        const { status, mode: _mode, ...filter } = request.query;
        const { truncated, chunks } = await orderService.exportCsv(scope, { ...filter, statuses: status });
        const stamp = new Date().toISOString().slice(0, 10);
        reply
          .header("content-type", "text/csv; charset=utf-8")
          .header("content-disposition", `attachment; filename="orders-${scope.mode}-${stamp}.csv"`)
          .header("x-export-truncated", String(truncated));
        return reply.send(Readable.from(chunks, { objectMode: false, highWaterMark: 64 * 1024 }) as never);
      },
    );
  };
}

/** `mode` of the query string before validation (the hook runs first): anything but live is test. */
function modeParameter(request: FastifyRequest): "test" | "live" {
  const mode = (request.query as Record<string, unknown> | undefined)?.mode;
  return mode === "live" ? "live" : "test";
}
