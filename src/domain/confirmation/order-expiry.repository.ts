import type pg from "pg";
import { newId } from "../ids.ts";
import { decideExpiry, type OrderState } from "../orders/order-state.ts";
import type { MerchantScope, StoredEvent } from "../orders/order.repository.ts";
import { ORDER_VIEW_JSON } from "../orders/order-sql.ts";
import { eventEnvelope, type OrderView } from "../orders/order.view.ts";
import { withCheckedOutClient } from "../../db/checked-out-client.ts";

export interface ExpiryBatch {
  /** The `order.expired` events written (publish them after this returns: they are committed). */
  events: StoredEvent[];
  /** Due expiries of orders that were no longer pending (answered, failed or canceled meanwhile). */
  skipped: number;
  /** Due expiries put off for a moment because a reminder of the order was being sent. */
  deferred: number;
}

/** How long an expiry waits when a reminder of its order is being sent (the send's result comes first). */
const DEFER_SECONDS = 1;

/**
 * Expires the orders whose `expireAfter` has passed, many per transaction: the due expiry tasks are claimed
 * `FOR UPDATE SKIP LOCKED` (another instance takes others), their orders locked, and the state machine's
 * decideExpiry applied to each; the status change, its `order.expired` outbox row and timeline step, and the
 * end of the order's remaining schedule commit together.
 */
export class OrderExpiryRepository {
  constructor(private readonly pool: pg.Pool) {}

  async expireDue(now: Date, limit: number): Promise<ExpiryBatch> {
    return withCheckedOutClient(this.pool, async (client) => {
      try {
        await client.query("BEGIN");
        const batch = await this.expireWithin(client, now, limit);
        await client.query("COMMIT");
        return batch;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      }
    });
  }

  private async expireWithin(client: pg.PoolClient, now: Date, limit: number): Promise<ExpiryBatch> {
    const due = await client.query<{ id: string; order_id: string }>(
      `SELECT id, order_id FROM order_tasks
       WHERE state = 'scheduled' AND due_at <= $1 AND kind = 'expiry'
       ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [now, limit],
    );
    if (due.rows.length === 0) return { events: [], skipped: 0, deferred: 0 };
    const orderIds = due.rows.map((row) => row.order_id);
    // Locked in id order: two instances never wait on each other in opposite orders.
    const locked = await client.query<{
      id: string;
      status: OrderState["status"];
      customer_action: OrderState["customerAction"];
      delivery_status: OrderState["deliveryStatus"];
    }>(
      `SELECT id, status, customer_action, delivery_status FROM orders WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`,
      [orderIds],
    );
    // A statement of its own, after the locks: sees a reminder send decided before them.
    const sending = await client.query<{ order_id: string }>(
      `SELECT DISTINCT order_id FROM order_tasks WHERE order_id = ANY($1::uuid[]) AND state = 'sending' AND lease_until > $2`,
      [orderIds, now],
    );
    const busy = new Set(sending.rows.map((row) => row.order_id));
    const expiring = new Set(
      locked.rows
        .filter((row) => !busy.has(row.id))
        .filter(
          (row) =>
            decideExpiry({ status: row.status, customerAction: row.customer_action, deliveryStatus: row.delivery_status }).kind ===
            "apply",
        )
        .map((row) => row.id),
    );

    const events = expiring.size ? await this.writeExpiry(client, [...expiring], now) : [];
    const deferredTasks = due.rows.filter((row) => busy.has(row.order_id)).map((row) => row.id);
    const doneTasks = due.rows.filter((row) => expiring.has(row.order_id)).map((row) => row.id);
    const skippedTasks = due.rows.filter((row) => !busy.has(row.order_id) && !expiring.has(row.order_id)).map((row) => row.id);
    await client.query(
      `UPDATE order_tasks SET state = CASE WHEN id = ANY($1::uuid[]) THEN 'done' ELSE 'skipped' END::"OrderTaskState",
         finished_at = $3
       WHERE id = ANY($1::uuid[]) OR id = ANY($2::uuid[])`,
      [doneTasks, skippedTasks, now],
    );
    if (deferredTasks.length) {
      await client.query(
        `UPDATE order_tasks SET due_at = $2::timestamptz + make_interval(secs => $3) WHERE id = ANY($1::uuid[])`,
        [deferredTasks, now, DEFER_SECONDS],
      );
    }
    return { events, skipped: skippedTasks.length, deferred: deferredTasks.length };
  }

  /** The status change, outbox rows, timeline steps and the end of the remaining reminders of `orderIds`. */
  private async writeExpiry(client: pg.PoolClient, orderIds: string[], now: Date): Promise<StoredEvent[]> {
    const updated = await client.query<{ merchant_id: string; mode: MerchantScope["mode"]; order: OrderView }>(
      `UPDATE orders o SET status = 'expired', updated_at = $2 WHERE o.id = ANY($1::uuid[]) AND o.status = 'pending'
       RETURNING o.merchant_id, o.mode, ${ORDER_VIEW_JSON} AS "order"`,
      [orderIds, now],
    );
    const events: StoredEvent[] = updated.rows.map((row) => ({
      id: newId(),
      merchantId: row.merchant_id,
      mode: row.mode,
      orderId: row.order.id,
      envelope: eventEnvelope("order.expired", now, row.order),
    }));
    const ids = events.map((event) => event.orderId);
    await client.query(
      `INSERT INTO order_events (id, merchant_id, order_id, type, payload, created_at)
       SELECT event.id, event.merchant_id, event.order_id, 'order.expired', event.payload, $5
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::json[]) WITH ORDINALITY
         AS event(id, merchant_id, order_id, payload, n)
       ORDER BY event.n`,
      [
        events.map((event) => event.id), events.map((event) => event.merchantId), ids,
        events.map((event) => JSON.stringify(event.envelope)), now,
      ],
    );
    await client.query(
      `WITH timeline AS (
         INSERT INTO order_timeline (order_id, at, kind, source, detail)
         SELECT id, $2, 'expired', 'scheduler', NULL FROM unnest($1::uuid[]) AS id
       )
       UPDATE order_tasks SET state = 'canceled', lease_until = NULL, finished_at = $2
       WHERE order_id = ANY($1::uuid[]) AND kind = 'reminder' AND state IN ('scheduled', 'claimed')`,
      [ids, now],
    );
    return events;
  }
}
