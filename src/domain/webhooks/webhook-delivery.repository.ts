import type pg from "pg";
import { preparedStatement } from "../../db/prepared-statement.ts";
import type { Prisma, PrismaClient } from "../../generated/prisma/client.ts";
import { newId } from "../ids.ts";
import type { OrderCursor } from "../orders/order-cursor.ts";
import type { MerchantScope } from "../orders/order.repository.ts";
import type { WebhookQueueStats } from "../../metrics.ts";
import type { AttemptResult } from "./webhook-retry-policy.ts";

/**
 * Webhook deliveries and their attempt log. The dispatcher's statements (fan-out, claim, outcome) are plain SQL
 * on `pg`: they lock with SKIP LOCKED, which Prisma cannot express, and they run on every wake-up. The delivery
 * log API reads through Prisma.
 */
export type DeliveryStatus = "pending" | "succeeded" | "dead";

/** A delivery claimed for one attempt, with everything the attempt needs (no further reads). */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  eventType: string;
  eventCreatedAt: Date;
  orderId: string;
  endpointId: string;
  url: string;
  /** The current secret first, then the previous one while it still signs; as stored (sealed). */
  secrets: string[];
  /** Also send x-webhook-signature-256 (the endpoint asked for it). */
  legacySignature: boolean;
  /** The outbox payload's text: the bytes to send and sign. */
  body: string;
  /** Attempts made before this one. */
  attemptCount: number;
  maxAttempts: number;
  /** Identifies this claim: the outcome is written only while the lease is still ours. */
  leaseUntil: Date;
}

export interface AttemptOutcome {
  status: DeliveryStatus;
  /** For `pending`: when the next attempt is due, from the database's clock. */
  retryInMs: number | null;
  /** Set when the endpoint must be disabled (410 Gone). */
  disableEndpoint: string | null;
}

/** One finished attempt, as the dispatcher records it. */
export interface RecordedAttempt {
  claim: ClaimedDelivery;
  attemptedAt: Date;
  result: AttemptResult;
  outcome: AttemptOutcome;
}

export interface RecordedBatch {
  kept: boolean[];
  unblocked: boolean;
}

export interface DeliveryFilter {
  endpointId?: string;
  orderId?: string;
  statuses?: DeliveryStatus[];
}

export type DeliveryRecord = Prisma.WebhookDeliveryGetPayload<{ include: { attempts: true } }>;

const withAttempts = { attempts: { orderBy: [{ attemptedAt: "asc" as const }, { id: "asc" as const }] } };

/** A time-ordered UUID (v7) in SQL, like `newId()`: delivery ids keep landing at the right edge of their indexes. */
const UUID_V7_SQL = `encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
  placing substring(int8send(floor(extract(epoch from clock_timestamp()) * 1000)::bigint) from 3) from 1 for 6),
  52, 1), 53, 1), 'hex')::uuid`;

/**
 * The fan-out and the claim commit without waiting for the WAL flush (synchronous_commit = off for their own
 * transaction only; on a busy disk the flush is most of their cost). Losing one of them in a crash of PostgreSQL
 * itself only undoes it: the events are fanned out again (the deliveries vanish with the mark, atomically), the
 * lease is gone so the attempt is made again (at least once, same webhook-id). Neither can be lost once
 * something depends on it: an attempt's outcome commits synchronously (RECORD_ATTEMPTS_SQL), which flushes the
 * WAL up to it, the fan-out and claim before it included. So a later event of an order is never sent on the
 * strength of an outcome that a crash could forget. (A CTE that is not a data-modifying one runs only when
 * referenced: the statements reference it.)
 */
const ASYNC_COMMIT_CTE = `async_commit AS (SELECT set_config('synchronous_commit', 'off', true) AS on_commit)`;
/**
 * "Due now" for next_attempt_at, a timestamptz(3): now() truncated to the millisecond. Stored as now() it was rounded
 * to the nearest millisecond, up to half a millisecond into the future, so the claim that follows a fan-out at once
 * (next_attempt_at <= now()) often did not see the new delivery as due yet; it then waited for the next wake-up (the
 * next event, or the 1 s poll). bench:webhooks at 50 orders/s: p99 event → delivery 23 ms, the next order's 20 ms
 * plus its own 3; with the truncation, 6-8 ms.
 */
const DUE_NOW_SQL = `date_trunc('milliseconds', now())`;

/**
 * Fan-out, in one statement (so one round trip, and no transaction held open across several on the embedded
 * engine): claims up to $1 undispatched outbox events, oldest first, marks them dispatched, and inserts one
 * pending delivery per enabled endpoint of the event's merchant and mode that wants its type. An event waits
 * while an earlier event of its order is still undispatched (locked by another instance's fan-out, say):
 * otherwise its delivery could exist, and go out, before the earlier one's.
 */
const FAN_OUT_SQL = `
  WITH ${ASYNC_COMMIT_CTE}, claimed AS (
    -- The order's mode by a primary-key probe per event (as a join, stale statistics made it a hash of all orders).
    SELECT e.id, e.merchant_id, e.order_id, e.type, e.sequence, (SELECT o.mode FROM orders o WHERE o.id = e.order_id) AS mode
    FROM (
      -- The oldest undispatched events, read in order from the partial index and locked, before any join: a queue
      -- scan that stops at the limit (joined first, the planner sorted every undispatched event).
      SELECT id, merchant_id, order_id, type, sequence FROM order_events
      WHERE dispatched_at IS NULL
      ORDER BY sequence
      LIMIT $1
      FOR UPDATE SKIP LOCKED
    ) e
    WHERE NOT EXISTS (
      SELECT 1 FROM order_events earlier
      WHERE earlier.order_id = e.order_id AND earlier.dispatched_at IS NULL AND earlier.sequence < e.sequence)
  ), marked AS (
    UPDATE order_events SET dispatched_at = now() FROM claimed WHERE order_events.id = claimed.id
    RETURNING order_events.id
  ), inserted AS (
    INSERT INTO webhook_deliveries (id, merchant_id, mode, endpoint_id, event_id, event_type, event_sequence, order_id,
      status, attempt_count, max_attempts, next_attempt_at, created_at, updated_at)
    SELECT ${UUID_V7_SQL}, c.merchant_id, c.mode, ep.id, c.id, c.type, c.sequence, c.order_id,
      'pending', 0, $2, ${DUE_NOW_SQL}, now(), now()
    FROM claimed c
    JOIN webhook_endpoints ep
      ON ep.merchant_id = c.merchant_id AND ep.mode = c.mode AND ep.enabled AND c.type = ANY(ep.events)
    ORDER BY c.sequence
    ON CONFLICT (endpoint_id, event_id) DO NOTHING
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM marked)::int AS events, (SELECT count(*) FROM inserted)::int AS deliveries,
    -- A later event of an order taken here was held back (see above): the next pass takes it.
    EXISTS (SELECT 1 FROM claimed c JOIN order_events later
            ON later.order_id = c.order_id AND later.sequence > c.sequence AND later.dispatched_at IS NULL) AS held_back,
    (SELECT on_commit FROM async_commit) AS async_commit`;

/**
 * Claims due deliveries for one attempt each, in one statement: rows locked with SKIP LOCKED and leased in the
 * same UPDATE, so several instances on one database never take the same delivery; an expired lease (a crashed
 * instance) makes it claimable again. A delivery waits while an earlier event of its order is still pending
 * for the same endpoint (SPEC §4 ordering).
 *
 * Its cost follows the endpoints that have work, not the backlog: a loose index scan finds each endpoint with
 * pending deliveries (one index probe each), then takes at most that endpoint's free slots from the front of its
 * own due queue. One endpoint's backlog of thousands (a receiver that is down) therefore costs as much as a
 * backlog of one, and can never crowd the other endpoints out of a batch.
 */
const CLAIM_DUE_SQL = `
  WITH RECURSIVE ${ASYNC_COMMIT_CTE}, endpoints_with_work AS (
    (SELECT endpoint_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY endpoint_id LIMIT 1)
    UNION ALL
    SELECT (SELECT d.endpoint_id FROM webhook_deliveries d
            WHERE d.status = 'pending' AND d.endpoint_id > w.endpoint_id ORDER BY d.endpoint_id LIMIT 1)
    FROM endpoints_with_work w WHERE w.endpoint_id IS NOT NULL
  ), busy AS (
    SELECT * FROM unnest($1::uuid[], $2::int[]) AS b(endpoint_id, in_flight)
  ), candidates AS (
    SELECT c.id
    FROM endpoints_with_work w
    JOIN webhook_endpoints ep ON ep.id = w.endpoint_id AND ep.enabled
    LEFT JOIN busy ON busy.endpoint_id = w.endpoint_id
    CROSS JOIN LATERAL (
      SELECT d.id
      FROM webhook_deliveries d
      WHERE d.status = 'pending' AND d.endpoint_id = w.endpoint_id AND d.next_attempt_at <= now()
        AND (d.lease_until IS NULL OR d.lease_until <= now())
        AND NOT EXISTS (
          -- A probe of (endpoint_id, order_id, event_sequence), which holds an order's few deliveries: status is
          -- compared as text so that the planner cannot take the status index instead, which made it read every
          -- pending delivery of the endpoint for each candidate (with 8,000 pending, 500,000 rows and 340 ms for a
          -- claim of 64; bench:rest with BENCH_WEBHOOK_ENDPOINTS=1).
          SELECT 1 FROM webhook_deliveries earlier
          WHERE earlier.endpoint_id = d.endpoint_id AND earlier.order_id = d.order_id
            AND earlier.event_sequence < d.event_sequence AND earlier.status::text = 'pending')
      ORDER BY d.next_attempt_at, d.event_sequence
      LIMIT greatest($3 - coalesce(busy.in_flight, 0), 0)
    ) c
  ), picked AS (
    -- "= ANY(ARRAY(…))": primary-key probes for the few candidates (a join makes the planner scan the table).
    SELECT d.id
    FROM webhook_deliveries d
    WHERE d.id = ANY(ARRAY(SELECT id FROM candidates))
      -- Re-checked on the locked row: another instance may have claimed or finished it meanwhile.
      AND d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until <= now())
    ORDER BY d.next_attempt_at, d.event_sequence
    LIMIT $4
    FOR UPDATE OF d SKIP LOCKED
  )
  UPDATE webhook_deliveries d
  SET lease_until = now() + $5::float8 * interval '1 millisecond', updated_at = now()
  FROM order_events e, webhook_endpoints ep
  WHERE d.id = ANY(ARRAY(SELECT id FROM picked)) AND e.id = d.event_id AND ep.id = d.endpoint_id
    AND (SELECT on_commit FROM async_commit) IS NOT NULL
  RETURNING d.id, d.event_id, d.event_type, e.created_at AS event_created_at, d.order_id, d.endpoint_id, ep.url,
    ep.secret, CASE WHEN ep.previous_secret_expires_at > now() THEN ep.previous_secret END AS previous_secret, ep.legacy_signature,
    e.payload::text AS body, d.attempt_count, d.max_attempts, d.lease_until`;

/**
 * Attempts' outcomes, atomically, one row of the arrays per attempt (a batch of attempts that finished together):
 * each attempt logged, its delivery moved on and its lease released, and on 410 the endpoint disabled. A delivery
 * changes only while the lease is still the attempt's claim (a claim that outlived its lease lost it to another
 * instance, whose outcome counts); the attempt is logged either way. Returns the deliveries that changed, and
 * whether a later event of the same order now waits for the same endpoint.
 */
const RECORD_ATTEMPTS_SQL = `
  WITH input AS (
    SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::text[], $4::float8[], $5::uuid[], $6::timestamptz[],
      $7::int[], $8::int[], $9::text[], $10::text[])
      AS i(id, lease_until, status, retry_in_ms, attempt_id, attempted_at, status_code, duration_ms, error, disable_reason)
  ), updated AS (
    UPDATE webhook_deliveries d
    SET attempt_count = d.attempt_count + 1, status = i.status::"WebhookDeliveryStatus",
      next_attempt_at = CASE WHEN i.status = 'pending' THEN now() + i.retry_in_ms * interval '1 millisecond' END,
      lease_until = NULL, updated_at = now()
    FROM input i
    WHERE d.id = i.id AND d.lease_until = i.lease_until
    RETURNING d.id, d.endpoint_id, d.order_id, d.event_sequence, d.status
  ), attempt AS (
    INSERT INTO webhook_attempts (id, delivery_id, attempted_at, status_code, duration_ms, error)
    SELECT i.attempt_id, i.id, i.attempted_at, i.status_code, i.duration_ms, i.error
    FROM input i
    -- Unless the endpoint (and so its deliveries) was deleted during the attempt.
    WHERE EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = i.id)
  ), disabled AS (
    UPDATE webhook_endpoints ep SET enabled = false, disabled_reason = i.disable_reason, updated_at = now()
    FROM updated u JOIN input i ON i.id = u.id
    WHERE i.disable_reason IS NOT NULL AND ep.enabled AND ep.id = u.endpoint_id
  )
  SELECT u.id,
    -- A finished delivery lets the next event of its order to the endpoint go: the dispatcher claims again.
    u.status <> 'pending' AND EXISTS (
      SELECT 1 FROM webhook_deliveries n
      WHERE n.endpoint_id = u.endpoint_id AND n.order_id = u.order_id AND n.event_sequence > u.event_sequence
        AND n.status = 'pending') AS unblocks
  FROM updated u`;

/**
 * A manual retry: a pending delivery becomes due now; a finished one pending again with exactly one attempt more.
 * A delivery whose attempt is under way (leased) is left alone: that attempt is the redelivery asked for, and
 * its outcome would overwrite a due time set here anyway.
 */
const RETRY_SQL = `
  UPDATE webhook_deliveries
  SET max_attempts = CASE WHEN status = 'pending' THEN max_attempts ELSE attempt_count + 1 END,
    status = 'pending', next_attempt_at = ${DUE_NOW_SQL}, updated_at = now()
  WHERE id = $1 AND merchant_id = $2 AND mode = $3::"KeyMode"
    AND NOT (status = 'pending' AND coalesce(lease_until > now(), false))
  RETURNING id`;

interface ClaimedDeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  event_created_at: Date;
  order_id: string;
  endpoint_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  legacy_signature: boolean;
  body: string;
  attempt_count: number;
  max_attempts: number;
  lease_until: Date;
}

// Run on every dispatcher pass (planning the fan-out and the claim took 0.45 and 0.66 ms a call): the fan-out is
// prepared once per connection; the claim is not (see claimDue).
const fanOut = preparedStatement("webhooks_fan_out", FAN_OUT_SQL);

export class WebhookDeliveryRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly pool: pg.Pool,
    /** Run the dispatcher's fan-out and claim as named prepared statements (Database.prepareStatements). */
    private readonly prepare = false,
  ) {}

  /**
   * Turns up to `limit` undispatched outbox events into one pending delivery per enabled endpoint of the same
   * merchant and mode that wants the event, and marks them dispatched, atomically. Returns how many events it
   * took (0: nothing left that it may take), and whether it held back a later event of an order it took.
   */
  async fanOut(limit: number, maxAttempts: number): Promise<{ events: number; deliveries: number; heldBack: boolean }> {
    const { rows } = await this.pool.query<{ events: number; deliveries: number; held_back: boolean }>(fanOut([limit, maxAttempts], this.prepare));
    return { events: rows[0].events, deliveries: rows[0].deliveries, heldBack: rows[0].held_back };
  }

  /**
   * Claims up to `limit` due deliveries, at most `perEndpoint` in flight per endpoint counting `inFlight` (this
   * instance's attempts under way), each leased for `leaseMs`.
   */
  async claimDue(limit: number, perEndpoint: number, inFlight: ReadonlyMap<string, number>, leaseMs: number): Promise<ClaimedDelivery[]> {
    const busy = [...inFlight].filter(([, count]) => count > 0);
    // Not prepared: planned on every call, never from a cached plan. Its best plan follows the queue (how many pending
    // deliveries, for how many endpoints), and a generic plan cached while the table was nearly empty went on reading
    // every delivery of the endpoint for each candidate, and the whole table for the final update, once it had grown
    // (auto_explain under bench:rest with BENCH_WEBHOOK_ENDPOINTS=1 on a new database: 180–360 ms per claim at 40,000
    // deliveries). Planning costs 0.5–2 ms, once per claim of up to 64 deliveries per endpoint.
    const { rows } = await this.pool.query<ClaimedDeliveryRow>(CLAIM_DUE_SQL, [
      busy.map(([endpointId]) => endpointId),
      busy.map(([, count]) => count),
      perEndpoint,
      limit,
      leaseMs,
    ]);
    return rows.map((row) => ({
      id: row.id,
      eventId: row.event_id,
      eventType: row.event_type,
      eventCreatedAt: row.event_created_at,
      orderId: row.order_id,
      endpointId: row.endpoint_id,
      url: row.url,
      secrets: row.previous_secret ? [row.secret, row.previous_secret] : [row.secret],
      legacySignature: row.legacy_signature,
      body: row.body,
      attemptCount: row.attempt_count,
      maxAttempts: row.max_attempts,
      leaseUntil: row.lease_until,
    }));
  }

  /**
   * Logs attempts and applies their outcomes, in one statement. `kept`, for each entry: true when its delivery
   * changed, false when the lease had already passed to another claim. `unblocked`: some finished delivery had a
   * later event of its order waiting for the same endpoint (now due).
   */
  async recordAttempts(attempts: readonly RecordedAttempt[]): Promise<RecordedBatch> {
    if (attempts.length === 0) return { kept: [], unblocked: false };
    const { rows } = await this.pool.query<{ id: string; unblocks: boolean }>(RECORD_ATTEMPTS_SQL, [
      attempts.map((a) => a.claim.id),
      attempts.map((a) => a.claim.leaseUntil),
      attempts.map((a) => a.outcome.status),
      attempts.map((a) => a.outcome.retryInMs ?? 0),
      attempts.map(() => newId()),
      attempts.map((a) => a.attemptedAt),
      attempts.map((a) => a.result.statusCode),
      attempts.map((a) => a.result.durationMs),
      attempts.map((a) => a.result.error),
      attempts.map((a) => a.outcome.disableEndpoint),
    ]);
    const changed = new Set(rows.map((row) => row.id));
    return { kept: attempts.map((a) => changed.has(a.claim.id)), unblocked: rows.some((row) => row.unblocks) };
  }

  /**
   * Attempts abandoned (at shutdown, or claimed ahead and not started in time): claimable again at once (by a
   * restart or another instance), nothing logged.
   */
  async releaseLeases(claims: readonly ClaimedDelivery[]): Promise<void> {
    if (claims.length === 0) return;
    await this.pool.query(
      `UPDATE webhook_deliveries d SET lease_until = NULL
       FROM unnest($1::uuid[], $2::timestamptz[]) AS r(id, lease_until)
       WHERE d.id = r.id AND d.lease_until = r.lease_until`,
      [claims.map((claim) => claim.id), claims.map((claim) => claim.leaseUntil)],
    );
  }

  async list(scope: MerchantScope, filter: DeliveryFilter, limit: number, after: OrderCursor | null): Promise<DeliveryRecord[]> {
    const where: Prisma.WebhookDeliveryWhereInput = { merchantId: scope.merchantId, mode: scope.mode };
    if (filter.endpointId) where.endpointId = filter.endpointId;
    if (filter.orderId) where.orderId = filter.orderId;
    if (filter.statuses?.length) where.status = { in: filter.statuses };
    if (after) {
      // As for orders: the redundant bound keeps the index scan short.
      where.AND = [
        { createdAt: { lte: after.createdAt } },
        { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] },
      ];
    }
    return this.prisma.webhookDelivery.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: limit,
      include: withAttempts,
    });
  }

  async find(scope: MerchantScope, id: string): Promise<DeliveryRecord | null> {
    return this.prisma.webhookDelivery.findFirst({
      where: { id, merchantId: scope.merchantId, mode: scope.mode },
      include: withAttempts,
    });
  }

  /** The queue across all instances, for the lag gauges (src/metrics.ts). */
  async queueStats(): Promise<WebhookQueueStats> {
    const { rows } = await this.pool.query<{ due: number; oldest_due: number | null; oldest_undispatched: number | null }>(`
      SELECT
        (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now())::int AS due,
        (SELECT extract(epoch FROM now() - min(next_attempt_at))::float8 FROM webhook_deliveries
          WHERE status = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until <= now())) AS oldest_due,
        (SELECT extract(epoch FROM now() - min(created_at))::float8 FROM order_events WHERE dispatched_at IS NULL)
          AS oldest_undispatched`);
    const [row] = rows;
    return { due: row.due, oldestDueSeconds: row.oldest_due ?? 0, oldestUndispatchedSeconds: row.oldest_undispatched ?? 0 };
  }

  /** Null when the delivery is not the caller's. */
  async retry(scope: MerchantScope, id: string): Promise<DeliveryRecord | null> {
    await this.pool.query(RETRY_SQL, [id, scope.merchantId, scope.mode]);
    return this.find(scope, id);
  }
}
