import { Prisma } from "../../generated/prisma/client.ts";
import type { MerchantScope } from "./order.repository.ts";
import { followUpConditions } from "./order-follow-up-sql.ts";
import type { OrderFilter } from "./order.schemas.ts";

/** The list's conditions without search or cursor: the caller's visible orders matching `filter` (also counted). */
export function filterConditions(scope: MerchantScope, filter: OrderFilter): Prisma.Sql[] {
  const conditions = [
    Prisma.sql`o.merchant_id = ${scope.merchantId}::uuid`,
    Prisma.sql`o.mode = ${scope.mode}::"KeyMode"`,
    Prisma.sql`o.send_state <> 'sending'`,
  ];
  if (filter.statuses?.length) conditions.push(Prisma.sql`o.status = ANY(${filter.statuses}::"OrderStatus"[])`);
  if (filter.externalOrderId) conditions.push(Prisma.sql`o.external_order_id = ${filter.externalOrderId}`);
  if (filter.customerPhone) conditions.push(Prisma.sql`o.customer_phone = ${filter.customerPhone}`);
  if (filter.createdFrom) conditions.push(Prisma.sql`o.created_at >= ${filter.createdFrom}::timestamptz`);
  if (filter.createdTo) conditions.push(Prisma.sql`o.created_at < ${filter.createdTo}::timestamptz`);
  if (filter.needsFollowUp) conditions.push(...followUpConditions(scope));
  return conditions;
}
