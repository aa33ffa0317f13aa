import type pg from "pg";
import type { Language } from "../messaging/messaging-provider.ts";
import type { MerchantScope, ProviderEventKey } from "../orders/order.repository.ts";
import type { OrderView } from "../orders/order.view.ts";
import { ORDER_VIEW_JSON } from "../orders/order-sql.ts";

/** A reminder whose send was decided under its order's lock: it goes out now, exactly this once. */
export interface ReminderToSend {
  taskId: string;
  position: number;
  merchantId: string;
  mode: MerchantScope["mode"];
  language: Language;
  order: OrderView;
}

/** A reminder of an order, found by the provider message id of its send. */
export interface SentReminder {
  taskId: string;
  orderId: string;
  position: number;
}

/** Claims up to $2 due reminders, in due order, and leases them to this worker (SKIP LOCKED: instances share). */
const CLAIM_REMINDERS_SQL = `
  WITH due AS (
    SELECT id FROM order_tasks
    WHERE state = 'scheduled' AND due_at <= $1 AND kind = 'reminder'
    ORDER BY due_at
    LIMIT $2
    FOR UPDATE SKIP LOCKED
  )
  UPDATE order_tasks t SET state = 'claimed', lease_until = $1::timestamptz + make_interval(secs => $3)
  FROM due WHERE t.id = due.id
  RETURNING t.id`;

/**
 * The send decision, in one statement holding the order's row lock (the CTE's FOR UPDATE waits for a tap or
 * cancel in progress and then sees its result): a claimed reminder is sent only while the order is pending, its
 * first message did not fail, and no later reminder or the expiry is already due (after a backlog the customer
 * gets the latest reminder, not several at once); otherwise it is skipped. A reminder to send also takes a token
 * from the bucket every instance shares ($4: refilled at $6 per second up to $5), right before its request
 * leaves, so no window of sends exceeds the configured rate; without a token it stays claimed (try again shortly).
 */
const BEGIN_SEND_SQL = `
  WITH locked AS (
    SELECT o.* FROM orders o WHERE o.id = (SELECT order_id FROM order_tasks WHERE id = $1) FOR UPDATE
  ), verdict AS (
    SELECT t.id,
      (o.status = 'pending' AND o.send_state = 'accepted' AND o.delivery_status IS DISTINCT FROM 'failed'
        AND NOT EXISTS (
          SELECT 1 FROM order_tasks later
          WHERE later.order_id = t.order_id AND later.id <> t.id AND later.state IN ('scheduled', 'claimed')
            AND later.due_at <= $2 AND (later.kind = 'expiry' OR later.position > t.position))) AS send
    FROM order_tasks t JOIN locked o ON o.id = t.order_id
    WHERE t.id = $1 AND t.state = 'claimed'
  ), token AS (
    INSERT INTO send_throttles AS b (name, tokens, refilled_at)
    SELECT $4, $5 - 1, clock_timestamp() FROM verdict WHERE verdict.send
    ON CONFLICT (name) DO UPDATE SET
      tokens = least($5, b.tokens + extract(epoch FROM clock_timestamp() - b.refilled_at)::float8 * $6) - 1,
      refilled_at = clock_timestamp()
    WHERE least($5, b.tokens + extract(epoch FROM clock_timestamp() - b.refilled_at)::float8 * $6) >= 1
    RETURNING 1
  )
  UPDATE order_tasks t
  SET state = CASE WHEN NOT verdict.send THEN 'skipped' WHEN EXISTS (SELECT 1 FROM token) THEN 'sending' ELSE 'claimed' END::"OrderTaskState",
      lease_until = CASE WHEN NOT verdict.send THEN NULL
        WHEN EXISTS (SELECT 1 FROM token) THEN $2::timestamptz + make_interval(secs => $3) ELSE t.lease_until END,
      finished_at = CASE WHEN verdict.send THEN NULL ELSE $2::timestamptz END
  FROM verdict, locked o
  WHERE t.id = verdict.id AND t.state = 'claimed'
  RETURNING verdict.send, EXISTS (SELECT 1 FROM token) AS has_token, t.position, o.merchant_id, o.mode, o.language,
    ${ORDER_VIEW_JSON} AS "order"`;

const RECORD_SENT_SQL = `
  WITH sent AS (
    UPDATE order_tasks SET state = 'sent', provider_message_id = $2, lease_until = NULL, finished_at = $3
    WHERE id = $1 AND state = 'sending'
    RETURNING order_id, position
  )
  INSERT INTO order_timeline (order_id, at, kind, source, detail)
  SELECT order_id, $3, 'reminder_sent', 'scheduler', jsonb_build_object('reminder', position, 'providerMessageId', $2::text)
  FROM sent`;

const RECORD_FAILED_SQL = `
  WITH failed AS (
    UPDATE order_tasks SET state = 'failed', error_code = $2, failure_reason = $3, lease_until = NULL, finished_at = $4
    WHERE id = $1 AND state = 'sending'
    RETURNING order_id, position
  )
  INSERT INTO order_timeline (order_id, at, kind, source, detail)
  SELECT order_id, $4, 'reminder_failed', 'scheduler',
    jsonb_build_object('reminder', position, 'errorCode', $2::int, 'failureReason', $3::text)
  FROM failed`;

/** Claims whose worker died before deciding go back to the schedule (nothing was sent for them). */
const RELEASE_EXPIRED_CLAIMS_SQL = `
  UPDATE order_tasks SET state = 'scheduled', lease_until = NULL
  WHERE state = 'claimed' AND lease_until < $1`;

/**
 * Sends whose worker died between the decision and the recording of the result may have reached the
 * customer: never sent again (at most once per reminder), recorded as failed.
 */
const FAIL_INTERRUPTED_SENDS_SQL = `
  WITH failed AS (
    UPDATE order_tasks SET state = 'failed', failure_reason = 'Unknown failure', lease_until = NULL, finished_at = $1
    WHERE state = 'sending' AND lease_until < $1
    RETURNING order_id, position
  ), timeline AS (
    INSERT INTO order_timeline (order_id, at, kind, source, detail)
    SELECT order_id, $1, 'reminder_failed', 'scheduler',
      jsonb_build_object('reminder', position, 'errorCode', NULL, 'failureReason', 'Unknown failure', 'reason', 'send interrupted')
    FROM failed
  )
  SELECT count(*)::int AS count FROM failed`;

/**
 * A provider status of a reminder message: recorded once (its dedupe key in the same statement), as a
 * timeline step; `failed` also marks the reminder failed. The order itself is not touched.
 */
const APPLY_REMINDER_STATUS_SQL = `
  WITH claimed AS (
    INSERT INTO provider_events (provider, key, order_id, created_at) VALUES ($1, $2, $3, $4)
    ON CONFLICT DO NOTHING
    RETURNING order_id
  ), failed AS (
    UPDATE order_tasks SET state = 'failed', error_code = $7, failure_reason = $8
    WHERE id = $5 AND $6 = 'reminder_failed' AND EXISTS (SELECT 1 FROM claimed)
  ), timeline AS (
    INSERT INTO order_timeline (order_id, at, kind, source, detail)
    SELECT order_id, $4, $6, 'provider', $9::jsonb FROM claimed WHERE $6 IS NOT NULL
  )
  SELECT count(*)::int AS count FROM claimed`;

/** The durable schedule of reminders and expiries (table order_tasks); every claim is SKIP LOCKED. */
export class OrderTaskRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** Up to `limit` due reminders, leased to this worker for `leaseSeconds`. */
  async claimDueReminders(now: Date, limit: number, leaseSeconds: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ id: string }>(CLAIM_REMINDERS_SQL, [now, limit, leaseSeconds]);
    return rows.map((row) => row.id);
  }

  /**
   * The send decision for one claimed reminder (see BEGIN_SEND_SQL): what to send; "skipped" when it must not
   * be sent; "wait" when the shared `bucket` has no token yet (it stays claimed).
   */
  async beginSend(
    taskId: string,
    now: Date,
    sendLeaseSeconds: number,
    bucket: { name: string; ratePerSecond: number; burst: number },
  ): Promise<ReminderToSend | "skipped" | "wait"> {
    const { rows } = await this.pool.query<{
      send: boolean;
      has_token: boolean;
      position: number;
      merchant_id: string;
      mode: MerchantScope["mode"];
      language: string;
      order: OrderView;
    }>(BEGIN_SEND_SQL, [taskId, now, sendLeaseSeconds, bucket.name, bucket.burst, bucket.ratePerSecond]);
    const row = rows[0];
    if (!row?.send) return "skipped";
    if (!row.has_token) return "wait";
    return {
      taskId,
      position: row.position,
      merchantId: row.merchant_id,
      mode: row.mode,
      language: row.language === "ar" ? "ar" : "en",
      order: row.order,
    };
  }

  async recordSent(taskId: string, providerMessageId: string, now: Date): Promise<void> {
    await this.pool.query(RECORD_SENT_SQL, [taskId, providerMessageId, now]);
  }

  async recordFailed(taskId: string, failure: { errorCode: number | null; failureReason: string }, now: Date): Promise<void> {
    await this.pool.query(RECORD_FAILED_SQL, [taskId, failure.errorCode, failure.failureReason, now]);
  }

  /** Leases this worker still holds without having decided (shutdown): back to the schedule at once. */
  async releaseClaims(taskIds: string[]): Promise<void> {
    if (taskIds.length === 0) return;
    await this.pool.query(
      `UPDATE order_tasks SET state = 'scheduled', lease_until = NULL WHERE id = ANY($1::uuid[]) AND state = 'claimed'`,
      [taskIds],
    );
  }

  /** Crash recovery; returns how many interrupted sends were failed. */
  async recoverLeases(now: Date): Promise<number> {
    await this.pool.query(RELEASE_EXPIRED_CLAIMS_SQL, [now]);
    const { rows } = await this.pool.query<{ count: number }>(FAIL_INTERRUPTED_SENDS_SQL, [now]);
    return rows[0]?.count ?? 0;
  }

  /** When the earliest scheduled task falls due (one index probe, whatever the number of pending orders). */
  async nextDueAt(): Promise<Date | null> {
    const { rows } = await this.pool.query<{ due_at: Date }>(
      `SELECT due_at FROM order_tasks WHERE state = 'scheduled' ORDER BY due_at LIMIT 1`,
    );
    return rows[0]?.due_at ?? null;
  }

  /** Seconds the oldest due-but-not-done task has been waiting (0 when none), for the metrics gauge. */
  async oldestDueSeconds(now: Date): Promise<number> {
    const { rows } = await this.pool.query<{ due_at: Date }>(
      `SELECT due_at FROM order_tasks WHERE state IN ('scheduled', 'claimed') AND due_at <= $1 ORDER BY due_at LIMIT 1`,
      [now],
    );
    return rows[0] ? Math.max(0, (now.getTime() - rows[0].due_at.getTime()) / 1000) : 0;
  }

  /** The reminder a provider message id (the wamid of its send) belongs to. */
  async findSentReminder(providerMessageId: string): Promise<SentReminder | null> {
    const { rows } = await this.pool.query<{ id: string; order_id: string; position: number }>(
      `SELECT id, order_id, position FROM order_tasks WHERE provider_message_id = $1`,
      [providerMessageId],
    );
    return rows[0] ? { taskId: rows[0].id, orderId: rows[0].order_id, position: rows[0].position } : null;
  }

  /** The sent reminders among `providerMessageIds`, keyed by message id (one query). */
  async findSentReminders(providerMessageIds: string[]): Promise<Map<string, SentReminder>> {
    if (providerMessageIds.length === 0) return new Map();
    const { rows } = await this.pool.query<{ id: string; order_id: string; position: number; provider_message_id: string }>(
      `SELECT id, order_id, position, provider_message_id FROM order_tasks WHERE provider_message_id = ANY($1::text[])`,
      [[...new Set(providerMessageIds)]],
    );
    return new Map(rows.map((row) => [row.provider_message_id, { taskId: row.id, orderId: row.order_id, position: row.position }]));
  }

  /** Whether reminder `position` of the order is being sent right now (its result not recorded yet). */
  async isSending(orderId: string, position: number): Promise<boolean> {
    const { rows } = await this.pool.query(
      `SELECT 1 FROM order_tasks WHERE order_id = $1 AND kind = 'reminder' AND position = $2 AND state = 'sending'`,
      [orderId, position],
    );
    return rows.length > 0;
  }

  /** Records a provider status of a sent reminder once; false when this provider event was seen before. */
  async applyReminderStatus(
    reminder: SentReminder,
    status: "sent" | "delivered" | "read" | "failed",
    failure: { errorCode: number | null; failureReason: string } | undefined,
    providerEvent: ProviderEventKey,
    now: Date,
  ): Promise<boolean> {
    const kind = status === "sent" ? null : `reminder_${status}`;
    const detail = { reminder: reminder.position, ...(status === "failed" ? failure : {}) };
    const { rows } = await this.pool.query<{ count: number }>(APPLY_REMINDER_STATUS_SQL, [
      providerEvent.provider, providerEvent.key, reminder.orderId, now, reminder.taskId, kind,
      failure?.errorCode ?? null, failure?.failureReason ?? null, JSON.stringify(detail),
    ]);
    return (rows[0]?.count ?? 0) > 0;
  }
}
