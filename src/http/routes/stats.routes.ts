import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { AppServices } from "../../app-services.ts";
import { orderStatsQuery } from "../../domain/stats/order-stats.ts";
import { callerOf } from "../auth.ts";
import { errorSchema, orderStatsSchema, validationErrorSchema } from "../schemas.ts";

const commonErrors = { 401: errorSchema, 429: errorSchema, 500: errorSchema };

/** SPEC §10: the dashboard figures of the caller's orders (the same service as GraphQL's Query.orderStats). */
export function statsRoutes(services: AppServices): FastifyPluginAsync {
  return async (plain) => {
    const app = plain.withTypeProvider<ZodTypeProvider>();
    const { orderStats } = services;

    app.get(
      "/stats/orders",
      {
        schema: {
          tags: ["stats"],
          summary:
            "Order figures of a range [from, to): counts per status, answer and confirmation rates, time to answer, failures per error code, per local day or hour",
          querystring: orderStatsQuery,
          response: { 200: orderStatsSchema, 400: validationErrorSchema, ...commonErrors },
        },
      },
      async (request) => orderStats.stats(callerOf(request), request.query, request.language),
    );
  };
}
