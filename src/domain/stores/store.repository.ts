import type pg from "pg";
import type { Prisma, PrismaClient } from "../../generated/prisma/client.ts";
import { newId } from "../ids.ts";
import type { MerchantScope } from "../orders/order.repository.ts";
import type { StorePlatform } from "./store-connector.ts";
import { withCheckedOutClient } from "../../db/checked-out-client.ts";

/**
 * Store connections, their activity, the inbound delivery queue and the write-back outbox. The queue statements
 * (claims with leases) are plain SQL on `pg`: they lock with SKIP LOCKED, which Prisma cannot express.
 */
export type ConnectionStatus = "active" | "disconnected" | "error";

export interface ConnectionRecord {
  id: string;
  merchantId: string;
  mode: MerchantScope["mode"];
  platform: StorePlatform;
  shop: string;
  status: ConnectionStatus;
  settings: unknown;
  credentials: string | null;
  tokenExpiresAt: Date | null;
  lastOrderAt: Date | null;
  createdAt: Date;
}

export interface ActivityRecord {
  at: Date;
  kind: string;
  storeOrderId: string | null;
  orderId: string | null;
  detail: unknown;
}

export interface ClaimedDelivery {
  id: string;
  platform: StorePlatform;
  webhookId: string;
  topic: string;
  shop: string;
  payload: string | null;
  attemptCount: number;
}

export interface ClaimedWriteback {
  id: string;
  connectionId: string;
  orderId: string;
  storeOrderId: string;
  outcome: string;
  doneEffects: string[];
  attemptCount: number;
  /** Whether an earlier fulfillment hold of this order went through (a confirmation then releases it). */
  held: boolean;
  leaseUntil: Date;
}

/** The longest an activity log is kept, newest first: older entries go (bounded per connection). */
export const MAX_ACTIVITY_PER_CONNECTION = 1_000;

const CONNECTION_SELECT = {
  id: true, merchantId: true, mode: true, platform: true, shop: true, status: true, settings: true, credentials: true,
  tokenExpiresAt: true, lastOrderAt: true, createdAt: true,
} as const;

/** Claims due inbound deliveries (oldest first) with a lease; a crashed instance's lease runs out and another takes it. */
const CLAIM_DELIVERIES_SQL = `
  UPDATE store_deliveries d SET lease_until = now() + $2::float8 * interval '1 millisecond', attempt_count = d.attempt_count + 1
  FROM (
    SELECT id FROM store_deliveries
    WHERE status = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until <= now())
    ORDER BY next_attempt_at, received_at
    LIMIT $1
    FOR UPDATE SKIP LOCKED
  ) due
  WHERE d.id = due.id
  RETURNING d.id, d.platform, d.webhook_id, d.topic, d.shop, d.payload, d.attempt_count`;

/**
 * Claims due write-backs: for each connection with none in flight (any instance) and not throttled, its first $3
 * due write-backs (each the earliest pending one of its order), which the worker then makes one after the other.
 * Claims take a transaction-level advisory lock first, so two instances' claims run one after the other and the
 * "none in flight for this connection" check cannot race.
 */
const CLAIM_WRITEBACKS_SQL = `
  WITH candidates AS (
    SELECT id FROM (
      SELECT w.id, row_number() OVER (PARTITION BY w.connection_id ORDER BY w.next_attempt_at, w.sequence) AS n
      FROM store_writebacks w
      JOIN store_connections c ON c.id = w.connection_id
      WHERE w.status = 'pending' AND w.next_attempt_at <= now() AND (w.lease_until IS NULL OR w.lease_until <= now())
        AND (c.throttled_until IS NULL OR c.throttled_until <= now())
        AND NOT EXISTS (SELECT 1 FROM store_writebacks earlier
                        WHERE earlier.order_id = w.order_id AND earlier.status = 'pending' AND earlier.sequence < w.sequence)
        AND NOT EXISTS (SELECT 1 FROM store_writebacks busy
                        WHERE busy.connection_id = w.connection_id AND busy.status = 'pending' AND busy.lease_until > now())
    ) ranked WHERE ranked.n <= $3
  ), picked AS (
    SELECT w.id FROM store_writebacks w WHERE w.id IN (SELECT id FROM candidates)
    ORDER BY w.next_attempt_at, w.sequence LIMIT $1
    FOR UPDATE SKIP LOCKED
  )
  UPDATE store_writebacks w SET lease_until = now() + $2::float8 * interval '1 millisecond', updated_at = now()
  FROM picked WHERE w.id = picked.id
  RETURNING w.id, w.connection_id, w.order_id, w.store_order_id, w.outcome, w.done_effects, w.attempt_count, w.lease_until, w.sequence,
    EXISTS (SELECT 1 FROM store_writebacks h WHERE h.order_id = w.order_id AND h.outcome = 'hold'
            AND 'hold' = ANY(h.done_effects)) AS held`;

/** A verified delivery waiting to be recorded, and the request waiting for its commit. */
interface PendingReceipt {
  row: { id: string; platform: StorePlatform; webhookId: string; topic: string; shop: string; payload: string; now: Date };
  resolve: (fresh: boolean) => void;
  reject: (error: unknown) => void;
}

/** Deliveries recorded by one statement at most (a burst beyond it is split). */
const RECEIVE_BATCH_MAX = 64;
/** Receipt statements in flight at a time; deliveries arriving meanwhile join the next one. */
const RECEIVE_IN_FLIGHT = 2;

const RECEIVE_SQL = `
  INSERT INTO store_deliveries (id, platform, webhook_id, topic, shop, status, payload, attempt_count, next_attempt_at, received_at)
  SELECT i.id, i.platform::"StorePlatform", i.webhook_id, i.topic, i.shop, 'pending', i.payload, 0, i.received_at, i.received_at
  FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])
    AS i(id, platform, webhook_id, topic, shop, payload, received_at)
  ON CONFLICT (platform, webhook_id) DO NOTHING
  RETURNING id`;

/** Work done inside a connection change's transaction, given the connection's id. */
export type InTransaction = (tx: Prisma.TransactionClient, connectionId: string) => Promise<void>;

export class StoreRepository {
  private readonly receipts: PendingReceipt[] = [];
  private receiptsInFlight = 0;
  private receiptScheduled = false;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly pool: pg.Pool,
  ) {}

  // --- connections -------------------------------------------------------------------------------------------

  async list(scope: MerchantScope): Promise<ConnectionRecord[]> {
    return (await this.prisma.storeConnection.findMany({
      where: { merchantId: scope.merchantId, mode: scope.mode },
      orderBy: { createdAt: "asc" },
      take: 100,
      select: CONNECTION_SELECT,
    })) as ConnectionRecord[];
  }

  async find(id: string): Promise<ConnectionRecord | null> {
    return (await this.prisma.storeConnection.findUnique({ where: { id }, select: CONNECTION_SELECT })) as ConnectionRecord | null;
  }

  async findInScope(scope: MerchantScope, id: string): Promise<ConnectionRecord | null> {
    return (await this.prisma.storeConnection.findFirst({
      where: { id, merchantId: scope.merchantId, mode: scope.mode },
      select: CONNECTION_SELECT,
    })) as ConnectionRecord | null;
  }

  /** The live (not disconnected) connection of a shop, whoever it belongs to: at most one (unique active_shop). */
  async findActiveByShop(platform: StorePlatform, shop: string): Promise<ConnectionRecord | null> {
    return (await this.prisma.storeConnection.findFirst({
      where: { platform, activeShop: shop },
      select: CONNECTION_SELECT,
    })) as ConnectionRecord | null;
  }

  /** The live connections of several shops at once (one statement per intake batch). */
  async findActiveByShops(platform: StorePlatform, shops: string[]): Promise<Map<string, ConnectionRecord>> {
    const rows = (await this.prisma.storeConnection.findMany({
      where: { platform, activeShop: { in: [...new Set(shops)] } },
      select: CONNECTION_SELECT,
    })) as ConnectionRecord[];
    return new Map(rows.map((row) => [row.shop, row]));
  }

  /** Every connection a shop has had, live or not, for any merchant (privacy requests reach uninstalled shops too). */
  async findAllByShop(platform: StorePlatform, shop: string): Promise<ConnectionRecord[]> {
    return (await this.prisma.storeConnection.findMany({ where: { platform, shop }, select: CONNECTION_SELECT })) as ConnectionRecord[];
  }

  /**
   * Connects (or reconnects) a shop for the scope: a new row, or the scope's earlier row of that shop made live
   * again with its new credentials. Returns null when the shop is live under another merchant or mode.
   */
  async connect(
    scope: MerchantScope,
    platform: StorePlatform,
    shop: string,
    settings: object,
    seal: (connectionId: string) => { credentials: string; tokenExpiresAt: Date | null },
    now: Date,
    /** Written in the connection's own transaction (the audit entry and the activity of the change). */
    alongside: InTransaction = async () => undefined,
  ): Promise<{ connection: ConnectionRecord; created: boolean } | null> {
    return this.prisma.$transaction(async (tx) => {
      const owner = await tx.storeConnection.findFirst({ where: { platform, activeShop: shop }, select: { id: true, merchantId: true, mode: true } });
      if (owner && (owner.merchantId !== scope.merchantId || owner.mode !== scope.mode)) return null;
      const existing = await tx.storeConnection.findUnique({
        where: { merchantId_mode_platform_shop: { merchantId: scope.merchantId, mode: scope.mode, platform, shop } },
        select: { id: true },
      });
      const id = existing?.id ?? newId();
      const sealed = seal(id);
      const data = {
        status: "active" as const,
        activeShop: shop,
        credentials: sealed.credentials,
        tokenExpiresAt: sealed.tokenExpiresAt,
        refreshLeaseUntil: null,
        updatedAt: now,
      };
      try {
        const connection = existing
          ? await tx.storeConnection.update({ where: { id }, data, select: CONNECTION_SELECT })
          : await tx.storeConnection.create({
              data: { id, merchantId: scope.merchantId, mode: scope.mode, platform, shop, settings, createdAt: now, ...data },
              select: CONNECTION_SELECT,
            });
        await alongside(tx, connection.id);
        return { connection: connection as ConnectionRecord, created: !existing };
      } catch (error) {
        // Another merchant connected the shop meanwhile (unique active_shop).
        if ((error as { code?: string }).code === "P2002") return null;
        throw error;
      }
    });
  }

  async updateSettings(id: string, settings: object, now: Date): Promise<ConnectionRecord> {
    return (await this.prisma.storeConnection.update({ where: { id }, data: { settings, updatedAt: now }, select: CONNECTION_SELECT })) as ConnectionRecord;
  }

  /** Stops everything: no credentials kept, later deliveries ignored, pending write-backs dropped. */
  async disconnect(id: string, now: Date, alongside: InTransaction = async () => undefined): Promise<ConnectionRecord> {
    return this.prisma.$transaction(async (tx) => {
      const connection = await tx.storeConnection.update({
        where: { id },
        data: { status: "disconnected", activeShop: null, credentials: null, tokenExpiresAt: null, refreshLeaseUntil: null, updatedAt: now },
        select: CONNECTION_SELECT,
      });
      await tx.storeWriteback.updateMany({
        where: { connectionId: id, status: "pending" },
        data: { status: "failed", lastError: "store disconnected", leaseUntil: null, updatedAt: now },
      });
      await alongside(tx, id);
      return connection as ConnectionRecord;
    });
  }

  async markStatus(id: string, status: ConnectionStatus, now: Date): Promise<void> {
    await this.prisma.storeConnection.updateMany({ where: { id, status: { not: "disconnected" } }, data: { status, updatedAt: now } });
  }

  async throttle(id: string, until: Date): Promise<void> {
    await this.pool.query("UPDATE store_connections SET throttled_until = greatest(coalesce(throttled_until, $2), $2) WHERE id = $1", [id, until]);
  }

  /** One instance at a time refreshes a connection's token: whoever sets the lease. */
  async takeRefreshLease(id: string, leaseMs: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE store_connections SET refresh_lease_until = now() + $2::float8 * interval '1 millisecond'
       WHERE id = $1 AND status <> 'disconnected' AND (refresh_lease_until IS NULL OR refresh_lease_until <= now())`,
      [id, leaseMs],
    );
    return rowCount === 1;
  }

  async storeRefreshed(id: string, credentials: string, tokenExpiresAt: Date | null, now: Date): Promise<void> {
    await this.prisma.storeConnection.updateMany({
      where: { id, status: { not: "disconnected" } },
      data: { credentials, tokenExpiresAt, refreshLeaseUntil: null, status: "active", updatedAt: now },
    });
  }

  async releaseRefreshLease(id: string): Promise<void> {
    await this.pool.query("UPDATE store_connections SET refresh_lease_until = NULL WHERE id = $1", [id]);
  }

  // --- activity ----------------------------------------------------------------------------------------------

  async addActivity(connectionId: string, entry: Omit<ActivityRecord, "at">, at: Date, tx: Prisma.TransactionClient = this.prisma): Promise<void> {
    await tx.storeActivity.create({
      data: { id: newId(), connectionId, at, kind: entry.kind, storeOrderId: entry.storeOrderId, orderId: entry.orderId, detail: (entry.detail ?? {}) as object },
    });
  }

  async activity(connectionId: string, first: number): Promise<ActivityRecord[]> {
    return this.prisma.storeActivity.findMany({
      where: { connectionId },
      orderBy: [{ at: "desc" }, { id: "desc" }],
      take: first,
      select: { at: true, kind: true, storeOrderId: true, orderId: true, detail: true },
    });
  }

  /** Keeps the newest MAX_ACTIVITY_PER_CONNECTION entries of each connection (maintenance). */
  async trimActivity(): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM store_activity a USING (
         SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY connection_id ORDER BY at DESC, id DESC) AS n FROM store_activity) r
         WHERE r.n > $1) old
       WHERE a.id = old.id`,
      [MAX_ACTIVITY_PER_CONNECTION],
    );
    return rowCount ?? 0;
  }

  // --- inbound deliveries ------------------------------------------------------------------------------------

  /**
   * Records a verified delivery once per (platform, webhook id); false when it was already received. Resolves once
   * the row is committed (the store is answered 2xx only then). Deliveries arriving together are recorded by one
   * statement (a group commit: a burst of webhooks costs a few round trips and WAL flushes, not one each). A statement
   * that fails fails each of its deliveries, as their own statements would have.
   */
  receive(platform: StorePlatform, webhookId: string, topic: string, shop: string, payload: string, now: Date): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.receipts.push({ row: { id: newId(), platform, webhookId, topic, shop, payload, now }, resolve, reject });
      this.scheduleReceipts();
    });
  }

  private scheduleReceipts(): void {
    if (this.receiptScheduled || this.receiptsInFlight >= RECEIVE_IN_FLIGHT || this.receipts.length === 0) return;
    this.receiptScheduled = true;
    // One turn of the event loop: the deliveries whose requests are being handled now join this statement.
    setImmediate(() => {
      this.receiptScheduled = false;
      void this.flushReceipts();
    });
  }

  private async flushReceipts(): Promise<void> {
    if (this.receiptsInFlight >= RECEIVE_IN_FLIGHT || this.receipts.length === 0) return;
    const batch = this.receipts.splice(0, RECEIVE_BATCH_MAX);
    this.receiptsInFlight++;
    // The same delivery twice in one statement (a store retrying at once): the first is recorded, the others are not
    // fresh (ON CONFLICT within one statement would skip them too, but RETURNING could not tell them apart).
    const first = new Map<string, PendingReceipt>();
    for (const receipt of batch) {
      const key = `${receipt.row.platform}\u0000${receipt.row.webhookId}`;
      if (!first.has(key)) first.set(key, receipt);
    }
    const rows = [...first.values()].map((receipt) => receipt.row);
    try {
      let outcomes: Map<string, boolean | Error>;
      try {
        const inserted = await this.insertReceipts(rows);
        outcomes = new Map(rows.map((row) => [row.id, inserted.has(row.id)]));
      } catch (error) {
        if (rows.length === 1) throw error;
        // A delivery the statement cannot take must not fail the others recorded with it: each on its own.
        const alone = await Promise.all(
          rows.map((row) => this.insertReceipts([row]).then((inserted) => inserted.has(row.id), (failure: unknown) => (failure instanceof Error ? failure : new Error(String(failure))))),
        );
        outcomes = new Map(rows.map((row, index) => [row.id, alone[index]]));
      }
      for (const receipt of batch) {
        // A copy of a delivery already in this batch is not in `outcomes`: not fresh.
        const outcome = outcomes.get(receipt.row.id) ?? false;
        if (outcome instanceof Error) receipt.reject(outcome);
        else receipt.resolve(outcome);
      }
    } catch (error) {
      for (const receipt of batch) receipt.reject(error);
    } finally {
      this.receiptsInFlight--;
      this.scheduleReceipts();
    }
  }

  /** Inserts deliveries in one statement; the ids of those that were new. */
  private async insertReceipts(rows: PendingReceipt["row"][]): Promise<Set<string>> {
    const result = await this.pool.query<{ id: string }>(RECEIVE_SQL, [
      rows.map((row) => row.id), rows.map((row) => row.platform), rows.map((row) => row.webhookId), rows.map((row) => row.topic),
      rows.map((row) => row.shop), rows.map((row) => row.payload), rows.map((row) => row.now),
    ]);
    return new Set(result.rows.map((row) => row.id));
  }

  async claimDeliveries(limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    const { rows } = await this.pool.query<{
      id: string; platform: StorePlatform; webhook_id: string; topic: string; shop: string; payload: string | null; attempt_count: number;
    }>(CLAIM_DELIVERIES_SQL, [limit, leaseMs]);
    return rows.map((row) => ({
      id: row.id, platform: row.platform, webhookId: row.webhook_id, topic: row.topic, shop: row.shop, payload: row.payload, attemptCount: row.attempt_count,
    }));
  }

  async deliveryRetry(id: string, delayMs: number): Promise<void> {
    await this.pool.query(
      "UPDATE store_deliveries SET lease_until = NULL, next_attempt_at = now() + $2::float8 * interval '1 millisecond' WHERE id = $1",
      [id, delayMs],
    );
  }

  /** Dedupe records outlive Shopify's retries (48 hours) with room to spare. */
  async purgeDeliveries(before: Date): Promise<number> {
    const { count } = await this.prisma.storeDelivery.deleteMany({ where: { status: "done", receivedAt: { lt: before } } });
    return count;
  }

  // --- store orders ------------------------------------------------------------------------------------------

  /**
   * Claims many store orders for their deliveries in one statement: per input, `claimed` (new, or this delivery's own
   * from an earlier run) or what the first delivery of that store order became.
   */
  async claimStoreOrders(
    claims: { connectionId: string; merchantId: string; mode: string; storeOrderId: string; externalOrderId: string; deliveryId: string }[],
    now: Date,
  ): Promise<({ claimed: true } | { claimed: false; orderId: string | null; skipped: string | null })[]> {
    if (claims.length === 0) return [];
    const { rows } = await this.pool.query<{ n: number; delivery_id: string; order_id: string | null; skipped: string | null }>(
      `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::uuid[])
           WITH ORDINALITY AS i(id, connection_id, merchant_id, mode, store_order_id, external_order_id, delivery_id, n)
       ), ins AS (
         INSERT INTO store_orders (id, connection_id, merchant_id, mode, store_order_id, external_order_id, delivery_id, created_at)
         SELECT id, connection_id, merchant_id, mode::"KeyMode", store_order_id, external_order_id, delivery_id, $8 FROM input ORDER BY n
         ON CONFLICT DO NOTHING
         RETURNING connection_id, store_order_id, delivery_id, order_id, skipped
       )
       SELECT i.n::int AS n, coalesce(ins.delivery_id, so.delivery_id) AS delivery_id,
         coalesce(ins.order_id, so.order_id) AS order_id, coalesce(ins.skipped, so.skipped) AS skipped
       FROM input i
       LEFT JOIN ins ON ins.connection_id = i.connection_id AND ins.store_order_id = i.store_order_id
       LEFT JOIN store_orders so ON ins.delivery_id IS NULL
         AND ((so.connection_id = i.connection_id AND so.store_order_id = i.store_order_id)
           OR (so.merchant_id = i.merchant_id AND so.mode = i.mode::"KeyMode" AND so.external_order_id = i.external_order_id))
       ORDER BY i.n`,
      [
        claims.map(() => newId()), claims.map((c) => c.connectionId), claims.map((c) => c.merchantId), claims.map((c) => c.mode),
        claims.map((c) => c.storeOrderId), claims.map((c) => c.externalOrderId), claims.map((c) => c.deliveryId), now,
      ],
    );
    const byInput = new Map<number, (typeof rows)[number]>();
    for (const row of rows) if (!byInput.has(row.n)) byInput.set(row.n, row);
    return claims.map((claim, index) => {
      const row = byInput.get(index + 1);
      // Same store order twice in one batch: the first one claimed it (not visible to the statement's own join).
      if (!row || !row.delivery_id) return { claimed: false as const, orderId: null, skipped: null };
      if (row.delivery_id === claim.deliveryId) return { claimed: true as const };
      return { claimed: false as const, orderId: row.order_id, skipped: row.skipped };
    });
  }

  /**
   * The outcomes of a batch of store orders in one statement: each store order's order or skip reason, the
   * connections' last order time and the activity entries.
   */
  async recordIntake(
    results: { connectionId: string; storeOrderId: string | null; orderId: string | null; skipped: string | null; kind: string; detail: object }[],
    now: Date,
  ): Promise<void> {
    if (results.length === 0) return;
    await this.pool.query(
      `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::text[], $6::text[], $7::jsonb[], $8::boolean[])
           AS i(activity_id, connection_id, store_order_id, order_id, skipped, kind, detail, owns)
       ), linked AS (
         UPDATE store_orders so SET order_id = coalesce(i.order_id, so.order_id), skipped = coalesce(i.skipped, so.skipped)
         FROM input i WHERE i.owns AND so.connection_id = i.connection_id AND so.store_order_id = i.store_order_id
         RETURNING 1
       ), touched AS (
         UPDATE store_connections c SET last_order_at = $9
         WHERE c.id IN (SELECT connection_id FROM input WHERE owns AND order_id IS NOT NULL)
         RETURNING 1
       )
       INSERT INTO store_activity (id, connection_id, at, kind, store_order_id, order_id, detail)
       SELECT activity_id, connection_id, $9, kind, store_order_id, order_id, detail FROM input`,
      [
        results.map(() => newId()), results.map((r) => r.connectionId), results.map((r) => r.storeOrderId), results.map((r) => r.orderId),
        results.map((r) => r.skipped), results.map((r) => r.kind), results.map((r) => JSON.stringify(r.detail)),
        results.map((r) => r.kind !== "order_skipped" || r.skipped !== "duplicate"), now,
      ],
    );
  }

  async deliveriesDone(done: { id: string; connectionId: string | null }[], now: Date): Promise<void> {
    if (done.length === 0) return;
    await this.pool.query(
      `UPDATE store_deliveries d SET status = 'done', payload = NULL, lease_until = NULL, processed_at = $3, connection_id = i.connection_id
       FROM unnest($1::uuid[], $2::uuid[]) AS i(id, connection_id) WHERE d.id = i.id`,
      [done.map((d) => d.id), done.map((d) => d.connectionId), now],
    );
  }

  /** A write-back for an order whose state change wrote no event (a send that failed at creation). */
  async enqueueWriteback(connectionId: string, orderId: string, storeOrderId: string, outcome: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO store_writebacks (id, connection_id, order_id, store_order_id, outcome, status, next_attempt_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'pending', now(), now(), now()) ON CONFLICT (order_id, outcome) DO NOTHING`,
      [newId(), connectionId, orderId, storeOrderId, outcome],
    );
  }

  // --- write-backs -------------------------------------------------------------------------------------------

  async claimWritebacks(limit: number, leaseMs: number, perConnection = 1): Promise<ClaimedWriteback[]> {
    // A checked-out client's errors (the server ending the connection mid-transaction) must not crash the process.
    return withCheckedOutClient(this.pool, async (client) => {
    try {
      await client.query("BEGIN");
      // Claims of all instances one after the other (see CLAIM_WRITEBACKS_SQL).
      await client.query("SELECT pg_advisory_xact_lock(722022)");
      const { rows } = await client.query<{
        id: string; connection_id: string; order_id: string; store_order_id: string; outcome: string; done_effects: string[];
        attempt_count: number; lease_until: Date; held: boolean; sequence: string;
      }>(CLAIM_WRITEBACKS_SQL, [limit, leaseMs, perConnection]);
      await client.query("COMMIT");
      rows.sort((a, b) => (BigInt(a.sequence) < BigInt(b.sequence) ? -1 : 1));
      return rows.map((row) => ({
        id: row.id, connectionId: row.connection_id, orderId: row.order_id, storeOrderId: row.store_order_id, outcome: row.outcome,
        doneEffects: row.done_effects, attemptCount: row.attempt_count, held: row.held, leaseUntil: row.lease_until,
      }));
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
    });
  }

  /** Records an effect as applied (while the lease is ours), so a retry after a crash does not apply it again. */
  async effectDone(id: string, effect: string, leaseUntil: Date): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE store_writebacks SET done_effects = array_append(done_effects, $2), updated_at = now()
       WHERE id = $1 AND status = 'pending' AND lease_until = $3 AND NOT ($2 = ANY(done_effects))`,
      [id, effect, leaseUntil],
    );
    return rowCount === 1;
  }

  async writebackFinished(id: string, status: "succeeded" | "failed", error: string | null, leaseUntil: Date): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE store_writebacks SET status = $2, last_error = $3, lease_until = NULL, attempt_count = attempt_count + 1, updated_at = now()
       WHERE id = $1 AND status = 'pending' AND lease_until = $4`,
      [id, status, error, leaseUntil],
    );
    return rowCount === 1;
  }

  /**
   * The last effect went through: recorded with the outcome and its activity entry in one statement (the usual
   * write-back is a single tag, so this is its only write after the call).
   */
  async writebackSucceeded(
    writeback: { id: string; connectionId: string; orderId: string; storeOrderId: string; outcome: string; leaseUntil: Date },
    lastEffect: string | null,
    effects: string[],
    now: Date,
  ): Promise<boolean> {
    const { rows } = await this.pool.query<{ kept: boolean }>(
      `WITH done AS (
         UPDATE store_writebacks SET status = 'succeeded', lease_until = NULL, attempt_count = attempt_count + 1, updated_at = now(),
           done_effects = CASE WHEN $2::text IS NULL OR $2 = ANY(done_effects) THEN done_effects ELSE array_append(done_effects, $2) END
         WHERE id = $1 AND status = 'pending' AND lease_until = $3
         RETURNING id
       ), logged AS (
         INSERT INTO store_activity (id, connection_id, at, kind, store_order_id, order_id, detail)
         SELECT $4, $5, $6, 'writeback_succeeded', $7, $8, $9::jsonb FROM done WHERE cardinality($10::text[]) > 0
       )
       SELECT EXISTS (SELECT 1 FROM done) AS kept`,
      [
        writeback.id, lastEffect, writeback.leaseUntil, newId(), writeback.connectionId, now, writeback.storeOrderId, writeback.orderId,
        JSON.stringify({ outcome: writeback.outcome, effects }), effects,
      ],
    );
    return rows[0]?.kept ?? false;
  }

  async writebackRetry(id: string, delayMs: number, error: string, countAttempt: boolean, leaseUntil: Date): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE store_writebacks SET lease_until = NULL, last_error = $3, attempt_count = attempt_count + $4::int,
         next_attempt_at = now() + $2::float8 * interval '1 millisecond', updated_at = now()
       WHERE id = $1 AND status = 'pending' AND lease_until = $5`,
      [id, delayMs, error, countAttempt ? 1 : 0, leaseUntil],
    );
    return rowCount === 1;
  }

  /** Extends a claimed write-back's lease before it is made (later ones of a chain); null when it is no longer ours. */
  async renewWriteback(id: string, leaseUntil: Date, leaseMs: number): Promise<Date | null> {
    const { rows } = await this.pool.query<{ lease_until: Date }>(
      `UPDATE store_writebacks SET lease_until = now() + $3::float8 * interval '1 millisecond'
       WHERE id = $1 AND status = 'pending' AND lease_until = $2 RETURNING lease_until`,
      [id, leaseUntil, leaseMs],
    );
    return rows[0]?.lease_until ?? null;
  }

  async releaseWriteback(id: string, leaseUntil: Date): Promise<void> {
    await this.pool.query("UPDATE store_writebacks SET lease_until = NULL WHERE id = $1 AND lease_until = $2", [id, leaseUntil]);
  }

  // --- personal data -----------------------------------------------------------------------------------------

  /**
   * Erases the customer's personal data from our orders that came from this connection (Shopify's
   * customers/redact and shop/redact): name, phone, address and note on the order, and the same fields in its
   * stored events. `storeOrderIds` null: every order of the connection. updatedAt is left alone: for an answered
   * order it is the answer's time, which the statistics read.
   */
  async redact(connectionId: string, storeOrderIds: string[] | null, phones: string[]): Promise<number> {
    const { rows } = await this.pool.query<{ count: number }>(
      `WITH targets AS (
         SELECT o.id FROM store_orders so
         JOIN orders o ON o.merchant_id = so.merchant_id AND o.mode = so.mode AND o.external_order_id = so.external_order_id
         WHERE so.connection_id = $1 AND ($2::text[] IS NULL OR so.store_order_id = ANY($2::text[]) OR o.customer_phone = ANY($3::text[]))
       ), orders_done AS (
         UPDATE orders o SET customer_name = 'Redacted', customer_phone = '0', customer_address = NULL, note = NULL
         FROM targets WHERE o.id = targets.id
         RETURNING o.id
       ), events_done AS (
         UPDATE order_events e SET payload = (e.payload::jsonb
           #- '{data,customerName}' #- '{data,customerPhone}' #- '{data,customerAddress}')::json
         FROM targets WHERE e.order_id = targets.id
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM orders_done)::int AS count, (SELECT count(*) FROM events_done)::int AS events`,
      [connectionId, storeOrderIds, phones],
    );
    return rows[0]?.count ?? 0;
  }
}
