import { Prisma } from "../../generated/prisma/client.ts";
import type { MerchantScope } from "./merchant-scope.ts";
import { followUpCondition } from "./order-follow-up-sql.ts";
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
  if (filter.needsReply !== undefined) {
    // The scope's few conversations needing a reply (order_conversations_merchant_id_mode_needs_reply_idx), as a set
    // the planner can hash, rather than a probe per order of the merchant.
    const needing = Prisma.sql`o.id IN (SELECT c.order_id FROM order_conversations c
      WHERE c.merchant_id = ${scope.merchantId}::uuid AND c.mode = ${scope.mode}::"KeyMode" AND c.needs_reply)`;
    conditions.push(filter.needsReply ? needing : Prisma.sql`NOT (${needing})`);
  }
  if (filter.needsFollowUp) conditions.push(followUpCondition(scope));
  return conditions;
}
