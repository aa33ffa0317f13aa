-- Maintained counts of the visible orders (send_state <> 'sending') per merchant, mode and status, so GraphQL's
-- OrderConnection.totalCount of an unfiltered or status-filtered list is one read of a few rows instead of a count(*)
-- over every order of the merchant (bench/scale.ts: 1,000,000 orders took tens of ms per count, growing with the
-- merchant). Kept by statement-level triggers on `orders`, so every write (the create path's statements, Prisma's
-- updates, set-based batches, the abandoned-send sweep, a merchant's deletion) changes the counts in its own
-- transaction, whoever wrote it; a rolled-back change rolls its counts back with it.
--
-- Concurrency: each count is spread over up to 256 slots and a writer adds to the slot of its database session
-- (pg_backend_pid() % 256), so concurrent creates of one merchant do not queue on one row until they commit (a pool's
-- connections get nearby process ids, so they rarely share a slot; with 16 slots a pool of 20 shared some, which cost
-- the create path about 10 % of its throughput in bench:rest). Only the
-- sum over a key's slots means something (a slot may go negative when an order is counted in one and leaves its
-- status in another). Each statement upserts its deltas sorted by key, so two statements never take the same rows
-- in opposite orders.
--
-- No index is added for the filtered lists: at 1,000,000 orders their plans (printed by bench:scale) are index
-- scans of the existing orders (merchant_id, mode, status, created_at, id) and (merchant_id, mode, customer_phone,
-- created_at) indexes, and the date range is a range of the former.

-- CreateTable
CREATE TABLE "order_counts" (
    "merchant_id" UUID NOT NULL,
    "mode" "KeyMode" NOT NULL,
    "status" "OrderStatus" NOT NULL,
    "slot" SMALLINT NOT NULL,
    "count" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "order_counts_pkey" PRIMARY KEY ("merchant_id","mode","status","slot")
);

-- AddForeignKey
ALTER TABLE "order_counts" ADD CONSTRAINT "order_counts_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- One function for the three triggers (a trigger with transition tables has a single event).
CREATE FUNCTION order_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  my_slot smallint := pg_backend_pid() % 256;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO order_counts AS c (merchant_id, mode, status, slot, count)
    SELECT n.merchant_id, n.mode, n.status, my_slot, count(*)
    FROM new_orders n WHERE n.send_state <> 'sending'
    GROUP BY n.merchant_id, n.mode, n.status ORDER BY 1, 2, 3
    ON CONFLICT (merchant_id, mode, status, slot) DO UPDATE SET count = c.count + EXCLUDED.count;
  ELSIF TG_OP = 'UPDATE' THEN
    -- Most updates (delivery receipts, updated_at) change no count: nothing is written for them, no row locked.
    INSERT INTO order_counts AS c (merchant_id, mode, status, slot, count)
    SELECT d.merchant_id, d.mode, d.status, my_slot, sum(d.delta)
    FROM (
      SELECT o.merchant_id, o.mode, o.status, -1 AS delta FROM old_orders o WHERE o.send_state <> 'sending'
      UNION ALL
      SELECT n.merchant_id, n.mode, n.status, 1 FROM new_orders n WHERE n.send_state <> 'sending'
    ) d
    GROUP BY d.merchant_id, d.mode, d.status HAVING sum(d.delta) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (merchant_id, mode, status, slot) DO UPDATE SET count = c.count + EXCLUDED.count;
  ELSE
    -- A merchant's deletion cascades to its orders and its counts: there is nothing left to count then.
    INSERT INTO order_counts AS c (merchant_id, mode, status, slot, count)
    SELECT o.merchant_id, o.mode, o.status, my_slot, -count(*)
    FROM old_orders o WHERE o.send_state <> 'sending' AND EXISTS (SELECT 1 FROM merchants m WHERE m.id = o.merchant_id)
    GROUP BY o.merchant_id, o.mode, o.status ORDER BY 1, 2, 3
    ON CONFLICT (merchant_id, mode, status, slot) DO UPDATE SET count = c.count + EXCLUDED.count;
  END IF;
  RETURN NULL;
END
$$;

-- The triggers first: creating them locks `orders` against writes until this migration commits, so the counts
-- below are of a table nobody changes meanwhile, and every later change goes through the triggers.
CREATE TRIGGER order_counts_insert AFTER INSERT ON "orders"
  REFERENCING NEW TABLE AS new_orders FOR EACH STATEMENT EXECUTE FUNCTION order_counts_apply();
CREATE TRIGGER order_counts_update AFTER UPDATE ON "orders"
  REFERENCING OLD TABLE AS old_orders NEW TABLE AS new_orders FOR EACH STATEMENT EXECUTE FUNCTION order_counts_apply();
CREATE TRIGGER order_counts_delete AFTER DELETE ON "orders"
  REFERENCING OLD TABLE AS old_orders FOR EACH STATEMENT EXECUTE FUNCTION order_counts_apply();

INSERT INTO order_counts (merchant_id, mode, status, slot, count)
SELECT merchant_id, mode, status, 0, count(*) FROM orders WHERE send_state <> 'sending' GROUP BY merchant_id, mode, status;
