import type { Prisma } from "../../generated/prisma/client.ts";
import type pg from "pg";
import { newId } from "../ids.ts";

/** An order whose first WhatsApp message failed with one of its fallback codes (SPEC §12). */
export interface FallbackToQueue {
  orderId: string;
  /** The WhatsApp failure: the order fails with it if the SMS fails too. */
  errorCode: number | null;
  failureReason: string;
}

/**
 * Written in the transaction that records the WhatsApp failure (the order row is locked): the fallback SMS, due
 * now, and the order's reminders still to come moved from WhatsApp to SMS (same due times). At most one fallback
 * per order (its unique key), so a replayed failure queues nothing. Returns how many fallbacks were queued.
 */
const QUEUE_FALLBACK_SQL = `
  WITH input AS (
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::text[]) AS i(sms_id, order_id, error_code, failure_reason)
  ), fallback AS (
    INSERT INTO sms_messages (id, order_id, merchant_id, mode, kind, position, state, due_at, to_phone,
      whatsapp_error_code, whatsapp_failure_reason, created_at)
    SELECT i.sms_id, o.id, o.merchant_id, o.mode, 'fallback', 0, 'scheduled', $5, o.customer_phone, i.error_code,
      left(i.failure_reason, 1000), $5
    FROM input i JOIN orders o ON o.id = i.order_id
    ON CONFLICT (order_id, kind, position) DO NOTHING
    RETURNING order_id
  ), moved AS (
    UPDATE order_tasks t SET state = 'canceled', lease_until = NULL, finished_at = $5
    WHERE t.order_id IN (SELECT order_id FROM fallback) AND t.kind = 'reminder' AND t.state IN ('scheduled', 'claimed')
    RETURNING t.order_id, t.position, t.due_at
  ), reminders AS (
    INSERT INTO sms_messages (id, order_id, merchant_id, mode, kind, position, state, due_at, to_phone, created_at)
    SELECT gen_random_uuid(), o.id, o.merchant_id, o.mode, 'reminder', m.position, 'scheduled', m.due_at, o.customer_phone, $5
    FROM moved m JOIN orders o ON o.id = m.order_id
    ON CONFLICT (order_id, kind, position) DO NOTHING
  )
  SELECT count(*)::int AS queued FROM fallback`;

/** queueFallbackSms on a plain `pg` client inside its transaction (OrderRepository's single-order transition). */
export async function queueFallbackSmsOn(client: pg.ClientBase, fallbacks: FallbackToQueue[], now: Date): Promise<number> {
  if (fallbacks.length === 0) return 0;
  const { rows } = await client.query<{ queued: number }>(QUEUE_FALLBACK_SQL, [
    fallbacks.map(() => newId()),
    fallbacks.map((entry) => entry.orderId),
    fallbacks.map((entry) => entry.errorCode),
    fallbacks.map((entry) => entry.failureReason),
    now,
  ]);
  return rows[0]?.queued ?? 0;
}

export async function queueFallbackSms(tx: Prisma.TransactionClient, fallbacks: FallbackToQueue[], now: Date): Promise<number> {
  if (fallbacks.length === 0) return 0;
  const rows = await tx.$queryRawUnsafe<{ queued: number }[]>(
    QUEUE_FALLBACK_SQL,
    fallbacks.map(() => newId()),
    fallbacks.map((entry) => entry.orderId),
    fallbacks.map((entry) => entry.errorCode),
    fallbacks.map((entry) => entry.failureReason),
    now,
  );
  return rows[0]?.queued ?? 0;
}
