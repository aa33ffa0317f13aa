import type pg from "pg";
import type { Prisma, PrismaClient } from "../../generated/prisma/client.ts";
import { newId } from "../ids.ts";
import { storableText } from "../storable.ts";

/** The `text` column's bound (WhatsApp's own limit for a text message). */
const MAX_STORED_TEXT = 4096;
import type { MerchantScope, ProviderEventKey, StoredEvent } from "../orders/order.repository.ts";
import { CUSTOMER_MESSAGE_EVENT, type OrderEventEnvelope, type OrderView } from "../orders/order.view.ts";
import type { DeliveryStatus } from "../orders/order-state.ts";

export type MessageDirection = "inbound" | "outbound";
export type MessageSender = "customer" | "service" | "merchant";
export type MessageKind = "confirmation" | "reminder" | "text" | "buttons" | "list" | "sms" | "tap";

/** One message of the conversation as stored or derived (the confirmation and reminders come from the order). */
export interface ConversationRow {
  id: string;
  direction: MessageDirection;
  sender: MessageSender;
  kind: MessageKind;
  text: string | null;
  at: string;
  /** queued / sending (not yet at the provider) / sent / delivered / read / failed; null inbound. */
  status: string | null;
  /** For a reminder: its number (its text is rendered from the order). */
  reminder: number | null;
}

/** The order's facts a conversation needs (language for replies, phone to send to). */
export interface ConversationOrder {
  id: string;
  merchantId: string;
  mode: MerchantScope["mode"];
  merchantName: string;
  externalOrderId: string;
  customerPhone: string;
  language: string;
  status: string;
  totalCost: number;
  currency: string;
  createdAt: string;
}

/** An outbound message claimed by the conversation sender. */
export interface QueuedMessage {
  id: string;
  orderId: string;
  merchantId: string;
  mode: MerchantScope["mode"];
  kind: MessageKind;
  text: string | null;
  payload: Record<string, unknown> | null;
  customerPhone: string;
  language: string;
}

/** A message the callbacks' wamids name: its order (a list offered for several orders names several). */
export interface KnownMessage {
  orderIds: string[];
  direction: MessageDirection;
}

export interface MessageStatusReport {
  providerMessageId: string;
  status: DeliveryStatus;
  failure?: { errorCode: number | null; failureReason: string };
  providerEvent: ProviderEventKey;
}

const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The conversation: the confirmation (from the order), its reminders (from their tasks, with the statuses their
 * callbacks recorded in the timeline) and every stored message; the newest `$2`, returned oldest first by the caller.
 */
const CONVERSATION_SQL = `
  SELECT * FROM (
    SELECT o.id::text AS id, 'outbound' AS direction, 'service' AS sender, 'confirmation' AS kind, NULL::text AS text,
      o.created_at AS at_ts, 0 AS n,
      CASE WHEN o.send_state = 'rejected' THEN 'failed' ELSE coalesce(o.delivery_status::text, 'sent') END AS status,
      NULL::int AS reminder
    FROM orders o WHERE o.id = $1::uuid AND o.send_state <> 'sending'
    UNION ALL
    SELECT t.id::text, 'outbound', 'service', 'reminder', NULL, coalesce(t.finished_at, t.due_at), 1,
      CASE
        WHEN t.state = 'failed' OR EXISTS (SELECT 1 FROM order_timeline s WHERE s.order_id = t.order_id
          AND s.kind = 'reminder_failed' AND (s.detail->>'reminder')::int = t.position) THEN 'failed'
        WHEN EXISTS (SELECT 1 FROM order_timeline s WHERE s.order_id = t.order_id
          AND s.kind = 'reminder_read' AND (s.detail->>'reminder')::int = t.position) THEN 'read'
        WHEN EXISTS (SELECT 1 FROM order_timeline s WHERE s.order_id = t.order_id
          AND s.kind = 'reminder_delivered' AND (s.detail->>'reminder')::int = t.position) THEN 'delivered'
        ELSE 'sent' END,
      t.position
    FROM order_tasks t WHERE t.order_id = $1::uuid AND t.kind = 'reminder' AND t.state IN ('sent', 'failed')
    UNION ALL
    SELECT m.id::text, m.direction::text, m.sender::text, m.kind::text, m.text, m.at, 2, m.status, NULL
    FROM order_messages m WHERE m.order_id = $1::uuid
  ) c
  ORDER BY c.at_ts DESC, c.n DESC, c.id DESC
  LIMIT $2`;

const ORDER_SQL = `
  SELECT o.id::text AS id, o.merchant_id::text AS "merchantId", o.mode::text AS mode, mc.name AS "merchantName",
    o.external_order_id AS "externalOrderId", o.customer_phone AS "customerPhone", o.language, o.status::text AS status,
    o.total_cost::float8 AS "totalCost", o.currency, ${ISO("o.created_at")} AS "createdAt"
  FROM orders o JOIN merchants mc ON mc.id = o.merchant_id`;

/** The customer's message was a clear answer, or a tap: the order no longer waits for a person. */
const ANSWERED_SQL = `
  INSERT INTO order_conversations (order_id, merchant_id, mode, needs_reply, last_customer_message_at, updated_at)
  VALUES ($1::uuid, $2::uuid, $3::"KeyMode", false, $4, $4)
  ON CONFLICT (order_id) DO UPDATE SET needs_reply = false, last_customer_message_at = $4, updated_at = $4`;

/**
 * An unclear text: the conversation needs a reply; the one automatic reply is claimed when `$5` (a pending order)
 * and not claimed before. Returns whether this statement claimed it.
 */
const UNCLEAR_SQL = `
  WITH before AS (SELECT auto_reply_at FROM order_conversations WHERE order_id = $1::uuid),
  upserted AS (
    INSERT INTO order_conversations AS c (order_id, merchant_id, mode, needs_reply, auto_reply_at, last_customer_message_at, updated_at)
    VALUES ($1::uuid, $2::uuid, $3::"KeyMode", true, CASE WHEN $5::boolean THEN $4::timestamptz END, $4::timestamptz, $4::timestamptz)
    ON CONFLICT (order_id) DO UPDATE SET needs_reply = true, last_customer_message_at = $4::timestamptz, updated_at = $4::timestamptz,
      auto_reply_at = coalesce(c.auto_reply_at, EXCLUDED.auto_reply_at)
    RETURNING auto_reply_at
  )
  SELECT (upserted.auto_reply_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM before WHERE before.auto_reply_at IS NOT NULL)) AS claimed
  FROM upserted`;

/** The outbox row of `order.customer_message`: already dispatched when no enabled endpoint of the mode lists it. */
const CUSTOMER_MESSAGE_EVENT_SQL = `
  INSERT INTO order_events (id, merchant_id, order_id, type, payload, created_at, dispatched_at)
  SELECT $1::uuid, $2::uuid, $3::uuid, '${CUSTOMER_MESSAGE_EVENT}', $4::json, $5::timestamptz,
    CASE WHEN EXISTS (SELECT 1 FROM webhook_endpoints ep WHERE ep.merchant_id = $2::uuid AND ep.mode = $6::"KeyMode"
      AND ep.enabled AND '${CUSTOMER_MESSAGE_EVENT}' = ANY(ep.events)) THEN NULL ELSE $5::timestamptz END
  RETURNING dispatched_at IS NULL AS awaits_fan_out`;

const INSERT_MESSAGE_SQL = `
  INSERT INTO order_messages (id, order_id, merchant_id, mode, direction, sender, kind, text, status, provider_message_id,
    payload, lease_until, at)
  VALUES ($1::uuid, $2::uuid, $3::uuid, $4::"KeyMode", $5::"MessageDirection", $6::"MessageSender", $7::"MessageKind",
    $8, $9, $10, $11::jsonb, $12, $13)`;

/** As the order repository's: interactive transactions queue behind each other on the embedded engine. */
const TX_OPTIONS = { maxWait: 15_000, timeout: 15_000 } as const;

/** Statuses only move forward (a failure counts after delivered, before read). */
const STATUS_RANK: Record<string, number> = { queued: 0, sending: 0, sent: 1, delivered: 2, failed: 2.5, read: 3 };

export interface NewMessage {
  orderId: string;
  merchantId: string;
  mode: MerchantScope["mode"];
  direction: MessageDirection;
  sender: MessageSender;
  kind: MessageKind;
  text: string | null;
  status: string | null;
  providerMessageId?: string | null;
  payload?: Record<string, unknown> | null;
  leaseUntil?: Date | null;
  at: Date;
}

type Executor = Pick<Prisma.TransactionClient, "$executeRawUnsafe" | "$queryRawUnsafe">;

export class ConversationRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly pool: pg.Pool,
  ) {}

  /** Stores a message in the caller's transaction (or on its own); returns its id. */
  async insert(tx: Executor | null, message: NewMessage): Promise<string> {
    const id = newId();
    // Whatever a provider or client sent (a button label, a text) is stored as far as the column holds it, without
    // NUL or unpaired surrogates; cleaned after the cut too, which may split a surrogate pair.
    const text = message.text === null ? null : storableText(storableText(message.text).slice(0, MAX_STORED_TEXT));
    const values = [
      id, message.orderId, message.merchantId, message.mode, message.direction, message.sender, message.kind, text,
      message.status, message.providerMessageId ?? null, message.payload ? JSON.stringify(message.payload) : null,
      message.leaseUntil ?? null, message.at,
    ];
    if (tx) await tx.$executeRawUnsafe(INSERT_MESSAGE_SQL, ...values);
    else await this.pool.query(INSERT_MESSAGE_SQL, values);
    return id;
  }

  /** The conversation no longer needs a person (a clear answer or a tap). */
  async markAnswered(tx: Executor, order: { id: string; merchantId: string; mode: string }, now: Date): Promise<void> {
    await tx.$executeRawUnsafe(ANSWERED_SQL, order.id, order.merchantId, order.mode, now);
  }

  /**
   * An unclear text: timeline step, opt-in outbox event, needs-reply flag, and whether this text claimed the
   * order's one automatic reply (`pending`). Returns the stored event.
   */
  async recordUnclear(
    tx: Executor,
    input: { order: OrderView; merchantId: string; mode: MerchantScope["mode"]; messageId: string; text: string; providerMessageId: string | null; now: Date; pending: boolean },
  ): Promise<{ event: StoredEvent; autoReply: boolean }> {
    const { order, merchantId, mode, now } = input;
    const detail = input.providerMessageId ? { text: input.text, messageId: input.providerMessageId } : { text: input.text };
    await tx.$executeRawUnsafe(
      `INSERT INTO order_timeline (order_id, at, kind, source, detail) VALUES ($1::uuid, $2, 'customer_message', 'customer', $3::jsonb)`,
      order.id, now, JSON.stringify(detail),
    );
    const envelope: OrderEventEnvelope = {
      event: CUSTOMER_MESSAGE_EVENT,
      timestamp: now.toISOString(),
      data: order,
      message: { id: input.messageId, text: input.text, receivedAt: now.toISOString() },
    };
    const eventId = newId();
    const [stored] = await tx.$queryRawUnsafe<{ awaits_fan_out: boolean }[]>(
      CUSTOMER_MESSAGE_EVENT_SQL, eventId, merchantId, order.id, JSON.stringify(envelope), now, mode,
    );
    const [claim] = await tx.$queryRawUnsafe<{ claimed: boolean }[]>(UNCLEAR_SQL, order.id, merchantId, mode, now, input.pending);
    return {
      event: { id: eventId, merchantId, mode, orderId: order.id, envelope, awaitsFanOut: stored?.awaits_fan_out ?? true },
      autoReply: claim?.claimed ?? false,
    };
  }

  /** A merchant message answers the customer: the order no longer needs a reply. */
  async markReplied(tx: Executor, orderId: string, now: Date): Promise<void> {
    await tx.$executeRawUnsafe(`UPDATE order_conversations SET needs_reply = false, updated_at = $2 WHERE order_id = $1::uuid`, orderId, now);
  }

  /** The newest `limit` messages of the order, oldest first. */
  async conversation(orderId: string, limit: number): Promise<ConversationRow[]> {
    const { rows } = await this.pool.query<ConversationRow & { at_ts: Date }>(CONVERSATION_SQL, [orderId, limit]);
    return rows.reverse().map((row) => ({
      id: row.id,
      direction: row.direction,
      sender: row.sender,
      kind: row.kind,
      text: row.text,
      at: row.at_ts.toISOString(),
      status: row.status,
      reminder: row.reminder,
    }));
  }

  /** When the customer last wrote (text or tap) about this order, or null. */
  async lastInboundAt(tx: Executor | null, orderId: string): Promise<Date | null> {
    const sql = `SELECT max(at) AS at FROM order_messages WHERE order_id = $1::uuid AND direction = 'inbound'`;
    const [row] = tx ? await tx.$queryRawUnsafe<{ at: Date | null }[]>(sql, orderId) : (await this.pool.query<{ at: Date | null }>(sql, [orderId])).rows;
    return row?.at ?? null;
  }

  /** How many messages the merchant sent to this order since `since`. */
  async merchantMessagesSince(tx: Executor, orderId: string, since: Date): Promise<{ count: number; oldest: Date | null }> {
    const [row] = await tx.$queryRawUnsafe<{ count: number; oldest: Date | null }[]>(
      `SELECT count(*)::int AS count, min(at) AS oldest FROM order_messages
       WHERE order_id = $1::uuid AND sender = 'merchant' AND at >= $2`,
      orderId, since,
    );
    return { count: row?.count ?? 0, oldest: row?.oldest ?? null };
  }

  /** The order (visible to `scope`, when given) with what a conversation needs; null when there is none. */
  async order(orderId: string, scope: MerchantScope | null = null): Promise<ConversationOrder | null> {
    const { rows } = scope
      ? await this.pool.query<ConversationOrder>(
          `${ORDER_SQL} WHERE o.id = $1::uuid AND o.merchant_id = $2::uuid AND o.mode = $3::"KeyMode" AND o.send_state <> 'sending'`,
          [orderId, scope.merchantId, scope.mode],
        )
      : await this.pool.query<ConversationOrder>(`${ORDER_SQL} WHERE o.id = $1::uuid AND o.send_state <> 'sending'`, [orderId]);
    return rows[0] ?? null;
  }

  /**
   * The pending live orders of many phones at once (texts without `context`), newest first, at most `perPhone`
   * each: one statement over orders_pending_customer_phone_idx.
   */
  async pendingOrdersOfPhones(phones: string[], perPhone: number): Promise<Map<string, ConversationOrder[]>> {
    const result = new Map<string, ConversationOrder[]>();
    if (phones.length === 0) return result;
    const { rows } = await this.pool.query<ConversationOrder & { rank: number }>(
      `SELECT * FROM (
         SELECT q.*, row_number() OVER (PARTITION BY q."customerPhone" ORDER BY q."createdAt" DESC, q.id DESC) AS rank
         FROM (${ORDER_SQL}
           WHERE o.customer_phone = ANY($1::text[]) AND o.status = 'pending' AND o.send_state <> 'sending' AND o.mode = 'live') q
       ) ranked WHERE rank <= $2 ORDER BY "customerPhone", rank`,
      [[...new Set(phones)], perPhone],
    );
    for (const row of rows) {
      const { rank: _rank, ...order } = row;
      const list = result.get(order.customerPhone) ?? [];
      list.push(order);
      result.set(order.customerPhone, list);
    }
    return result;
  }

  /** Stored messages named by provider message ids (a callback batch's statuses and contexts): one query. */
  async findByProviderMessages(ids: string[]): Promise<Map<string, KnownMessage>> {
    const result = new Map<string, KnownMessage>();
    if (ids.length === 0) return result;
    const { rows } = await this.pool.query<{ provider_message_id: string; order_id: string; direction: MessageDirection }>(
      `SELECT provider_message_id, order_id::text AS order_id, direction::text AS direction FROM order_messages
       WHERE provider_message_id = ANY($1::text[])`,
      [[...new Set(ids)]],
    );
    for (const row of rows) {
      const known = result.get(row.provider_message_id) ?? { orderIds: [], direction: row.direction };
      if (!known.orderIds.includes(row.order_id)) known.orderIds.push(row.order_id);
      result.set(row.provider_message_id, known);
    }
    return result;
  }

  /**
   * Delivery statuses of our conversation messages, set-based (one claim insert, one update): each provider event
   * once, statuses only forward. Returns per report whether it changed the message.
   */
  async applyStatuses(reports: MessageStatusReport[], orderOf: Map<string, string>, now: Date): Promise<("applied" | "duplicate")[]> {
    if (reports.length === 0) return [];
    return this.prisma.$transaction(async (tx) => {
      const claimed = new Set(
        (
          await tx.$queryRawUnsafe<{ key: string }[]>(
            `INSERT INTO provider_events (provider, key, order_id, created_at)
             SELECT provider, key, order_id, $4 FROM unnest($1::text[], $2::text[], $3::uuid[]) AS c(provider, key, order_id)
             ON CONFLICT DO NOTHING RETURNING key`,
            reports.map((report) => report.providerEvent.provider),
            reports.map((report) => report.providerEvent.key),
            reports.map((report) => orderOf.get(report.providerMessageId)!),
            now,
          )
        ).map((row) => row.key),
      );
      // The furthest status each message reaches in this batch.
      const best = new Map<string, MessageStatusReport>();
      const outcomes = reports.map((report) => {
        if (!claimed.has(report.providerEvent.key)) return "duplicate" as const;
        claimed.delete(report.providerEvent.key); // a second copy in the batch is a duplicate
        const current = best.get(report.providerMessageId);
        if (!current || STATUS_RANK[report.status] > STATUS_RANK[current.status]) best.set(report.providerMessageId, report);
        return "applied" as const;
      });
      const updates = [...best.values()];
      if (updates.length) {
        await tx.$executeRawUnsafe(
          `UPDATE order_messages m SET status = u.status,
             error_code = CASE WHEN u.status = 'failed' THEN u.error_code ELSE m.error_code END,
             failure_reason = CASE WHEN u.status = 'failed' THEN u.failure_reason ELSE m.failure_reason END
           FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::float8[]) AS u(id, status, error_code, failure_reason, rank)
           WHERE m.provider_message_id = u.id AND m.direction = 'outbound'
             AND u.rank > CASE m.status WHEN 'sent' THEN 1 WHEN 'delivered' THEN 2 WHEN 'failed' THEN 2.5 WHEN 'read' THEN 3 ELSE 0 END`,
          updates.map((report) => report.providerMessageId),
          updates.map((report) => report.status),
          updates.map((report) => report.failure?.errorCode ?? null),
          updates.map((report) => report.failure?.failureReason ?? null),
          updates.map((report) => STATUS_RANK[report.status]),
        );
      }
      return outcomes;
    }, TX_OPTIONS);
  }

  /** Claims queued outbound messages for sending (SKIP LOCKED: any number of instances share the queue). */
  async claimQueued(limit: number, leaseUntil: Date): Promise<QueuedMessage[]> {
    const { rows } = await this.pool.query<QueuedMessage>(
      `WITH claimed AS (
         UPDATE order_messages m SET status = 'sending', lease_until = $2
         FROM (SELECT id FROM order_messages WHERE status = 'queued' ORDER BY at LIMIT $1 FOR UPDATE SKIP LOCKED) q
         WHERE m.id = q.id
         RETURNING m.id, m.order_id, m.merchant_id, m.mode, m.kind, m.text, m.payload
       )
       SELECT c.id::text AS id, c.order_id::text AS "orderId", c.merchant_id::text AS "merchantId", c.mode::text AS mode,
         c.kind::text AS kind, c.text, c.payload, o.customer_phone AS "customerPhone", o.language
       FROM claimed c JOIN orders o ON o.id = c.order_id`,
      [limit, leaseUntil],
    );
    return rows;
  }

  /**
   * The provider's answer for a message being sent: its id and `sent`, or `failed` with the reason. A list's other
   * rows (the same message offered for other orders) get the same outcome.
   */
  async recordSend(
    id: string,
    result: { providerMessageId: string } | { errorCode: number | null; failureReason: string },
    listId: string | null,
  ): Promise<void> {
    const sent = "providerMessageId" in result;
    await this.pool.query(
      `UPDATE order_messages SET lease_until = NULL,
         status = CASE WHEN status IN ('queued', 'sending') OR status IS NULL THEN $2 ELSE status END,
         provider_message_id = coalesce(provider_message_id, $3), error_code = $4, failure_reason = $5
       WHERE id = $1::uuid OR ($6::text IS NOT NULL AND kind = 'list' AND payload->>'listId' = $6 AND status IS NULL)`,
      [id, sent ? "sent" : "failed", sent ? result.providerMessageId : null, sent ? null : result.errorCode, sent ? null : result.failureReason, listId],
    );
  }

  /** Sends interrupted by a crash (lease passed) are failed, never sent twice. Returns how many. */
  async failExpiredSends(now: Date): Promise<number> {
    const { rowCount } = await this.pool.query(
      `UPDATE order_messages SET status = 'failed', lease_until = NULL, failure_reason = 'send interrupted'
       WHERE status = 'sending' AND lease_until < $1`,
      [now],
    );
    return rowCount ?? 0;
  }

  /** Marks the messages one inbound text on several orders was (the provider event), and returns whether first. */
  async claimProviderEvent(tx: Executor, event: ProviderEventKey, orderId: string, now: Date): Promise<boolean> {
    const claimed = await tx.$executeRawUnsafe(
      `INSERT INTO provider_events (provider, key, order_id, created_at) VALUES ($1, $2, $3::uuid, $4) ON CONFLICT DO NOTHING`,
      event.provider, event.key, orderId, now,
    );
    return claimed > 0;
  }

  /** Runs `work` in one transaction. */
  transaction<T>(work: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
    return this.prisma.$transaction(work, TX_OPTIONS);
  }

  /** Locks the order (visible to the scope) for a merchant reply; false when there is none. */
  async lockOrder(tx: Executor, orderId: string, scope: MerchantScope): Promise<boolean> {
    const rows = await tx.$queryRawUnsafe<{ id: string }[]>(
      `SELECT id::text AS id FROM orders WHERE id = $1::uuid AND merchant_id = $2::uuid AND mode = $3::"KeyMode"
         AND send_state <> 'sending' FOR UPDATE`,
      orderId, scope.merchantId, scope.mode,
    );
    return rows.length > 0;
  }

  /** One stored message as the conversation shows it. */
  async message(id: string): Promise<ConversationRow | null> {
    const { rows } = await this.pool.query<ConversationRow & { at_ts: Date }>(
      `SELECT id::text AS id, direction::text AS direction, sender::text AS sender, kind::text AS kind, text, at AS at_ts,
         status, NULL::int AS reminder FROM order_messages WHERE id = $1::uuid`,
      [id],
    );
    const row = rows[0];
    return row ? { ...row, at: row.at_ts.toISOString() } : null;
  }

  /** How many of the scope's visible orders need a reply (the console header). */
  async needsReplyCount(scope: MerchantScope): Promise<number> {
    const { rows } = await this.pool.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM order_conversations c
       WHERE c.merchant_id = $1::uuid AND c.mode = $2::"KeyMode" AND c.needs_reply`,
      [scope.merchantId, scope.mode],
    );
    return rows[0]?.count ?? 0;
  }
}
