import { Prisma } from "../../generated/prisma/client.ts";
import type { MerchantScope } from "./order.repository.ts";

/**
 * The follow-up queue (SPEC §15, OrderFilter.needsFollowUp): pending orders whose last message to the customer is
 * older than the merchant's current `followUpAfter`, with no answer (an answer ends `pending`).
 *
 * The last message to the customer is the confirmation (sent when the order became pending: its `created_at`) or
 * the latest reminder sent (`order_tasks.finished_at` of a `sent` reminder; one being sent right now counts as
 * just sent). So an order is due when it was created before the cutoff and no reminder went out after it.
 *
 * Fast at any size without an index of its own: `status = 'pending' AND created_at <= cutoff`, newest first, is a
 * range of orders_merchant_id_mode_status_created_at_id_idx that starts at the cutoff (the pending orders not yet
 * due are never read), and the reminder check is one probe of order_tasks' (order_id, kind, position) key per row.
 * Only orders with a reminder sent after the cutoff are read and skipped.
 *
 * The cutoff is computed in the statement from the stored policy (no row: the default 2h): durations are stored as
 * `<n>s|m|h|d`, which PostgreSQL's interval input reads with the same meaning (s, m = minutes, h, d). A change of
 * `followUpAfter` applies to the queue at once: it is a view, not something scheduled.
 */
export function followUpConditions(scope: MerchantScope): Prisma.Sql[] {
  const cutoff = Prisma.sql`(now() - coalesce((SELECT p.follow_up_after FROM confirmation_policies p
      WHERE p.merchant_id = ${scope.merchantId}::uuid AND p.mode = ${scope.mode}::"KeyMode"), '2h')::interval)`;
  return [
    Prisma.sql`o.status = 'pending'`,
    Prisma.sql`o.created_at <= ${cutoff}`,
    Prisma.sql`NOT EXISTS (SELECT 1 FROM order_tasks t WHERE t.order_id = o.id AND t.kind = 'reminder'
      AND (t.state = 'sending' OR (t.state = 'sent' AND t.finished_at > ${cutoff})))`,
  ];
}
