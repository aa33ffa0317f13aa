import { Prisma } from "../../generated/prisma/client.ts";
import { filterConditions } from "./order-filter-sql.ts";
import type { MerchantScope } from "./merchant-scope.ts";
import type { OrderFilter } from "./order.schemas.ts";

/**
 * The order list with a prefix search (OrderFilter.search, REST `search`): externalOrderId or customerPhone
 * starting with the text, or customerName starting with it ignoring case. Each branch is an index range of one of
 * the three hand-written btree indexes of migration 20261124120000_order_search (text_pattern_ops, so `LIKE
 * 'prefix%'` works whatever the collation; the planner ORs them as bitmaps, or walks the createdAt index when
 * the prefix matches most orders). Prisma's `startsWith` is not used: it leaves `%` and `_` as wildcards and its
 * case-insensitive mode (ILIKE) cannot use an index.
 */

/** `text` as a LIKE prefix pattern: `\`, `%` and `_` are literal, then anything may follow. */
export function likePrefix(text: string): string {
  return `${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

export function searchConditions(scope: MerchantScope, filter: OrderFilter & { search: string }): Prisma.Sql[] {
  const pattern = likePrefix(filter.search);
  // Phones are stored without "+": "+9665" finds 9665…
  const phone = filter.search.startsWith("+") && filter.search.length > 1 ? likePrefix(filter.search.slice(1)) : pattern;
  return [
    ...filterConditions(scope, filter),
    Prisma.sql`(o.external_order_id LIKE ${pattern} OR o.customer_phone LIKE ${phone}
      OR lower(o.customer_name) LIKE lower(${pattern}))`,
  ];
}

/** The orders the search matches in all pages, as `SELECT 1 …` (order-count.ts counts them up to its cap). */
export function searchMatchesSql(scope: MerchantScope, filter: OrderFilter & { search: string }): Prisma.Sql {
  return Prisma.sql`SELECT 1 FROM orders o WHERE ${Prisma.join(searchConditions(scope, filter), " AND ")}`;
}
