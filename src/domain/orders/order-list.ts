import { Prisma } from "../../generated/prisma/client.ts";
import type { OrderCursor } from "./order-cursor.ts";
import { filterConditions } from "./order-filter-sql.ts";
import { searchConditions } from "./order-search.ts";
import { ORDER_VIEW_JSON } from "./order-sql.ts";
import type { MerchantScope } from "./merchant-scope.ts";
import type { OrderFilter } from "./order.schemas.ts";

/**
 * One keyset page of the order list (newest first; filters, prefix search and cursor) with every order's items,
 * as the public JSON, in one statement: Node only parses it, instead of materialising a Prisma model per order and
 * per item and mapping each to its view (the list's main cost, see bench/peers.ts). The page is chosen in an inner
 * query, so the JSON (and its items subquery) is built for the page's rows only, whatever the plan.
 */
export function listPageSql(scope: MerchantScope, filter: OrderFilter, limit: number, after: OrderCursor | null): Prisma.Sql {
  const conditions = filter.search ? searchConditions(scope, { ...filter, search: filter.search }) : filterConditions(scope, filter);
  if (after) {
    // The redundant `created_at <= cursor` bounds the index scan; the OR alone would filter every newer row.
    conditions.push(Prisma.sql`o.created_at <= ${after.createdAt}::timestamptz`);
    conditions.push(Prisma.sql`(o.created_at < ${after.createdAt}::timestamptz
      OR (o.created_at = ${after.createdAt}::timestamptz AND o.id < ${after.id}::uuid))`);
  }
  return Prisma.sql`SELECT ${Prisma.raw(ORDER_VIEW_JSON)} AS "order"
    FROM (SELECT * FROM orders o WHERE ${Prisma.join(conditions, " AND ")}
          ORDER BY o.created_at DESC, o.id DESC LIMIT ${limit}) o
    ORDER BY o.created_at DESC, o.id DESC`;
}
