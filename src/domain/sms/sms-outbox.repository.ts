import type pg from "pg";
import type { Prisma, PrismaClient } from "../../generated/prisma/client.ts";
import type { Language } from "../messaging/messaging-provider.ts";
import { newId } from "../ids.ts";
import type { MerchantScope, StoredEvent } from "../orders/order.repository.ts";
import { eventEnvelope, type OrderView } from "../orders/order.view.ts";
import { ORDER_VIEW_JSON, ISO_MS } from "../orders/order-sql.ts";

/** An SMS whose send was decided under its order's lock: it goes out now, exactly this once. */
export interface SmsToSend {
  smsId: string;
  orderId: string;
  merchantId: string;
  mode: MerchantScope["mode"];
  kind: "fallback" | "reminder";
  position: number;
  to: string;
  language: Language;
  merchantName: string;
  externalOrderId: string;
  totalCost: number;
  currency: string;
}

/** An SMS as the order's records keep it (text, status and times), for the timeline and the conversation view. */
export interface SmsRecord {
  id: string;
  orderId: string;
  kind: "fallback" | "reminder";
  position: number;
  state: string;
  body: string | null;
  segments: number | null;
  provider: string | null;
  providerMessageId: string | null;
  errorCode: number | null;
  failureReason: string | null;
  createdAt: string;
  sentAt: string | null;
  deliveredAt: string | null;
  failedAt: string | null;
}

const CLAIM_SQL = `
  WITH due AS (
    SELECT id FROM sms_messages WHERE state = 'scheduled' AND due_at <= $1 ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED
  )
  UPDATE sms_messages s SET state = 'claimed', lease_until = $1::timestamptz + make_interval(secs => $3)
  FROM due WHERE s.id = due.id
  RETURNING s.id`;

/**
 * The send decision in one statement holding the order's row lock (a tap or cancel in progress is waited for and
 * then seen): a claimed SMS goes out only while its order is pending, otherwise it is skipped. `sending` with a
 * lease: a worker that dies from here on leaves it to the lease recovery, which never sends it again.
 */
const BEGIN_SEND_SQL = `
  WITH locked AS (
    SELECT o.id, o.status, o.merchant_id, o.mode, o.language, o.external_order_id, o.total_cost, o.currency
    FROM orders o WHERE o.id = (SELECT order_id FROM sms_messages WHERE id = $1) FOR UPDATE
  ), verdict AS (
    SELECT s.id, (o.status = 'pending') AS send
    FROM sms_messages s JOIN locked o ON o.id = s.order_id
    WHERE s.id = $1 AND s.state = 'claimed'
  )
  UPDATE sms_messages s
  SET state = CASE WHEN v.send THEN 'sending' ELSE 'skipped' END::"SmsState",
      lease_until = CASE WHEN v.send THEN $2::timestamptz + make_interval(secs => $3) ELSE NULL END
  FROM verdict v, locked o
  WHERE s.id = v.id
  RETURNING v.send, s.kind, s.position, s.to_phone, s.order_id, o.merchant_id, o.mode::text AS mode, o.language,
    o.external_order_id, o.total_cost::text AS total_cost, o.currency,
    (SELECT m.name FROM merchants m WHERE m.id = o.merchant_id) AS merchant_name`;

const RECORD_SENT_SQL = `
  WITH sent AS (
    UPDATE sms_messages SET state = 'sent', provider = $2, provider_message_id = $3, body = $4, segments = $5,
      sent_at = $6, lease_until = NULL
    WHERE id = $1 AND state = 'sending'
    RETURNING order_id, kind, position
  )
  INSERT INTO order_timeline (order_id, at, kind, source, detail)
  SELECT order_id, $6, 'sms_sent', 'scheduler',
    jsonb_strip_nulls(jsonb_build_object('sms', kind, 'reminder', NULLIF(position, 0), 'provider', $2::text,
      'providerMessageId', $3::text, 'segments', $5::int))
  FROM sent`;

const RECORD_DELIVERED_SQL = `
  WITH delivered AS (
    UPDATE sms_messages SET state = 'delivered', delivered_at = $2
    WHERE id = $1 AND state IN ('sending', 'sent')
    RETURNING order_id, kind, position, provider_message_id
  )
  INSERT INTO order_timeline (order_id, at, kind, source, detail)
  SELECT order_id, $2, 'sms_delivered', 'provider',
    jsonb_strip_nulls(jsonb_build_object('sms', kind, 'reminder', NULLIF(position, 0), 'providerMessageId', provider_message_id))
  FROM delivered
  RETURNING order_id`;

const RELEASE_EXPIRED_CLAIMS_SQL = `UPDATE sms_messages SET state = 'scheduled', lease_until = NULL WHERE state = 'claimed' AND lease_until < $1`;

/**
 * Sends interrupted between the decision and the recording of their result (kill -9) may have reached the
 * customer: never sent again, recorded failed. The order is not failed for it: the SMS may well have arrived.
 */
const FAIL_INTERRUPTED_SQL = `
  WITH failed AS (
    UPDATE sms_messages SET state = 'failed', failure_reason = 'Unknown failure', failed_at = $1, lease_until = NULL
    WHERE state = 'sending' AND lease_until < $1
    RETURNING order_id, kind, position
  ), timeline AS (
    INSERT INTO order_timeline (order_id, at, kind, source, detail)
    SELECT order_id, $1, 'sms_failed', 'scheduler',
      jsonb_strip_nulls(jsonb_build_object('sms', kind, 'reminder', NULLIF(position, 0), 'reason', 'send interrupted'))
    FROM failed
  )
  SELECT count(*)::int AS count FROM failed`;

const SMS_RECORD_COLUMNS = `s.id, s.order_id AS "orderId", s.kind, s.position, s.state::text AS state, s.body, s.segments, s.provider,
  s.provider_message_id AS "providerMessageId", s.error_code AS "errorCode", s.failure_reason AS "failureReason",
  to_char(s.created_at AT TIME ZONE 'UTC', ${ISO_MS}) AS "createdAt",
  to_char(s.sent_at AT TIME ZONE 'UTC', ${ISO_MS}) AS "sentAt",
  to_char(s.delivered_at AT TIME ZONE 'UTC', ${ISO_MS}) AS "deliveredAt",
  to_char(s.failed_at AT TIME ZONE 'UTC', ${ISO_MS}) AS "failedAt"`;

const TX_OPTIONS = { maxWait: 15_000, timeout: 15_000 } as const;

/** The durable SMS outbox (table sms_messages): claimed SKIP LOCKED with leases, each SMS sent at most once. */
export class SmsOutboxRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly pool: pg.Pool,
  ) {}

  async claimDue(now: Date, limit: number, leaseSeconds: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ id: string }>(CLAIM_SQL, [now, limit, leaseSeconds]);
    return rows.map((row) => row.id);
  }

  async beginSend(smsId: string, now: Date, leaseSeconds: number): Promise<SmsToSend | "skipped"> {
    const { rows } = await this.pool.query(BEGIN_SEND_SQL, [smsId, now, leaseSeconds]);
    const row = rows[0];
    if (!row?.send) return "skipped";
    return {
      smsId,
      orderId: row.order_id,
      merchantId: row.merchant_id,
      mode: row.mode,
      kind: row.kind === "reminder" ? "reminder" : "fallback",
      position: row.position,
      to: row.to_phone,
      language: row.language === "ar" ? "ar" : "en",
      merchantName: row.merchant_name,
      externalOrderId: row.external_order_id,
      totalCost: Number(row.total_cost),
      currency: row.currency,
    };
  }

  async recordSent(smsId: string, sent: { provider: string; providerMessageId: string; body: string; segments: number }, now: Date): Promise<void> {
    await this.pool.query(RECORD_SENT_SQL, [smsId, sent.provider, sent.providerMessageId, sent.body, sent.segments, now]);
  }

  /** A `delivered` status: timeline sms_delivered once; duplicates and reports after a failure change nothing. */
  async recordDelivered(smsId: string, now: Date): Promise<boolean> {
    const { rowCount } = await this.pool.query(RECORD_DELIVERED_SQL, [smsId, now]);
    return (rowCount ?? 0) > 0;
  }

  /**
   * The SMS was refused, or reported failed/undelivered (from `sending` or `sent` only: a repeat, or a report after
   * `delivered`, changes nothing). In one transaction: the SMS recorded failed with the provider's code, the
   * timeline step `sms_failed`, and, for the fallback SMS of a still pending order, the order failed with the
   * WhatsApp error that caused the fallback (order.failed; what was still scheduled for it canceled).
   */
  async recordFailed(
    smsId: string,
    failure: { errorCode: number | null; failureReason: string },
    now: Date,
    body: { text: string; segments: number } | null = null,
  ): Promise<{ applied: boolean; event: StoredEvent | null }> {
    return this.prisma.$transaction(async (tx) => {
      // The order's lock first, then the SMS row (the order the send decision takes them in): never a deadlock.
      const [order] = await tx.$queryRaw<{ status: string; merchant_id: string; mode: MerchantScope["mode"] }[]>`
        SELECT status::text AS status, merchant_id::text AS merchant_id, mode::text AS mode FROM orders
        WHERE id = (SELECT order_id FROM sms_messages WHERE id = ${smsId}::uuid) FOR UPDATE`;
      const [sms] = await tx.$queryRaw<
        { order_id: string; kind: string; position: number; whatsapp_error_code: number | null; whatsapp_failure_reason: string | null }[]
      >`
        SELECT order_id::text AS order_id, kind, position, whatsapp_error_code, whatsapp_failure_reason
        FROM sms_messages WHERE id = ${smsId}::uuid FOR UPDATE`;
      if (!sms || !order) return { applied: false, event: null };
      const updated = await tx.$executeRaw`
        UPDATE sms_messages SET state = 'failed', error_code = ${failure.errorCode}, failure_reason = ${failure.failureReason.slice(0, 1000)},
          failed_at = ${now}, lease_until = NULL, body = coalesce(${body?.text ?? null}, body), segments = coalesce(${body?.segments ?? null}::smallint, segments)
        WHERE id = ${smsId}::uuid AND state IN ('sending', 'sent')`;
      if (updated === 0) return { applied: false, event: null };
      const smsDetail = { sms: sms.kind, reminder: sms.position || undefined, smsErrorCode: failure.errorCode, smsFailureReason: failure.failureReason };
      const failsOrder = sms.kind === "fallback" && order?.status === "pending";
      if (!failsOrder) {
        await timelineStep(tx, sms.order_id, now, "provider", smsDetail);
        return { applied: true, event: null };
      }
      const orderFailure = { errorCode: sms.whatsapp_error_code, failureReason: sms.whatsapp_failure_reason ?? "Unknown failure" };
      const [view] = await tx.$queryRawUnsafe<{ order: OrderView }[]>(
        `UPDATE orders o SET status = 'failed', error_code = $2, failure_reason = $3, updated_at = $4 WHERE o.id = $1::uuid
         RETURNING ${ORDER_VIEW_JSON} AS "order"`,
        sms.order_id,
        orderFailure.errorCode,
        orderFailure.failureReason,
        now,
      );
      const envelope = eventEnvelope("order.failed", now, view.order);
      const event: StoredEvent = { id: newId(), merchantId: order.merchant_id, mode: order.mode, orderId: sms.order_id, envelope };
      await tx.orderEvent.create({
        data: {
          id: event.id,
          merchantId: event.merchantId,
          orderId: event.orderId,
          type: "order.failed",
          payload: envelope as unknown as Prisma.InputJsonValue,
          createdAt: now,
        },
      });
      await timelineStep(tx, sms.order_id, now, "provider", { ...orderFailure, ...smsDetail });
      // The order left pending: its schedule (expiry) and its SMS still to come will never be due.
      await tx.$executeRaw`
        UPDATE order_tasks SET state = 'canceled', lease_until = NULL, finished_at = ${now}
        WHERE order_id = ${sms.order_id}::uuid AND state IN ('scheduled', 'claimed')`;
      await tx.$executeRaw`
        UPDATE sms_messages SET state = 'skipped', lease_until = NULL
        WHERE order_id = ${sms.order_id}::uuid AND state IN ('scheduled', 'claimed')`;
      return { applied: true, event };
    }, TX_OPTIONS);
  }

  /** Crash recovery; returns how many interrupted sends were recorded failed. */
  async recoverLeases(now: Date): Promise<number> {
    await this.pool.query(RELEASE_EXPIRED_CLAIMS_SQL, [now]);
    const { rows } = await this.pool.query<{ count: number }>(FAIL_INTERRUPTED_SQL, [now]);
    return rows[0]?.count ?? 0;
  }

  async releaseClaims(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.pool.query(`UPDATE sms_messages SET state = 'scheduled', lease_until = NULL WHERE id = ANY($1::uuid[]) AND state = 'claimed'`, [ids]);
  }

  async nextDueAt(): Promise<Date | null> {
    const { rows } = await this.pool.query<{ due_at: Date }>(`SELECT due_at FROM sms_messages WHERE state = 'scheduled' ORDER BY due_at LIMIT 1`);
    return rows[0]?.due_at ?? null;
  }

  /** The SMS a provider message id (Twilio's MessageSid) names. */
  async findByProviderMessageId(providerMessageId: string): Promise<{ id: string; orderId: string } | null> {
    const { rows } = await this.pool.query<{ id: string; order_id: string }>(
      `SELECT id, order_id FROM sms_messages WHERE provider_message_id = $1`,
      [providerMessageId],
    );
    return rows[0] ? { id: rows[0].id, orderId: rows[0].order_id } : null;
  }

  /** The order's latest SMS that went out (test mode drives its status), if the scope sees the order. */
  async latestSent(scope: MerchantScope, orderId: string): Promise<{ id: string } | null> {
    const { rows } = await this.pool.query<{ id: string }>(
      `SELECT s.id FROM sms_messages s JOIN orders o ON o.id = s.order_id
       WHERE s.order_id = $1::uuid AND o.merchant_id = $2::uuid AND o.mode = $3::"KeyMode" AND s.sent_at IS NOT NULL
       ORDER BY s.sent_at DESC, s.position DESC LIMIT 1`,
      [orderId, scope.merchantId, scope.mode],
    );
    return rows[0] ?? null;
  }

  /** Every SMS of an order, oldest first (at most 10: a fallback and three reminders). */
  async ofOrder(orderId: string): Promise<SmsRecord[]> {
    const { rows } = await this.pool.query<SmsRecord>(
      `SELECT ${SMS_RECORD_COLUMNS} FROM sms_messages s WHERE s.order_id = $1::uuid ORDER BY s.position, s.created_at LIMIT 10`,
      [orderId],
    );
    return rows;
  }
}

async function timelineStep(tx: Prisma.TransactionClient, orderId: string, now: Date, source: string, detail: Record<string, unknown>) {
  const clean = Object.fromEntries(Object.entries(detail).filter(([, value]) => value !== undefined));
  await tx.$executeRaw`
    INSERT INTO order_timeline (order_id, at, kind, source, detail)
    VALUES (${orderId}::uuid, ${now}, 'sms_failed', ${source}, ${JSON.stringify(clean)}::jsonb)`;
}
