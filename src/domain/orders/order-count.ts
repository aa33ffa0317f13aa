import { Prisma } from "../../generated/prisma/client.ts";
import { filterConditions } from "./order-filter-sql.ts";
import type { MerchantScope } from "./merchant-scope.ts";
import type { OrderFilter } from "./order.schemas.ts";

/**
 * How many orders a list matches in all its pages (GraphQL's OrderConnection.totalCount), in time that does not grow
 * with the merchant's orders:
 * - no filter, or statuses only: exact, from the counts the database maintains per (merchant, mode, status) in the
 *   transaction of every change (table order_counts, migration 20261124140000_order_counts): a sum of a few rows.
 * - any other filter (dates, phone, externalOrderId, search): exact up to TOTAL_COUNT_CAP, counted through the list's
 *   own indexes but stopping after CAP + 1 rows; beyond that the answer is "at least CAP" (precision `at_least`).
 *   A date range or a broad search can match most of a million orders; counting them all would cost more than
 *   the page itself (bench/scale.ts). Why 1,000 and not 10,000, measured at 1,000,000 orders: status + 30 days
 *   (45,000 matches) takes 0.5 ms to 1,001 rows (an index scan that stops) but 23 ms to 10,001 (the planner turns
 *   to a bitmap scan, which reads every match first); a first name matching 1/8 of the orders, 7 ms against 75 ms.
 */
export const TOTAL_COUNT_CAP = 1_000;

export interface TotalCount {
  count: number;
  /** `exact`: `count` orders match. `at_least`: more than TOTAL_COUNT_CAP match, `count` is the cap. */
  precision: "exact" | "at_least";
}

/** Whether the maintained counts answer this filter exactly (statuses are their only dimension). */
export function countedByStatus(filter: OrderFilter): boolean {
  return (
    !filter.externalOrderId && !filter.customerPhone && !filter.createdFrom && !filter.createdTo && !filter.search &&
    filter.needsReply === undefined && !filter.needsFollowUp
  );
}

/** The sum of the maintained counts of the scope, over `statuses` (all when empty). */
export function maintainedCountSql(scope: MerchantScope, statuses: readonly string[] | undefined): Prisma.Sql {
  const byStatus = statuses?.length ? Prisma.sql`AND status = ANY(${statuses}::"OrderStatus"[])` : Prisma.empty;
  return Prisma.sql`SELECT coalesce(sum(count), 0)::int AS count FROM order_counts
    WHERE merchant_id = ${scope.merchantId}::uuid AND mode = ${scope.mode}::"KeyMode" ${byStatus}`;
}

/** The orders matching a filter without search, as `SELECT 1 …` (the search has its own, order-search.ts). */
export function filterMatchesSql(scope: MerchantScope, filter: OrderFilter): Prisma.Sql {
  return Prisma.sql`SELECT 1 FROM orders o WHERE ${Prisma.join(filterConditions(scope, filter), " AND ")}`;
}

/** count(*) of at most CAP + 1 rows of a statement selecting the matching orders (`SELECT 1 FROM orders o WHERE …`). */
export function boundedCountSql(matching: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`SELECT count(*)::int AS count FROM (${matching} LIMIT ${TOTAL_COUNT_CAP + 1}) AS matching`;
}

export function boundedCount(counted: number): TotalCount {
  return counted > TOTAL_COUNT_CAP ? { count: TOTAL_COUNT_CAP, precision: "at_least" } : { count: counted, precision: "exact" };
}
