import type { Language } from "../../i18n/messages.ts";
import type { MerchantScope } from "../orders/order.repository.ts";
import { type OrderStats, type OrderStatsQuery, type OrderStatsFigures } from "./order-stats.ts";
import type { StatsRow, StatsSource } from "./order-stats.repository.ts";
import { providerErrorMeaning } from "./provider-error-meanings.ts";

/**
 * Order statistics for dashboards (SPEC §10): the one implementation behind Query.orderStats and
 * GET /api/v1/stats/orders. Definitions are in order-stats.ts.
 */
export class OrderStatsService {
  constructor(private readonly repository: StatsSource) {}

  /** `query` was checked by the door with orderStatsQuery (REST's query-string schema; readOrderStatsQuery). */
  async stats(scope: MerchantScope, query: OrderStatsQuery, language: Language): Promise<OrderStats> {
    const rows = await this.repository.figures(scope, query);
    const [total, ...buckets] = rows;
    return {
      from: query.from.toISOString(),
      to: query.to.toISOString(),
      timeZone: query.timeZone,
      interval: query.interval,
      totals: figuresOf(total, language),
      buckets: buckets.map((row) => ({ start: row.start as string, ...figuresOf(row, language) })),
    };
  }
}

function figuresOf(row: StatsRow, language: Language): OrderStatsFigures {
  return {
    created: row.created,
    confirmed: row.confirmed,
    canceled: row.canceled,
    failed: row.failed,
    expired: row.expired,
    pending: row.pending,
    answered: row.answered,
    confirmationRate: ratio(row.confirmed, row.answered),
    answerRate: ratio(row.answered, row.created),
    timeToAnswerP50Seconds: seconds(row.p50),
    timeToAnswerP90Seconds: seconds(row.p90),
    failuresByErrorCode: row.failures.map(({ errorCode, count }) => ({
      errorCode,
      count,
      meaning: providerErrorMeaning(errorCode, language),
    })),
  };
}

/** A share from 0 to 1, rounded to 4 decimals (0.1 % steps of a percentage); null without a denominator. */
function ratio(part: number, whole: number): number | null {
  return whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000;
}

/** Milliseconds are the stored precision. */
function seconds(value: number | null): number | null {
  return value === null ? null : Math.round(value * 1000) / 1000;
}
