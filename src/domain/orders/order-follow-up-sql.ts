import { Prisma } from "../../generated/prisma/client.ts";
import type { MerchantScope } from "./merchant-scope.ts";

/**
 * The follow-up queue (SPEC §15, OrderFilter.needsFollowUp): pending orders that need a person, either because
 *
 * - the last message to the customer is older than the merchant's current `followUpAfter` with no answer (an answer
 *   ends `pending`), or
 * - the customer wrote something the service could not understand and nobody replied yet (needs reply, SPEC §11:
 *   the conversation's `needs_reply` flag).
 *
 * The last message to the customer is the confirmation (sent when the order became pending: its `created_at`) or
 * the latest reminder sent (`order_tasks.finished_at` of a `sent` reminder; one being sent right now counts as just
 * sent). A merchant's reply in the conversation does not restart the clock.
 *
 * Fast at any size without an index of its own: `status = 'pending'`, newest first, is a range of
 * orders_merchant_id_mode_status_created_at_id_idx; the rows read and skipped are the pending orders whose last
 * message is recent (those created within followUpAfter, and those reminded since: the orders not yet due),
 * each with one probe of order_tasks' (order_id, kind, position) key (the rest of the range is read only to the
 * page's end); the few conversations needing a reply are one
 * hashed set (order_conversations_merchant_id_mode_needs_reply_idx). bench:scale measures it at 1,000,000 orders.
 *
 * The cutoff is computed in the statement from the stored policy (no row: the default 2h): durations are stored as
 * `<n>s|m|h|d`, which PostgreSQL's interval input reads with the same meaning (s, m = minutes, h, d). A change of
 * `followUpAfter` applies to the queue at once: it is a view, not something scheduled.
 */
export function followUpCondition(scope: MerchantScope): Prisma.Sql {
  const cutoff = Prisma.sql`(now() - coalesce((SELECT p.follow_up_after FROM confirmation_policies p
      WHERE p.merchant_id = ${scope.merchantId}::uuid AND p.mode = ${scope.mode}::"KeyMode"), '2h')::interval)`;
  // The latest reminder as a correlated scalar subquery (one probe of the order's own reminders per row read): as
  // NOT EXISTS inside the OR below, the planner hashes it instead, reading every reminder of every merchant.
  const lastReminder = Prisma.sql`(SELECT max(CASE WHEN t.state = 'sending' THEN 'infinity'::timestamptz ELSE t.finished_at END)
      FROM order_tasks t WHERE t.order_id = o.id AND t.kind = 'reminder' AND t.state IN ('sent', 'sending'))`;
  const unanswered = Prisma.sql`(o.created_at <= ${cutoff} AND coalesce(${lastReminder}, '-infinity') <= ${cutoff})`;
  const needsReply = Prisma.sql`o.id IN (SELECT c.order_id FROM order_conversations c
      WHERE c.merchant_id = ${scope.merchantId}::uuid AND c.mode = ${scope.mode}::"KeyMode" AND c.needs_reply)`;
  return Prisma.sql`(o.status = 'pending' AND (${unanswered} OR ${needsReply}))`;
}
