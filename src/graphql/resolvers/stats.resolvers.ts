import type { AppServices } from "../../app-services.ts";
import { readOrderStatsQuery } from "../../domain/stats/order-stats.ts";
import type { QueryResolvers, StatsInterval } from "../../generated/graphql.ts";
import { asCaller } from "./caller-guard.ts";

/** Query.orderStats (SPEC §10): REST's GET /api/v1/stats/orders under GraphQL's names (interval DAY | HOUR). */
export function statsResolvers(services: AppServices) {
  const { orderStats } = services;

  const Query: QueryResolvers = {
    orderStats: (_parent, { from, to, timeZone, interval }, context) =>
      asCaller(context, async (caller) => {
        // An explicit null takes the default, as an omitted argument does.
        const query = readOrderStatsQuery({
          from,
          to,
          ...(timeZone != null && { timeZone }),
          ...(interval != null && { interval: interval.toLowerCase() }),
        });
        const stats = await orderStats.stats(caller, query, context.language);
        return { ...stats, interval: stats.interval.toUpperCase() as StatsInterval };
      }),
  };

  return { Query };
}
