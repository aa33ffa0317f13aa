import type pg from "pg";
import { Prisma, type PrismaClient } from "../../generated/prisma/client.ts";
import { newId } from "../ids.ts";
import { preparedStatement } from "../../db/prepared-statement.ts";
import { EMPTY_POLICY, type ConfirmationPolicy, type PlannedTask } from "../confirmation/confirmation-policy.ts";
import type { Decision, DeliveryStatus, OrderEventName, OrderState, StateChange } from "./order-state.ts";
import { decideDeliveryStatus } from "./order-state.ts";
import type { Actor, TimelineEntry, Via } from "./order-timeline.ts";
import type { CreateOrderInput, OrderFilter } from "./order.schemas.ts";
import { eventEnvelope, toOrderView, type OrderEventEnvelope, type OrderRecord, type OrderView } from "./order.view.ts";
import type { OrderCursor } from "./order-cursor.ts";
import { ORDER_VIEW_JSON } from "./order-sql.ts";
import { searchMatchesSql } from "./order-search.ts";
import { queueFallbackSms, queueFallbackSmsOn, type FallbackToQueue } from "../sms/sms-queue.ts";
import { listPageSql } from "./order-list.ts";
import { exceedsExportLimit, exportOrdersCsv } from "./order-export.ts";
import { boundedCount, boundedCountSql, countedByStatus, filterMatchesSql, maintainedCountSql, type TotalCount } from "./order-count.ts";
import type { MerchantScope } from "./merchant-scope.ts";

// Its own module, so the SQL modules above need not import this one (which imports them).
export type { MerchantScope } from "./merchant-scope.ts";

export interface StoredEvent {
  id: string;
  merchantId: string;
  /** The order's mode: live subscribers never see test events, and the reverse. */
  mode: MerchantScope["mode"];
  orderId: string;
  envelope: OrderEventEnvelope;
  /**
   * False when the event was stored already dispatched, no webhook endpoint wanting it (see MARK_ACCEPTED_SQL): the
   * webhook dispatcher has nothing to fan out for it. Absent: it may have (every other writer).
   */
  awaitsFanOut?: boolean;
  /**
   * False when the merchant has no store connection, so the write-back trigger wrote no intent for the event: the
   * store write-back worker has nothing new to claim. Absent: it may have.
   */
  storeWriteback?: boolean;
}

/** Identifies one provider callback (e.g. a WhatsApp status or inbound message) so it is applied at most once. */
export interface ProviderEventKey {
  provider: string;
  key: string;
}

/**
 * Written in the transaction of a transition once its provider event is claimed, whatever was decided (the
 * conversation's inbound message, SPEC §11). Returns the events it wrote, published after commit with the change's.
 */
export type WithinTransition = (
  tx: Prisma.TransactionClient,
  step: { now: Date; decision: Decision["kind"]; order: OrderView; merchantId: string; mode: MerchantScope["mode"] },
) => Promise<StoredEvent[]>;

export type TransitionResult =
  /** `smsQueued`: the change queued an SMS fallback (SPEC §12) for the SMS sender. */
  | { outcome: "applied"; order: OrderView; event: StoredEvent | null; also?: StoredEvent[]; smsQueued?: boolean }
  | { outcome: "unchanged"; order: OrderView; also?: StoredEvent[] }
  /** This provider event was already applied (or ignored) before: nothing was written. */
  | { outcome: "duplicate"; order: OrderView }
  | { outcome: "rejected"; order: OrderView; status: string; also?: StoredEvent[] }
  /** A reminder of this order is being sent right now: a change that ends `pending` waits for its result. */
  | { outcome: "reminder_in_flight" }
  | { outcome: "not_found" }
  /** The order's send has no recorded result yet: it does not exist for anyone else until then. */
  | { outcome: "sending" };

const withItems = { items: { orderBy: { position: "asc" } } } as const;

/**
 * Claims the order (and its items) in the `sending` state and reads the merchant's confirmation policy in
 * the same statement: the policy an order follows is the one stored when it was created.
 */
export const INSERT_SENDING_SQL = `
  WITH new_order AS (
    INSERT INTO orders (id, merchant_id, mode, external_order_id, customer_name, customer_phone, customer_address,
      subtotal, shipping_cost, total_cost, currency, note, language, status, send_state, created_at, updated_at,
      sms_fallback_codes)
    SELECT $1, $2, $3::"KeyMode", $4, $5, $6, $7, $8::numeric, $9::numeric, $10::numeric, $11, $12, $13,
      'pending', 'sending', $14, $14,
      -- The SMS fallback of the policy in force now stays the order's (SPEC §12).
      (SELECT p.sms_fallback_codes FROM confirmation_policies p WHERE p.merchant_id = $2 AND p.mode = $3::"KeyMode")
    -- A sending order is not counted: the counts and statistics triggers skip this statement (migrations
    -- 20261124230000, 20261125250000).
    FROM (SELECT set_config('ocs.order_counts', 'kept', true) AS counts, set_config('ocs.order_stats', 'kept', true) AS stats)
      AS flag WHERE flag.counts = 'kept' AND flag.stats = 'kept'
    RETURNING id
  ), new_items AS (
    INSERT INTO order_items (id, order_id, position, product_name, variant_name, quantity, unit_price, total_price)
    SELECT item.id, new_order.id, item.position, item.product_name, item.variant_name, item.quantity, item.unit_price,
      item.total_price
    FROM new_order, unnest($15::uuid[], $16::smallint[], $17::text[], $18::text[], $19::numeric[], $20::numeric[],
      $21::numeric[]) AS item(id, position, product_name, variant_name, quantity, unit_price, total_price)
  )
  SELECT p.reminders, p.expire_after, p.quiet_hours_start, p.quiet_hours_end, p.quiet_hours_time_zone, p.sms_fallback_codes
  FROM confirmation_policies p WHERE p.merchant_id = $2 AND p.mode = $3::"KeyMode"`;

/**
 * The send was accepted: the order becomes visible with `order.created`, its timeline's first steps and its
 * reminder/expiry schedule, all in one statement.
 *
 * When no enabled webhook endpoint of the merchant's mode wants `order.created` (a shop that reads its orders in the
 * console or over GraphQL only), the event is stored already dispatched: the webhook fan-out would find no endpoint
 * for it, after locking it and rewriting its row, about 100 µs of work per order for nothing (bench:rest POST with
 * the fan-out switched off). An endpoint receives the events written after it was saved; one saved while this
 * statement runs does not get this event (nor did it before, when the fan-out ran before the endpoint committed).
 */
export const MARK_ACCEPTED_SQL = `
  WITH accepted AS (
    UPDATE orders SET send_state = 'accepted', provider_message_id = $2, created_at = $3, updated_at = $3
    WHERE id = $1 AND send_state = 'sending'
    RETURNING id, merchant_id, mode
  ), inserted AS (
    INSERT INTO order_events (id, merchant_id, order_id, type, payload, created_at, dispatched_at)
    SELECT $4, accepted.merchant_id, accepted.id, 'order.created', $5::json, $3,
      CASE WHEN EXISTS (
        SELECT 1 FROM webhook_endpoints ep
        WHERE ep.merchant_id = accepted.merchant_id AND ep.mode = accepted.mode AND ep.enabled
          AND 'order.created' = ANY(ep.events)
      ) THEN NULL ELSE $3 END
    FROM accepted
    RETURNING id, dispatched_at IS NULL AS awaits_fan_out
  ), timeline AS (
    INSERT INTO order_timeline (order_id, at, kind, source, detail)
    SELECT accepted.id, $3, step.kind, step.source, step.detail
    FROM accepted, unnest($6::text[], $7::text[], $8::jsonb[]) WITH ORDINALITY AS step(kind, source, detail, n)
    ORDER BY step.n
  ), tasks AS (
    INSERT INTO order_tasks (id, order_id, merchant_id, mode, kind, position, state, due_at, created_at)
    SELECT task.id, accepted.id, accepted.merchant_id, accepted.mode, task.kind::"OrderTaskKind", task.position,
      'scheduled', task.due_at, $3
    FROM accepted, unnest($9::uuid[], $10::text[], $11::smallint[], $12::timestamptz[]) AS task(id, kind, position, due_at)
  ), counted AS (
    -- The order is now counted as pending, here rather than by the counts trigger, which then skips this statement
    -- (migration 20261124230000): the count and the flag come from the same row, so it is both or neither.
    INSERT INTO order_counts AS c (merchant_id, mode, status, slot, count)
    SELECT accepted.merchant_id, accepted.mode, 'pending', pg_backend_pid() % 256, 1
    FROM accepted, (SELECT set_config('ocs.order_counts', 'kept', true) AS counts) AS flag WHERE flag.counts = 'kept'
    ON CONFLICT (merchant_id, mode, status, slot) DO UPDATE SET count = c.count + 1
  ), stats AS (
    -- Likewise one more order created in its three statistics buckets (15 minutes, hour, day; migration 20261125250000):
    -- a pending order moves no other figure.
    INSERT INTO order_stat_buckets AS b (merchant_id, mode, span, start, slot, created)
    SELECT accepted.merchant_id, accepted.mode, level.span,
      date_bin(level.width, $3::timestamptz, timestamptz '1970-01-01 00:00:00+00'), pg_backend_pid() % 256, 1
    FROM accepted, (VALUES (15::smallint, interval '15 minutes'), (60::smallint, interval '1 hour'),
      (1440::smallint, interval '1 day')) AS level(span, width),
      (SELECT set_config('ocs.order_stats', 'kept', true) AS stats) AS flag
    WHERE flag.stats = 'kept'
    ORDER BY level.span
    ON CONFLICT (merchant_id, mode, span, start, slot) DO UPDATE SET created = b.created + 1
  )
  SELECT accepted.merchant_id, accepted.mode, inserted.awaits_fan_out FROM accepted, inserted`;

/** A send that failed before the provider took it: stored failed (no event), with its timeline. */
const MARK_SEND_FAILED_SQL = `
  WITH failed AS (
    UPDATE orders SET send_state = 'rejected', status = 'failed', delivery_status = 'failed', error_code = $2,
      failure_reason = $3, created_at = $4, updated_at = $4
    WHERE id = $1 AND send_state = 'sending'
    RETURNING id
  )
  INSERT INTO order_timeline (order_id, at, kind, source, detail)
  SELECT failed.id, $4, step.kind, step.source, step.detail
  FROM failed, unnest($5::text[], $6::text[], $7::jsonb[]) WITH ORDINALITY AS step(kind, source, detail, n)
  ORDER BY step.n`;

/** Sends interrupted by a crash: failed like a send that never reached the provider, with a timeline step. */
const FAIL_ABANDONED_SQL = `
  WITH failed AS (
    UPDATE orders SET send_state = 'rejected', status = 'failed', delivery_status = 'failed', error_code = NULL,
      failure_reason = 'Unknown failure', created_at = $2, updated_at = $2
    WHERE send_state = 'sending' AND created_at < $1
    RETURNING id
  ), timeline AS (
    INSERT INTO order_timeline (order_id, at, kind, source, detail)
    SELECT failed.id, $2, 'failed', 'scheduler', '{"reason":"send interrupted"}'::jsonb FROM failed
  )
  SELECT count(*)::int AS count FROM failed`;

const TIMELINE_SQL = `
  SELECT t.kind, t.source, t.detail, to_char(t.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
  FROM order_timeline t
  WHERE t.order_id = $1::uuid
  ORDER BY t.at, t.id
  LIMIT $2`;

const FIND_VISIBLE_SQL = `
  SELECT ${ORDER_VIEW_JSON} AS "order"
  FROM orders o
  WHERE o.id = $1::uuid AND o.merchant_id = $2::uuid AND o.mode = $3::"KeyMode" AND o.send_state <> 'sending'`;

/**
 * A single-order transition's first statement, inside its transaction: the order's row lock, its state and the order
 * as the public JSON (what the change's event carries), in one round trip. FOR UPDATE waits for a change in progress
 * (a send result being recorded, another tap, a reminder's send decision) and then reads its result. $2 null: no scope
 * (provider callbacks, the page, the scheduler).
 */
const LOCK_FOR_TRANSITION_SQL = `
  SELECT o.send_state, o.status, o.customer_action, o.delivery_status, o.mode, o.merchant_id, o.sms_fallback_codes,
    ${ORDER_VIEW_JSON} AS "order"
  FROM orders o
  WHERE o.id = $1::uuid AND ($2::uuid IS NULL OR (o.merchant_id = $2::uuid AND o.mode = $3::"KeyMode"))
  FOR UPDATE OF o`;

/**
 * A decided change, written in one statement once the row lock is held (LOCK_FOR_TRANSITION_SQL): the order's new
 * state, its outbox event, its timeline step, the end of what was scheduled for it when it leaves `pending`, and the
 * provider event's key, all or nothing.
 *
 * - `in_flight` ($15, only for a change that ends `pending`): a reminder of the order is at the provider. A statement
 *   of its own after the lock, so its snapshot includes a send decided (under the same lock) before it; then nothing
 *   is written and the caller waits for the send's result.
 * - `claim` ($12, $13: a provider callback's key): a copy already applied makes the statement write nothing else.
 * - The event is stored already dispatched when no enabled endpoint of the merchant's mode wants it (as
 *   MARK_ACCEPTED_SQL does for `order.created`); `store_writeback`: whether the merchant has a store connection, the
 *   only case in which the write-back trigger on order_events can have written an intent.
 * - A change that ends `pending` keeps `order_counts` and the statistics buckets itself (`ends_pending` and the three
 *   CTEs after it; the counts and statistics triggers then skip this statement, ≈420 µs of PostgreSQL per answer);
 *   any other change (a delivery report) is counted by those triggers as before.
 * The other triggers fire as for any other writer (the store write-back intent on `order_events`); the step is written
 * by the same statement as the order's row, which the statistics' cancel-step trigger recognises (migration
 * 20261125250000). A statement that changes nothing may still have set the skip flags: its transaction is rolled back.
 */
const APPLY_TRANSITION_SQL = `
  WITH in_flight AS (
    SELECT $15::boolean AND EXISTS (
      SELECT 1 FROM order_tasks WHERE order_id = $1::uuid AND state = 'sending' AND lease_until > now()) AS busy
  ), claim AS (
    INSERT INTO provider_events (provider, key, order_id, created_at)
    SELECT $12::text, $13::text, $1::uuid, $2::timestamptz FROM in_flight WHERE NOT in_flight.busy AND $12::text IS NOT NULL
    ON CONFLICT DO NOTHING
    RETURNING 1
  ), go AS (
    SELECT 1 FROM in_flight WHERE NOT in_flight.busy AND ($12::text IS NULL OR EXISTS (SELECT 1 FROM claim))
  ), changed AS (
    UPDATE orders o SET
      status = coalesce($3::text::"OrderStatus", o.status),
      customer_action = coalesce($4::text::"CustomerAction", o.customer_action),
      delivery_status = coalesce($5::text::"DeliveryStatus", o.delivery_status),
      error_code = CASE WHEN $6::boolean THEN $7::int ELSE o.error_code END,
      failure_reason = CASE WHEN $6::boolean THEN $8::text ELSE o.failure_reason END,
      updated_at = $2::timestamptz
    WHERE o.id = $1::uuid AND EXISTS (SELECT 1 FROM go)
    RETURNING o.id, o.merchant_id, o.mode, o.status, o.error_code, o.created_at, o.updated_at
  ), ends_pending AS (
    -- The order leaves pending ($18: its status under the lock): this statement keeps the counts and the statistics
    -- itself and the two triggers skip it, as the create path's statements do (migrations 20261124230000,
    -- 20261125250000); the flags are set only when the figures below are written. Any other change (a delivery
    -- report) is left to the triggers.
    SELECT c.*, (c.status = 'confirmed' OR (c.status = 'canceled' AND order_stats_is_answer_step($16::text, $17::jsonb)))
      AS answered
    FROM changed c
    WHERE $18::text = 'pending' AND c.status <> 'pending'
  ), counted AS (
    INSERT INTO order_counts AS oc (merchant_id, mode, status, slot, count)
    SELECT e.merchant_id, e.mode, d.status, pg_backend_pid() % 256, d.delta
    FROM ends_pending e, (VALUES ('pending'::"OrderStatus", -1), ($3::text::"OrderStatus", 1)) AS d(status, delta),
      (SELECT set_config('ocs.order_counts', 'kept', true) AS counts WHERE $18::text = 'pending' AND $3::text IS NOT NULL)
        AS flag
    WHERE flag.counts = 'kept'
    ORDER BY d.status
    ON CONFLICT (merchant_id, mode, status, slot) DO UPDATE SET count = oc.count + EXCLUDED.count
  ), stats AS (
    -- The order's three buckets (of its creation time): one more confirmed, canceled, failed or expired, and an answer
    -- (a confirmation, or the customer's cancel: its canceled step is this statement's, the order's first) with its
    -- time in the histogram, as order_stats_apply() computes them.
    INSERT INTO order_stat_buckets AS b (merchant_id, mode, span, start, slot, created, confirmed, canceled, failed,
      expired, answered, answer_histogram)
    SELECT e.merchant_id, e.mode, level.span, date_bin(level.width, e.created_at, timestamptz '1970-01-01 00:00:00+00'),
      pg_backend_pid() % 256, 0, (e.status = 'confirmed')::int, (e.status = 'canceled')::int, (e.status = 'failed')::int,
      (e.status = 'expired')::int, e.answered::int,
      CASE WHEN e.answered THEN order_stats_histogram(e.created_at, e.updated_at) ELSE 0 END
    FROM ends_pending e, (VALUES (15::smallint, interval '15 minutes'), (60::smallint, interval '1 hour'),
      (1440::smallint, interval '1 day')) AS level(span, width),
      (SELECT set_config('ocs.order_stats', 'kept', true) AS stats WHERE $18::text = 'pending' AND $3::text IS NOT NULL)
        AS flag
    WHERE flag.stats = 'kept'
    ORDER BY level.span
    ON CONFLICT (merchant_id, mode, span, start, slot) DO UPDATE SET confirmed = b.confirmed + EXCLUDED.confirmed,
      canceled = b.canceled + EXCLUDED.canceled, failed = b.failed + EXCLUDED.failed,
      expired = b.expired + EXCLUDED.expired, answered = b.answered + EXCLUDED.answered,
      answer_histogram = b.answer_histogram + EXCLUDED.answer_histogram
  ), stat_failures AS (
    INSERT INTO order_stat_failures AS f (merchant_id, mode, span, start, error_code, slot, count)
    SELECT e.merchant_id, e.mode, level.span, date_bin(level.width, e.created_at, timestamptz '1970-01-01 00:00:00+00'),
      coalesce(e.error_code, -1), pg_backend_pid() % 256, 1
    FROM ends_pending e, (VALUES (15::smallint, interval '15 minutes'), (60::smallint, interval '1 hour'),
      (1440::smallint, interval '1 day')) AS level(span, width)
    WHERE e.status = 'failed'
    ORDER BY level.span
    ON CONFLICT (merchant_id, mode, span, start, error_code, slot) DO UPDATE SET count = f.count + EXCLUDED.count
  ), event AS (
    INSERT INTO order_events (id, merchant_id, order_id, type, payload, created_at, dispatched_at)
    SELECT $9::uuid, c.merchant_id, c.id, $10::text, $11::json, $2::timestamptz,
      CASE WHEN EXISTS (
        SELECT 1 FROM webhook_endpoints ep
        WHERE ep.merchant_id = c.merchant_id AND ep.mode = c.mode AND ep.enabled AND $10::text = ANY(ep.events)
      ) THEN NULL ELSE $2::timestamptz END
    FROM changed c WHERE $10::text IS NOT NULL
    RETURNING dispatched_at IS NULL AS awaits_fan_out
  ), timeline AS (
    INSERT INTO order_timeline (order_id, at, kind, source, detail)
    SELECT c.id, $2::timestamptz, $14::text, $16::text, $17::jsonb FROM changed c
  ), ended AS (
    UPDATE order_tasks SET state = 'canceled', lease_until = NULL, finished_at = $2::timestamptz
    WHERE order_id IN (SELECT c.id FROM changed c WHERE $3::text IS NOT NULL) AND state IN ('scheduled', 'claimed')
  )
  SELECT in_flight.busy, EXISTS (SELECT 1 FROM changed) AS applied, (SELECT awaits_fan_out FROM event) AS awaits_fan_out,
    EXISTS (SELECT 1 FROM store_connections sc WHERE sc.merchant_id = (SELECT c.merchant_id FROM changed c)) AS store_writeback
  FROM in_flight`;

/** A transition that writes no change still records its provider event's key (a refused or no-op tap included). */
const CLAIM_PROVIDER_EVENT_SQL = `
  INSERT INTO provider_events (provider, key, order_id, created_at) VALUES ($1, $2, $3::uuid, $4)
  ON CONFLICT DO NOTHING`;

// The create path's two statements and the read by id run on every request: prepared once per connection.
const insertSending = preparedStatement("orders_insert_sending", INSERT_SENDING_SQL);
const markAccepted = preparedStatement("orders_mark_accepted", MARK_ACCEPTED_SQL);
const findVisible = preparedStatement("orders_find_visible", FIND_VISIBLE_SQL);
// Every state change of one order (a tap, the page's answer, a cancel, a delivery report): two statements.
const lockForTransition = preparedStatement("orders_lock_for_transition", LOCK_FOR_TRANSITION_SQL);
const applyTransition = preparedStatement("orders_apply_transition", APPLY_TRANSITION_SQL);

// Interactive transactions queue behind each other on the embedded engine; give waiters room.
const TX_OPTIONS = { maxWait: 15_000, timeout: 15_000 } as const;

/** Only this module (and its siblings' repositories) touch Prisma for orders. */
export class OrderRepository {
  constructor(
    private readonly prisma: PrismaClient,
    /** Plain `pg` for the hot read; every write goes through Prisma. */
    private readonly pool: pg.Pool,
    /** Run the hottest statements as named prepared statements (Database.prepareStatements). */
    private readonly prepare = false,
    /** The modes in which an SMS can go out (test: the simulator; live: with SMS_PROVIDER): only there the fallback applies. */
    private readonly smsModes: ReadonlySet<MerchantScope["mode"]> = new Set(["test"]),
  ) {}

  /** The SMS fallback codes an order follows, when an SMS can go out in its mode (SPEC §12). */
  private fallbackCodes(mode: MerchantScope["mode"], codes: readonly number[] | null): readonly number[] | null {
    return codes?.length && this.smsModes.has(mode) ? codes : null;
  }

  /**
   * Stores a new order in the `sending` state, which claims its externalOrderId before any message is
   * sent, and returns it as it will be shown. One statement (order and items together, atomically): the
   * create path is the API's busiest write. Returns the existing order's id when the externalOrderId is taken.
   */
  async insertSending(
    scope: MerchantScope,
    input: CreateOrderInput,
    language: string,
    now: Date,
  ): Promise<{ inserted: OrderView; policy: ConfirmationPolicy } | { duplicateOf: string }> {
    const order = draftView(input, now);
    const items = order.items;
    try {
      const { rows } = await this.pool.query<PolicyRow>(insertSending([
        order.id, scope.merchantId, scope.mode, order.externalOrderId, order.customerName, order.customerPhone,
        order.customerAddress, String(order.subtotal), String(order.shippingCost), String(order.totalCost),
        order.currency, input.note || null, language, now,
        items.map((item) => item.id), items.map((_, position) => position), items.map((item) => item.productName),
        items.map((item) => item.variantName), items.map((item) => String(item.quantity)),
        items.map((item) => String(item.unitPrice)), items.map((item) => String(item.totalPrice)),
      ], this.prepare));
      return { inserted: order, policy: rows[0] ? policyOfRow(rows[0]) : EMPTY_POLICY };
    } catch (error) {
      if ((error as { code?: string; constraint?: string }).code === "23505") {
        const existing = await this.findIdByExternalId(scope, input.externalOrderId);
        if (existing) return { duplicateOf: existing };
      }
      throw error;
    }
  }

  /** Forgets provider events older than `before`: Meta stops retrying a callback after 7 days. */
  async purgeProviderEvents(before: Date): Promise<number> {
    const { count } = await this.prisma.providerEvent.deleteMany({ where: { createdAt: { lt: before } } });
    return count;
  }

  /** The order a provider message id (WhatsApp: the wamid returned by the send) belongs to. */
  async findIdByProviderMessageId(providerMessageId: string): Promise<string | null> {
    const { rows } = await this.pool.query<{ id: string }>(
      "SELECT id FROM orders WHERE provider_message_id = $1 AND send_state <> 'sending'",
      [providerMessageId],
    );
    return rows[0]?.id ?? null;
  }

  async findIdByExternalId(scope: MerchantScope, externalOrderId: string): Promise<string | null> {
    const row = await this.prisma.order.findUnique({
      // Only the scope's own fields: a Caller also carries keyId, which Prisma rejects as an unknown argument.
      where: { merchantId_mode_externalOrderId: { merchantId: scope.merchantId, mode: scope.mode, externalOrderId } },
      select: { id: true },
    });
    return row?.id ?? null;
  }

  /**
   * The send was accepted: the order becomes visible and `order.created` is written with it, in one
   * statement. Visibility is its creation time, so it never appears behind a list cursor already handed out.
   * Null when the order is no longer being sent (the abandoned-send sweep got there first).
   */
  async markAccepted(
    draft: OrderView,
    providerMessageId: string,
    now: Date,
    schedule: PlannedTask[],
    via: Via,
  ): Promise<{ order: OrderView; event: StoredEvent } | null> {
    // Nothing can change a `sending` order but this call, so its state is the draft's.
    const order: OrderView = { ...draft, createdAt: now.toISOString(), updatedAt: now.toISOString() };
    const envelope = eventEnvelope("order.created", now, order);
    const eventId = newId();
    const steps = timelineColumns([
      { kind: "created", source: "merchant", detail: { via } },
      { kind: "message_sent", source: "provider", detail: { providerMessageId } },
    ]);
    const { rows } = await this.pool.query<{ merchant_id: string; mode: MerchantScope["mode"]; awaits_fan_out: boolean }>(markAccepted([
      order.id, providerMessageId, now, eventId, JSON.stringify(envelope), ...steps,
      schedule.map(() => newId()), schedule.map((task) => task.kind), schedule.map((task) => task.position),
      schedule.map((task) => task.dueAt),
    ], this.prepare));
    if (rows.length === 0) return null;
    const { merchant_id: merchantId, mode, awaits_fan_out: awaitsFanOut } = rows[0];
    return { order, event: { id: eventId, merchantId, mode, orderId: order.id, envelope, awaitsFanOut } };
  }

  /**
   * The send failed before the provider took it: stored failed, and no event (seed rule 1). Returns the
   * order as stored, whoever finished it.
   */
  async markSendFailed(
    orderId: string,
    failure: { errorCode: number | null; failureReason: string },
    now: Date,
    via: Via,
  ): Promise<OrderView> {
    const steps = timelineColumns([
      { kind: "created", source: "merchant", detail: { via } },
      { kind: "failed", source: "provider", detail: { errorCode: failure.errorCode, failureReason: failure.failureReason } },
    ]);
    await this.pool.query(MARK_SEND_FAILED_SQL, [orderId, failure.errorCode, failure.failureReason, now, ...steps]);
    return toOrderView(await this.prisma.order.findUniqueOrThrow({ where: { id: orderId }, include: withItems }));
  }

  /**
   * Orders whose send never got an answer recorded (the process died mid-send) are failed, like a send
   * that never reached the provider: stored failed, no event. Returns how many.
   */
  async failAbandonedSends(startedBefore: Date, now: Date): Promise<number> {
    const { rows } = await this.pool.query<{ count: number }>(FAIL_ABANDONED_SQL, [startedBefore, now]);
    return rows[0]?.count ?? 0;
  }

  /** The recorded steps of an order, oldest first (at most `limit`); the caller has checked its visibility. */
  async timeline(orderId: string, limit: number): Promise<TimelineEntry[]> {
    const { rows } = await this.pool.query<TimelineEntry>(TIMELINE_SQL, [orderId, limit]);
    return rows.map(({ at, kind, source, detail }) => ({ at, kind, source, detail }));
  }

  /**
   * The hot read (GET /orders/{id}): one statement returning the order with its items as the public JSON,
   * on plain `pg`, instead of Prisma's two queries and query compilation (see bench/rest.ts).
   */
  async findVisible(scope: MerchantScope, id: string): Promise<OrderView | null> {
    const { rows } = await this.pool.query<{ order: OrderView }>(findVisible([id, scope.merchantId, scope.mode], this.prepare));
    return rows[0]?.order ?? null;
  }

  /** The visible orders among `ids` that belong to the scope, keyed by id (one query). */
  async findVisibleMany(scope: MerchantScope, ids: string[]): Promise<Map<string, OrderView>> {
    const records = await this.prisma.order.findMany({
      where: { id: { in: ids }, merchantId: scope.merchantId, mode: scope.mode, sendState: { not: "sending" } },
      include: withItems,
    });
    return new Map(records.map((record) => [record.id, toOrderView(record)]));
  }

  /**
   * One keyset page (newest first) of the scope's visible orders matching `filter` (a prefix search included), as
   * the public JSON: one statement on plain `pg` (order-list.ts), like findVisible.
   */
  async list(scope: MerchantScope, filter: OrderFilter, limit: number, after: OrderCursor | null): Promise<OrderView[]> {
    const sql = listPageSql(scope, filter, limit, after);
    const { rows } = await this.pool.query<{ order: OrderView }>(sql.text, sql.values);
    return rows.map((row) => row.order);
  }

  /** The CSV export of the list (order-export.ts): text chunks read in keyset batches as the consumer pulls them. */
  exportCsv(scope: MerchantScope, filter: OrderFilter, options?: { maxRows?: number; batchRows?: number }): AsyncGenerator<string> {
    return exportOrdersCsv(this.pool, scope, filter, options);
  }

  /** Whether more orders match than one export holds. */
  exportExceedsLimit(scope: MerchantScope, filter: OrderFilter, maxRows?: number): Promise<boolean> {
    return exceedsExportLimit(this.pool, scope, filter, maxRows);
  }

  /** How many visible orders of the scope match `filter` (all pages; GraphQL's totalCount): see order-count.ts. */
  async count(scope: MerchantScope, filter: OrderFilter): Promise<TotalCount> {
    if (countedByStatus(filter)) {
      const [row] = await this.prisma.$queryRaw<{ count: number }[]>(maintainedCountSql(scope, filter.statuses));
      return { count: row?.count ?? 0, precision: "exact" };
    }
    const matching = filter.search ? searchMatchesSql(scope, { ...filter, search: filter.search }) : filterMatchesSql(scope, filter);
    const [row] = await this.prisma.$queryRaw<{ count: number }[]>(boundedCountSql(matching));
    return boundedCount(row?.count ?? 0);
  }

  /**
   * Runs `decide` against the order's current state while holding its row lock, then writes the change
   * and its outbox event in the same transaction: concurrent transitions serialise, exactly one wins.
   */
  async transition(
    orderId: string,
    scope: MerchantScope | null,
    decide: (state: OrderState) => Decision,
    clock: () => Date,
    actor: Actor,
    options: { providerEvent?: ProviderEventKey | null; waitForReminder?: boolean; within?: WithinTransition } = {},
  ): Promise<TransitionResult> {
    // `within` writes through Prisma in the same transaction (the conversation's messages): Prisma's own transaction.
    if (options.within) return this.transitionWithin(orderId, scope, decide, clock, actor, options);
    const { providerEvent = null, waitForReminder = true } = options;
    const client = await this.pool.connect();
    let open = false;
    try {
      await client.query("BEGIN");
      open = true;
      const result = await this.transitionOn(client, orderId, scope, decide, clock, actor, providerEvent, waitForReminder);
      await client.query(result.outcome === "applied" || result.outcome === "rejected" || result.outcome === "unchanged" ? "COMMIT" : "ROLLBACK");
      open = false;
      return result;
    } catch (error) {
      if (open) {
        await client.query("ROLLBACK").then(
          () => (open = false),
          () => undefined,
        );
      }
      throw error;
    } finally {
      // A connection whose transaction could not be ended is not handed out again.
      client.release(open ? true : undefined);
    }
  }

  /**
   * The transition on plain `pg`, in the caller's transaction: the row lock with the state and the order (one
   * statement), the decision of the state machine (`decide`, the one source of the rules), then the whole change in
   * one statement (APPLY_TRANSITION_SQL). Two round trips besides BEGIN and COMMIT, where Prisma's interactive
   * transaction took ten (and its query compilation on each): bench:confirmation-page.
   */
  private async transitionOn(
    client: pg.PoolClient,
    orderId: string,
    scope: MerchantScope | null,
    decide: (state: OrderState) => Decision,
    clock: () => Date,
    actor: Actor,
    providerEvent: ProviderEventKey | null,
    waitForReminder: boolean,
  ): Promise<TransitionResult> {
    const { rows } = await client.query<LockedForTransition>(
      lockForTransition([orderId, scope?.merchantId ?? null, scope?.mode ?? null], this.prepare),
    );
    const row = rows[0];
    if (!row) return { outcome: "not_found" };
    if (row.send_state === "sending") return { outcome: "sending" };
    const current = row.order;
    const decision = decide({ ...lockedState(row), smsFallbackCodes: this.fallbackCodes(row.mode, row.sms_fallback_codes) });
    // Read once the lock is held: the change's time is never before that of an earlier step of the order.
    const now = clock();
    if (decision.kind !== "apply") {
      if (providerEvent) {
        const claimed = await client.query(CLAIM_PROVIDER_EVENT_SQL, [providerEvent.provider, providerEvent.key, orderId, now]);
        if (claimed.rowCount === 0) return { outcome: "duplicate", order: current };
      }
      return decision.kind === "unchanged"
        ? { outcome: "unchanged", order: current, also: [] }
        : { outcome: "rejected", order: current, status: decision.status, also: [] };
    }
    const change = decision.change;
    // The order as it is once changed (what the event carries): the locked row's JSON with the change applied.
    const order: OrderView = {
      ...current,
      ...stateOf(change),
      ...(change.failure ? { errorCode: change.failure.errorCode, failureReason: change.failure.failureReason } : {}),
      updatedAt: now.toISOString(),
    };
    const envelope = decision.event ? eventEnvelope(decision.event, now, order) : null;
    const eventId = envelope ? newId() : null;
    const detail = { ...actor.detail, ...(change.failure ?? decision.smsFallback ?? {}) };
    const { rows: [applied] } = await client.query<{ busy: boolean; applied: boolean; awaits_fan_out: boolean | null; store_writeback: boolean }>(
      applyTransition([
        orderId, now, change.status ?? null, change.customerAction ?? null, change.deliveryStatus ?? null,
        Boolean(change.failure), change.failure?.errorCode ?? null, change.failure?.failureReason ?? null,
        eventId, decision.event, envelope ? JSON.stringify(envelope) : null,
        providerEvent?.provider ?? null, providerEvent?.key ?? null, decision.step,
        Boolean(change.status) && waitForReminder, actor.source, Object.keys(detail).length ? JSON.stringify(detail) : null,
        row.status,
      ], this.prepare),
    );
    if (applied.busy) return { outcome: "reminder_in_flight" };
    if (!applied.applied) return { outcome: "duplicate", order: current };
    const smsQueued = decision.smsFallback ? (await queueFallbackSmsOn(client, [{ orderId, ...decision.smsFallback }], now)) > 0 : false;
    const event: StoredEvent | null = envelope
      ? {
          id: eventId!,
          merchantId: row.merchant_id,
          mode: row.mode,
          orderId,
          envelope,
          awaitsFanOut: applied.awaits_fan_out !== false,
          storeWriteback: applied.store_writeback,
        }
      : null;
    return { outcome: "applied", order, event, also: [], smsQueued };
  }

  /** The transition in Prisma's interactive transaction, for a change that writes more through Prisma (`within`). */
  private async transitionWithin(
    orderId: string,
    scope: MerchantScope | null,
    decide: (state: OrderState) => Decision,
    clock: () => Date,
    actor: Actor,
    options: { providerEvent?: ProviderEventKey | null; waitForReminder?: boolean; within?: WithinTransition } = {},
  ): Promise<TransitionResult> {
    const { providerEvent = null, waitForReminder = true, within } = options;
    return this.prisma.$transaction(async (tx) => {
      // No filter on send_state here: FOR UPDATE then waits for a send result being recorded and sees it,
      // so "still sending" is decided atomically with the lock. The same holds for a reminder being sent.
      const locked = scope
        ? await tx.$queryRaw<{ send_state: string }[]>`
            SELECT send_state FROM orders WHERE id = ${orderId}::uuid AND merchant_id = ${scope.merchantId}::uuid
              AND mode = ${scope.mode}::"KeyMode" FOR UPDATE`
        : await tx.$queryRaw<{ send_state: string }[]>`
            SELECT send_state FROM orders WHERE id = ${orderId}::uuid FOR UPDATE`;
      if (locked.length === 0) return { outcome: "not_found" } as const;
      if (locked[0].send_state === "sending") return { outcome: "sending" } as const;
      const current = await tx.order.findUniqueOrThrow({ where: { id: orderId }, include: withItems });
      const decision = decide({ ...current, smsFallbackCodes: this.fallbackCodes(current.mode, current.smsFallbackCodes) });
      // A reminder decided before this change is on its way: a change that ends `pending` (a tap, a cancel,
      // a failure, the expiry) is applied once its result is recorded, so no reminder follows it. Read after
      // the lock is held (a statement of its own, so its snapshot includes a decision committed meanwhile).
      if (decision.kind === "apply" && decision.change.status && waitForReminder) {
        const [{ in_flight }] = await tx.$queryRaw<{ in_flight: boolean }[]>`
          SELECT EXISTS (SELECT 1 FROM order_tasks WHERE order_id = ${orderId}::uuid AND state = 'sending'
            AND lease_until > now()) AS in_flight`;
        if (in_flight) return { outcome: "reminder_in_flight" } as const;
      }
      // Read once the lock is held and every earlier step of the order is committed: the change's time is
      // never before theirs (the timeline, the event's timestamp and updatedAt agree with the commit order).
      const now = clock();
      // Recorded with whatever this transaction decides (a refused or no-op event included); a concurrent
      // copy of the same event waits on the key, then finds it taken.
      if (providerEvent) {
        const claimed = await tx.$executeRaw`
          INSERT INTO provider_events (provider, key, order_id, created_at)
          VALUES (${providerEvent.provider}, ${providerEvent.key}, ${orderId}::uuid, ${now})
          ON CONFLICT DO NOTHING`;
        if (claimed === 0) return { outcome: "duplicate", order: toOrderView(current) } as const;
      }
      const alongside = (order: OrderView) =>
        within ? within(tx, { now, decision: decision.kind, order, merchantId: current.merchantId, mode: current.mode }) : Promise.resolve([]);
      if (decision.kind === "unchanged") {
        const order = toOrderView(current);
        return { outcome: "unchanged", order, also: await alongside(order) } as const;
      }
      if (decision.kind === "rejected") {
        const order = toOrderView(current);
        return { outcome: "rejected", order, status: decision.status, also: await alongside(order) } as const;
      }
      const record = await tx.order.update({
        where: { id: orderId },
        data: { ...changeData(decision.change), updatedAt: now },
        include: withItems,
      });
      const order = toOrderView(record);
      const event = decision.event ? await insertEvent(tx, record, decision.event, now, order) : null;
      const detail = { ...actor.detail, ...(decision.change.failure ?? decision.smsFallback ?? {}) };
      const smsQueued = decision.smsFallback ? (await queueFallbackSms(tx, [{ orderId, ...decision.smsFallback }], now)) > 0 : false;
      await tx.$executeRaw`
        INSERT INTO order_timeline (order_id, at, kind, source, detail)
        VALUES (${orderId}::uuid, ${now}, ${decision.step}, ${actor.source},
          ${Object.keys(detail).length ? JSON.stringify(detail) : null}::jsonb)`;
      // The order left `pending`: what was still scheduled for it (reminders, expiry) will never be due.
      if (decision.change.status) {
        await tx.$executeRaw`
          UPDATE order_tasks SET state = 'canceled', lease_until = NULL, finished_at = ${now}
          WHERE order_id = ${orderId}::uuid AND state IN ('scheduled', 'claimed')`;
      }
      return { outcome: "applied", order, event, also: await alongside(order), smsQueued } as const;
    }, TX_OPTIONS);
  }

  /** The orders of many provider message ids at once (a callback batch names thousands): one query. */
  async findIdsByProviderMessageIds(providerMessageIds: string[]): Promise<Map<string, string>> {
    if (providerMessageIds.length === 0) return new Map();
    const { rows } = await this.pool.query<{ id: string; provider_message_id: string }>(
      "SELECT id, provider_message_id FROM orders WHERE provider_message_id = ANY($1::text[]) AND send_state <> 'sending'",
      [[...new Set(providerMessageIds)]],
    );
    return new Map(rows.map((row) => [row.provider_message_id, row.id]));
  }

  /**
   * Many delivery reports in one transaction with set-based statements (a Meta notification may carry
   * thousands): the orders are locked together, the provider event keys claimed in one insert, each order's
   * reports folded through `decideDeliveryStatus` in their order, the changed orders updated in one statement
   * and their events written in one insert. The outcome of each report is what `transition()` would have
   * answered for it, applied one after the other.
   */
  async applyDeliveryReports(
    reports: readonly DeliveryReport[],
    now: Date,
  ): Promise<{ outcomes: DeliveryReportOutcome[]; events: StoredEvent[]; smsQueued: number }> {
    if (reports.length === 0) return { outcomes: [], events: [], smsQueued: 0 };
    return this.prisma.$transaction(async (tx) => {
      const orderIds = [...new Set(reports.map((report) => report.orderId))].sort();
      const locked = await tx.$queryRaw<LockedOrder[]>`
        SELECT id::text AS id, send_state::text AS send_state, status::text AS status,
          customer_action::text AS customer_action, delivery_status::text AS delivery_status, mode::text AS mode,
          sms_fallback_codes
        FROM orders WHERE id = ANY(${orderIds}::uuid[]) ORDER BY id FOR UPDATE`;
      const states = new Map(locked.map((row) => [row.id, row]));
      // A statement of its own, after the locks (see transition()): a failure report must not end `pending` while
      // a reminder of the order is at the provider; it is answered "sending" (unclaimed), so Meta delivers it again.
      const busy = new Set(
        (
          await tx.$queryRaw<{ order_id: string }[]>`
            SELECT DISTINCT order_id::text AS order_id FROM order_tasks
            WHERE order_id = ANY(${orderIds}::uuid[]) AND state = 'sending' AND lease_until > now()`
        ).map((row) => row.order_id),
      );

      const outcomes: DeliveryReportOutcome[] = reports.map((report) => {
        const row = states.get(report.orderId);
        if (!row) return "not_found";
        const endsPending = report.status === "failed" && row.status === "pending";
        return row.send_state === "sending" || (endsPending && busy.has(report.orderId)) ? "sending" : "duplicate";
      });
      // The first copy of a key in the batch claims it; later copies are duplicates, as they would be in turn.
      const seen = new Set<string>();
      const claimable: number[] = [];
      reports.forEach((report, index) => {
        const id = `${report.providerEvent.provider}\u0000${report.providerEvent.key}`;
        if (outcomes[index] !== "duplicate" || seen.has(id)) return;
        seen.add(id);
        claimable.push(index);
      });
      const claimedRows = claimable.length
        ? await tx.$queryRaw<{ provider: string; key: string }[]>`
            INSERT INTO provider_events (provider, key, order_id, created_at)
            SELECT provider, key, order_id, ${now}
            FROM unnest(${claimable.map((index) => reports[index].providerEvent.provider)}::text[],
              ${claimable.map((index) => reports[index].providerEvent.key)}::text[],
              ${claimable.map((index) => reports[index].orderId)}::uuid[]) AS claim(provider, key, order_id)
            ON CONFLICT DO NOTHING
            RETURNING provider, key`
        : [];
      const claimed = new Set(claimedRows.map((row) => `${row.provider}\u0000${row.key}`));

      // Each order's claimed reports, folded in the batch's order; each applied one is a timeline step.
      const steps: { orderId: string; kind: string; detail: object | null }[] = [];
      const fallbacks: FallbackToQueue[] = [];
      const changes = new Map<string, { state: OrderState; change: StateChange; event: OrderEventName | null }>();
      for (const index of claimable) {
        const report = reports[index];
        if (!claimed.has(`${report.providerEvent.provider}\u0000${report.providerEvent.key}`)) continue;
        const row = states.get(report.orderId)!;
        const current = changes.get(report.orderId) ?? {
          state: { ...lockedState(row), smsFallbackCodes: this.fallbackCodes(row.mode, row.sms_fallback_codes) },
          change: {},
          event: null,
        };
        const decision = decideDeliveryStatus(current.state, report.status, report.failure);
        if (decision.kind !== "apply") {
          outcomes[index] = decision.kind;
          continue;
        }
        outcomes[index] = "applied";
        steps.push({ orderId: report.orderId, kind: decision.step, detail: decision.change.failure ?? decision.smsFallback ?? null });
        if (decision.smsFallback) fallbacks.push({ orderId: report.orderId, ...decision.smsFallback });
        current.state = { ...current.state, ...stateOf(decision.change) };
        current.change = { ...current.change, ...decision.change };
        // Delivery reports raise at most one event per order (order.failed, from pending only).
        current.event ??= decision.event;
        changes.set(report.orderId, current);
      }
      const changed = [...changes].filter(([, entry]) => Object.keys(entry.change).length > 0);
      if (changed.length) {
        const failure = (entry: (typeof changed)[number][1]) => entry.change.failure;
        await tx.$executeRaw`
          UPDATE orders AS o SET
            status = c.status::"OrderStatus",
            customer_action = c.customer_action::"CustomerAction",
            delivery_status = c.delivery_status::"DeliveryStatus",
            error_code = CASE WHEN c.has_failure THEN c.error_code ELSE o.error_code END,
            failure_reason = CASE WHEN c.has_failure THEN c.failure_reason ELSE o.failure_reason END,
            updated_at = ${now}
          FROM unnest(${changed.map(([id]) => id)}::uuid[], ${changed.map(([, entry]) => entry.state.status)}::text[],
            ${changed.map(([, entry]) => entry.state.customerAction)}::text[],
            ${changed.map(([, entry]) => entry.state.deliveryStatus)}::text[], ${changed.map(([, entry]) => Boolean(failure(entry)))}::boolean[],
            ${changed.map(([, entry]) => failure(entry)?.errorCode ?? null)}::int[],
            ${changed.map(([, entry]) => failure(entry)?.failureReason ?? null)}::text[])
            AS c(id, status, customer_action, delivery_status, has_failure, error_code, failure_reason)
          WHERE o.id = c.id`;
      }
      if (steps.length) {
        await tx.$executeRaw`
          INSERT INTO order_timeline (order_id, at, kind, source, detail)
          SELECT step.order_id, ${now}, step.kind, 'provider', step.detail
          FROM unnest(${steps.map((step) => step.orderId)}::uuid[], ${steps.map((step) => step.kind)}::text[],
            ${steps.map((step) => (step.detail ? JSON.stringify(step.detail) : null))}::jsonb[]) WITH ORDINALITY
            AS step(order_id, kind, detail, n)
          ORDER BY step.n`;
      }
      const smsQueued = await queueFallbackSms(tx, fallbacks, now);
      // Orders that left `pending` (failed): what was still scheduled for them will never be due.
      const ended = changed.filter(([, entry]) => entry.change.status).map(([id]) => id);
      if (ended.length) {
        await tx.$executeRaw`
          UPDATE order_tasks SET state = 'canceled', lease_until = NULL, finished_at = ${now}
          WHERE order_id = ANY(${ended}::uuid[]) AND state IN ('scheduled', 'claimed')`;
      }
      const withEvents = changed.filter(([, entry]) => entry.event !== null);
      const events: StoredEvent[] = [];
      if (withEvents.length) {
        const records = await tx.order.findMany({ where: { id: { in: withEvents.map(([id]) => id) } }, include: withItems });
        const byId = new Map(records.map((record) => [record.id, record]));
        for (const [id, entry] of withEvents) {
          const record = byId.get(id)!;
          const envelope = eventEnvelope(entry.event!, now, toOrderView(record));
          events.push({ id: newId(), merchantId: record.merchantId, mode: record.mode, orderId: id, envelope });
        }
        await tx.orderEvent.createMany({
          data: events.map((event) => ({
            id: event.id,
            merchantId: event.merchantId,
            orderId: event.orderId,
            type: event.envelope.event,
            payload: event.envelope as unknown as Prisma.InputJsonValue,
            createdAt: now,
          })),
        });
      }
      return { outcomes, events, smsQueued };
    }, TX_OPTIONS);
  }

  async eventsOf(orderId: string): Promise<StoredEvent[]> {
    const rows = await this.prisma.orderEvent.findMany({
      where: { orderId },
      orderBy: { sequence: "asc" },
      include: { order: { select: { mode: true } } },
    });
    return rows.map((row) => ({
      id: row.id,
      merchantId: row.merchantId,
      mode: row.order.mode,
      orderId: row.orderId,
      envelope: row.payload as unknown as OrderEventEnvelope,
    }));
  }

  /** An order's mode and customer phone by id alone (provider callbacks); null when there is none. */
  async customerOf(orderId: string): Promise<{ mode: "live" | "test"; customerPhone: string } | null> {
    return this.prisma.order.findUnique({ where: { id: orderId }, select: { mode: true, customerPhone: true } });
  }
}

interface PolicyRow {
  reminders: string[] | null;
  expire_after: string | null;
  quiet_hours_start: string | null;
  quiet_hours_end: string | null;
  quiet_hours_time_zone: string | null;
  sms_fallback_codes?: number[] | null;
}

export function policyOfRow(row: PolicyRow): ConfirmationPolicy {
  return {
    reminders: row.reminders ?? [],
    expireAfter: row.expire_after,
    quietHours:
      row.quiet_hours_start && row.quiet_hours_end && row.quiet_hours_time_zone
        ? { start: row.quiet_hours_start, end: row.quiet_hours_end, timeZone: row.quiet_hours_time_zone }
        : null,
    smsFallback: row.sms_fallback_codes?.length ? { errorCodes: row.sms_fallback_codes } : null,
  };
}

/** Timeline steps as the three parallel arrays the insert statements unnest. */
function timelineColumns(steps: Omit<TimelineEntry, "at">[]): [string[], string[], (string | null)[]] {
  return [
    steps.map((step) => step.kind),
    steps.map((step) => step.source),
    steps.map((step) => (step.detail ? JSON.stringify(step.detail) : null)),
  ];
}

/** One delivery report of a batch (see applyDeliveryReports): its order is already resolved. */
export interface DeliveryReport {
  orderId: string;
  status: DeliveryStatus;
  failure?: { errorCode: number | null; failureReason: string };
  providerEvent: ProviderEventKey;
}

export type DeliveryReportOutcome = "applied" | "unchanged" | "rejected" | "duplicate" | "not_found" | "sending";

interface LockedOrder {
  id: string;
  send_state: string;
  status: string;
  customer_action: string | null;
  delivery_status: string | null;
  mode: MerchantScope["mode"];
  sms_fallback_codes: number[] | null;
}

/** LOCK_FOR_TRANSITION_SQL's row. */
interface LockedForTransition extends Omit<LockedOrder, "id"> {
  merchant_id: string;
  order: OrderView;
}

function lockedState(row: Pick<LockedOrder, "status" | "customer_action" | "delivery_status">): OrderState {
  return {
    status: row.status as OrderState["status"],
    customerAction: row.customer_action as OrderState["customerAction"],
    deliveryStatus: row.delivery_status as OrderState["deliveryStatus"],
  };
}

/** The state fields a change sets (its failure details are not state). */
function stateOf(change: StateChange): Partial<OrderState> {
  const state: Partial<OrderState> = {};
  if (change.status) state.status = change.status;
  if (change.customerAction) state.customerAction = change.customerAction;
  if (change.deliveryStatus) state.deliveryStatus = change.deliveryStatus;
  return state;
}

/** The list's conditions without its cursor: the caller's visible orders matching `filter`. */
function filterWhere(scope: MerchantScope, filter: OrderFilter): Prisma.OrderWhereInput {
  const where: Prisma.OrderWhereInput = {
    merchantId: scope.merchantId,
    mode: scope.mode,
    sendState: { not: "sending" },
  };
  if (filter.statuses?.length) where.status = { in: filter.statuses };
  if (filter.externalOrderId) where.externalOrderId = filter.externalOrderId;
  if (filter.customerPhone) where.customerPhone = filter.customerPhone;
  return where;
}

function createdAtRange(filter: OrderFilter): Prisma.DateTimeFilter {
  const createdAt: Prisma.DateTimeFilter = {};
  if (filter.createdFrom) createdAt.gte = filter.createdFrom;
  if (filter.createdTo) createdAt.lt = filter.createdTo;
  return createdAt;
}

function changeData(change: StateChange): Prisma.OrderUpdateInput {
  const data: Prisma.OrderUpdateInput = {};
  if (change.status) data.status = change.status;
  if (change.customerAction) data.customerAction = change.customerAction;
  if (change.deliveryStatus) data.deliveryStatus = change.deliveryStatus;
  if (change.failure) {
    data.errorCode = change.failure.errorCode;
    data.failureReason = change.failure.failureReason;
  }
  return data;
}

async function insertEvent(
  tx: Prisma.TransactionClient,
  record: OrderRecord,
  name: OrderEventName,
  now: Date,
  order: OrderView,
): Promise<StoredEvent> {
  const envelope = eventEnvelope(name, now, order);
  const id = newId();
  await tx.orderEvent.create({
    data: {
      id,
      merchantId: record.merchantId,
      orderId: record.id,
      type: name,
      payload: envelope as unknown as Prisma.InputJsonValue,
      createdAt: now,
    },
  });
  return { id, merchantId: record.merchantId, mode: record.mode, orderId: record.id, envelope };
}

/**
 * A validated create input as the order it becomes (ids assigned here). Money stays the client's JS number:
 * with ≤ 15 significant digits its shortest text is the exact decimal stored, and reads back as this number.
 */
function draftView(input: CreateOrderInput, now: Date): OrderView {
  return {
    id: newId(),
    externalOrderId: input.externalOrderId,
    status: "pending",
    customerAction: null,
    deliveryStatus: null,
    customerName: input.customerName,
    customerPhone: input.customerPhone,
    customerAddress: input.customerAddress || null,
    subtotal: input.subtotal,
    shippingCost: input.shippingCost,
    totalCost: input.totalCost,
    currency: input.currency,
    failureReason: null,
    errorCode: null,
    items: input.items.map((item) => ({
      id: newId(),
      productName: item.productName,
      variantName: item.variantName || null,
      quantity: item.quantity,
      unitPrice: item.unitPrice,
      totalPrice: item.totalPrice,
    })),
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
}
