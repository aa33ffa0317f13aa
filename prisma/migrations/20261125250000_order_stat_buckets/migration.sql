-- Pre-aggregated order statistics (issue 25, docs/statistics.md): per merchant, mode and UTC bucket of 15 minutes,
-- 1 hour and 1 day (`span`, in minutes), the figures of the orders *created* in the bucket: how many were created,
-- how many are confirmed / canceled / failed / expired now (pending is the rest), how many were answered, a
-- histogram of their times to answer, and the failures per error code. orderStats reads a few rows per bucket of
-- its answer (a local day is UTC days plus a few hours and quarters, added or subtracted), not every order.
--
-- Kept exactly by triggers, in the transaction of every change, whoever makes it (the service's transitions, set-based
-- batches, sweeps, imports, a hand-written UPDATE): every figure of an order is a function of its row (status,
-- error_code, created_at, updated_at, send_state) and of its first `canceled` timeline step (who canceled: only a
-- customer's cancel is an answer); a trigger on each of the two tables adds the change of that function's value.
-- The create path's two statements keep the figures themselves and make the trigger skip them, like the counts
-- (migration 20261124230000_create_path_counts): the acceptance adds `created` to three rows in its own statement.
--
-- Concurrency: like order_counts, each key is spread over 256 slots (the writing session's backend pid modulo 256,
-- the same slot as its counts, so the figures add no lock conflict the counts do not have); only the sum over a
-- key's slots means something. Each statement upserts its rows sorted by key.
--
-- The histogram is one exact integer (numeric) with 9 decimal digits per bin: bin k counts at 10^(9k), so adding
-- two histograms is adding two numbers, which PostgreSQL's sum() does exactly. Bin 0 holds answers under 1 ms, bin
-- k ≥ 1 answers in [1.04^(k-1), 1.04^k) ms, up to bin 700 (≈ 25 years). A percentile read back from the bins is
-- within 1.96 % of the exact value (src/domain/stats/answer-histogram.ts).

CREATE TABLE "order_stat_buckets" (
    "merchant_id" UUID NOT NULL,
    "mode" "KeyMode" NOT NULL,
    "span" SMALLINT NOT NULL,
    "start" TIMESTAMPTZ(3) NOT NULL,
    "slot" SMALLINT NOT NULL,
    "created" INTEGER NOT NULL DEFAULT 0,
    "confirmed" INTEGER NOT NULL DEFAULT 0,
    "canceled" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "expired" INTEGER NOT NULL DEFAULT 0,
    "answered" INTEGER NOT NULL DEFAULT 0,
    "answer_histogram" NUMERIC NOT NULL DEFAULT 0,

    CONSTRAINT "order_stat_buckets_pkey" PRIMARY KEY ("merchant_id","mode","span","start","slot")
);

-- error_code -1: failed without a provider code (orders.error_code null).
CREATE TABLE "order_stat_failures" (
    "merchant_id" UUID NOT NULL,
    "mode" "KeyMode" NOT NULL,
    "span" SMALLINT NOT NULL,
    "start" TIMESTAMPTZ(3) NOT NULL,
    "error_code" INTEGER NOT NULL,
    "slot" SMALLINT NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "order_stat_failures_pkey" PRIMARY KEY ("merchant_id","mode","span","start","error_code","slot")
);

ALTER TABLE "order_stat_buckets" ADD CONSTRAINT "order_stat_buckets_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "order_stat_failures" ADD CONSTRAINT "order_stat_failures_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The histogram bin of an answer time in milliseconds (see above).
CREATE FUNCTION order_stats_bin(ms double precision) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN ms < 1 THEN 0 ELSE least(floor(ln(ms) / ln(1.04::float8))::integer + 1, 700) END
$$;

-- One answer as a histogram: 10^(9 × its bin).
CREATE FUNCTION order_stats_histogram(created_at timestamptz, updated_at timestamptz) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ('1' || repeat('0', 9 * order_stats_bin(extract(epoch FROM updated_at - created_at)::float8 * 1000)))::numeric
$$;

-- Whether an order in `status` counts as answered (src/domain/stats/order-stats.ts): a confirmation always; a cancel
-- when its first `canceled` step is the customer's, or when it has none (orders from before the timeline). The answer's
-- time is the order's updated_at.
CREATE FUNCTION order_stats_answered(order_id uuid, status "OrderStatus") RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT CASE status WHEN 'confirmed' THEN true WHEN 'canceled' THEN coalesce(
    (SELECT t.source = 'customer' FROM order_timeline t WHERE t.order_id = $1 AND t.kind = 'canceled' ORDER BY t.id LIMIT 1),
    true) ELSE false END
$$;

-- Adds one order's figures (sign +1 or -1) to its three buckets; `answer_only` moves only answered and the histogram.
CREATE FUNCTION order_stats_add_order(o orders, sign integer, answer_only boolean) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  my_slot smallint := pg_backend_pid() % 256;
  is_answered boolean := answer_only OR order_stats_answered(o.id, o.status);
BEGIN
  INSERT INTO order_stat_buckets AS b (merchant_id, mode, span, start, slot, created, confirmed, canceled, failed, expired,
    answered, answer_histogram)
  SELECT o.merchant_id, o.mode, level.span, date_bin(level.width, o.created_at, timestamptz '1970-01-01 00:00:00+00'),
    my_slot,
    CASE WHEN answer_only THEN 0 ELSE sign END,
    CASE WHEN NOT answer_only AND o.status = 'confirmed' THEN sign ELSE 0 END,
    CASE WHEN NOT answer_only AND o.status = 'canceled' THEN sign ELSE 0 END,
    CASE WHEN NOT answer_only AND o.status = 'failed' THEN sign ELSE 0 END,
    CASE WHEN NOT answer_only AND o.status = 'expired' THEN sign ELSE 0 END,
    CASE WHEN is_answered THEN sign ELSE 0 END,
    CASE WHEN is_answered THEN sign * order_stats_histogram(o.created_at, o.updated_at) ELSE 0 END
  FROM (VALUES (15::smallint, interval '15 minutes'), (60::smallint, interval '1 hour'), (1440::smallint, interval '1 day'))
    AS level(span, width)
  ORDER BY level.span
  ON CONFLICT (merchant_id, mode, span, start, slot) DO UPDATE SET created = b.created + EXCLUDED.created,
    confirmed = b.confirmed + EXCLUDED.confirmed, canceled = b.canceled + EXCLUDED.canceled,
    failed = b.failed + EXCLUDED.failed, expired = b.expired + EXCLUDED.expired, answered = b.answered + EXCLUDED.answered,
    answer_histogram = b.answer_histogram + EXCLUDED.answer_histogram;
  IF NOT answer_only AND o.status = 'failed' THEN
    INSERT INTO order_stat_failures AS f (merchant_id, mode, span, start, error_code, slot, count)
    SELECT o.merchant_id, o.mode, level.span, date_bin(level.width, o.created_at, timestamptz '1970-01-01 00:00:00+00'),
      coalesce(o.error_code, -1), my_slot, sign
    FROM (VALUES (15::smallint, interval '15 minutes'), (60::smallint, interval '1 hour'), (1440::smallint, interval '1 day'))
      AS level(span, width)
    ORDER BY level.span
    ON CONFLICT (merchant_id, mode, span, start, error_code, slot) DO UPDATE SET count = f.count + EXCLUDED.count;
  END IF;
END
$$;

-- Inserts and updates of `orders`, per statement: the figures of the new rows minus those of the old ones, grouped
-- per bucket; a statement that moves no figure (a delivery receipt, a reminder's bookkeeping) writes nothing.
CREATE FUNCTION order_stats_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  my_slot smallint := pg_backend_pid() % 256;
BEGIN
  -- The statement kept the figures itself (INSERT_SENDING_SQL, MARK_ACCEPTED_SQL in order.repository.ts): skip it, once.
  IF current_setting('ocs.order_stats', true) = 'kept' THEN
    PERFORM set_config('ocs.order_stats', '', true);
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    WITH changes AS MATERIALIZED (
      SELECT n.merchant_id, n.mode, n.created_at, 1 AS sign, n.status, n.error_code,
        order_stats_answered(n.id, n.status) AS answered,
        CASE WHEN n.status IN ('confirmed', 'canceled') THEN order_stats_histogram(n.created_at, n.updated_at) END AS histogram
      FROM new_orders n WHERE n.send_state <> 'sending'
    ), levels AS (
      SELECT * FROM (VALUES (15::smallint, interval '15 minutes'), (60::smallint, interval '1 hour'),
        (1440::smallint, interval '1 day')) AS level(span, width)
    ), figures AS (
      SELECT c.merchant_id, c.mode, l.span, date_bin(l.width, c.created_at, timestamptz '1970-01-01 00:00:00+00') AS start,
        sum(c.sign)::integer AS created,
        coalesce(sum(c.sign) FILTER (WHERE c.status = 'confirmed'), 0)::integer AS confirmed,
        coalesce(sum(c.sign) FILTER (WHERE c.status = 'canceled'), 0)::integer AS canceled,
        coalesce(sum(c.sign) FILTER (WHERE c.status = 'failed'), 0)::integer AS failed,
        coalesce(sum(c.sign) FILTER (WHERE c.status = 'expired'), 0)::integer AS expired,
        coalesce(sum(c.sign) FILTER (WHERE c.answered), 0)::integer AS answered,
        coalesce(sum(c.sign * c.histogram) FILTER (WHERE c.answered), 0) AS histogram
      FROM changes c CROSS JOIN levels l
      GROUP BY 1, 2, 3, 4
    ), written AS (
      INSERT INTO order_stat_buckets AS b (merchant_id, mode, span, start, slot, created, confirmed, canceled, failed,
        expired, answered, answer_histogram)
      SELECT merchant_id, mode, span, start, my_slot, created, confirmed, canceled, failed, expired, answered, histogram
      FROM figures
      WHERE created <> 0 OR confirmed <> 0 OR canceled <> 0 OR failed <> 0 OR expired <> 0 OR answered <> 0 OR histogram <> 0
      ORDER BY 1, 2, 3, 4
      ON CONFLICT (merchant_id, mode, span, start, slot) DO UPDATE SET created = b.created + EXCLUDED.created,
        confirmed = b.confirmed + EXCLUDED.confirmed, canceled = b.canceled + EXCLUDED.canceled,
        failed = b.failed + EXCLUDED.failed, expired = b.expired + EXCLUDED.expired,
        answered = b.answered + EXCLUDED.answered, answer_histogram = b.answer_histogram + EXCLUDED.answer_histogram
    )
    INSERT INTO order_stat_failures AS f (merchant_id, mode, span, start, error_code, slot, count)
    SELECT c.merchant_id, c.mode, l.span, date_bin(l.width, c.created_at, timestamptz '1970-01-01 00:00:00+00'),
      coalesce(c.error_code, -1), my_slot, sum(c.sign)::integer
    FROM changes c CROSS JOIN levels l
    WHERE c.status = 'failed'
    GROUP BY 1, 2, 3, 4, 5 HAVING sum(c.sign) <> 0
    ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (merchant_id, mode, span, start, error_code, slot) DO UPDATE SET count = f.count + EXCLUDED.count;
  ELSE
    WITH changes AS MATERIALIZED (
      SELECT o.merchant_id, o.mode, o.created_at, -1 AS sign, o.status, o.error_code,
        order_stats_answered(o.id, o.status) AS answered,
        CASE WHEN o.status IN ('confirmed', 'canceled') THEN order_stats_histogram(o.created_at, o.updated_at) END AS histogram
      FROM old_orders o WHERE o.send_state <> 'sending'
      UNION ALL
      SELECT n.merchant_id, n.mode, n.created_at, 1 AS sign, n.status, n.error_code,
        order_stats_answered(n.id, n.status) AS answered,
        CASE WHEN n.status IN ('confirmed', 'canceled') THEN order_stats_histogram(n.created_at, n.updated_at) END AS histogram
      FROM new_orders n WHERE n.send_state <> 'sending'
    ), levels AS (
      SELECT * FROM (VALUES (15::smallint, interval '15 minutes'), (60::smallint, interval '1 hour'),
        (1440::smallint, interval '1 day')) AS level(span, width)
    ), figures AS (
      SELECT c.merchant_id, c.mode, l.span, date_bin(l.width, c.created_at, timestamptz '1970-01-01 00:00:00+00') AS start,
        sum(c.sign)::integer AS created,
        coalesce(sum(c.sign) FILTER (WHERE c.status = 'confirmed'), 0)::integer AS confirmed,
        coalesce(sum(c.sign) FILTER (WHERE c.status = 'canceled'), 0)::integer AS canceled,
        coalesce(sum(c.sign) FILTER (WHERE c.status = 'failed'), 0)::integer AS failed,
        coalesce(sum(c.sign) FILTER (WHERE c.status = 'expired'), 0)::integer AS expired,
        coalesce(sum(c.sign) FILTER (WHERE c.answered), 0)::integer AS answered,
        coalesce(sum(c.sign * c.histogram) FILTER (WHERE c.answered), 0) AS histogram
      FROM changes c CROSS JOIN levels l
      GROUP BY 1, 2, 3, 4
    ), written AS (
      INSERT INTO order_stat_buckets AS b (merchant_id, mode, span, start, slot, created, confirmed, canceled, failed,
        expired, answered, answer_histogram)
      SELECT merchant_id, mode, span, start, my_slot, created, confirmed, canceled, failed, expired, answered, histogram
      FROM figures
      WHERE created <> 0 OR confirmed <> 0 OR canceled <> 0 OR failed <> 0 OR expired <> 0 OR answered <> 0 OR histogram <> 0
      ORDER BY 1, 2, 3, 4
      ON CONFLICT (merchant_id, mode, span, start, slot) DO UPDATE SET created = b.created + EXCLUDED.created,
        confirmed = b.confirmed + EXCLUDED.confirmed, canceled = b.canceled + EXCLUDED.canceled,
        failed = b.failed + EXCLUDED.failed, expired = b.expired + EXCLUDED.expired,
        answered = b.answered + EXCLUDED.answered, answer_histogram = b.answer_histogram + EXCLUDED.answer_histogram
    )
    INSERT INTO order_stat_failures AS f (merchant_id, mode, span, start, error_code, slot, count)
    SELECT c.merchant_id, c.mode, l.span, date_bin(l.width, c.created_at, timestamptz '1970-01-01 00:00:00+00'),
      coalesce(c.error_code, -1), my_slot, sum(c.sign)::integer
    FROM changes c CROSS JOIN levels l
    WHERE c.status = 'failed'
    GROUP BY 1, 2, 3, 4, 5 HAVING sum(c.sign) <> 0
    ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (merchant_id, mode, span, start, error_code, slot) DO UPDATE SET count = f.count + EXCLUDED.count;
  END IF;
  RETURN NULL;
END
$$;

-- Deletions, per row and before the row goes: its timeline (who canceled it) is still there, which it is not once
-- the deletion has cascaded. A merchant's deletion cascades to its figures as well: nothing to subtract then.
CREATE FUNCTION order_stats_forget() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.send_state <> 'sending' AND EXISTS (SELECT 1 FROM merchants m WHERE m.id = OLD.merchant_id) THEN
    PERFORM order_stats_add_order(OLD, -1, false);
  END IF;
  RETURN OLD;
END
$$;

-- A `canceled` step that becomes (or stops being) a canceled order's first one changes whether the order counts as
-- answered (a customer's cancel is an answer, a merchant's is not, no step at all counts as an answer). Steps are
-- appended (a new step's id is above its order's earlier ones: the order's row lock orders its changes), so an
-- inserted step is the first when no earlier one exists, and before it the order had none.
-- A step written by the same statement as the order's row (one INSERT … WITH of both, as bench/stats-seed.ts does)
-- changes nothing here: the orders trigger of that statement counts the order with the step already in place,
-- whichever of the two triggers fires first.
CREATE FUNCTION order_stats_cancel_step() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  step order_timeline;
  o orders;
  order_version text;
  was_answer boolean;
  is_answer boolean;
BEGIN
  IF TG_OP = 'INSERT' THEN step := NEW; ELSE step := OLD; END IF;
  IF EXISTS (SELECT 1 FROM order_timeline t WHERE t.order_id = step.order_id AND t.kind = 'canceled' AND t.id < step.id) THEN
    RETURN step;
  END IF;
  SELECT * INTO o FROM orders WHERE id = step.order_id;
  IF NOT FOUND OR o.send_state = 'sending' OR o.status <> 'canceled' THEN
    RETURN step;
  END IF;
  IF TG_OP = 'INSERT' THEN
    SELECT xmin::text || '/' || cmin::text INTO order_version FROM orders WHERE id = step.order_id;
    IF EXISTS (SELECT 1 FROM order_timeline t WHERE t.id = NEW.id AND xmin::text || '/' || cmin::text = order_version) THEN
      RETURN step;
    END IF;
  END IF;
  IF TG_OP = 'INSERT' THEN
    was_answer := true;
    is_answer := NEW.source = 'customer';
  ELSE
    was_answer := OLD.source = 'customer';
    is_answer := coalesce((SELECT t.source = 'customer' FROM order_timeline t
      WHERE t.order_id = OLD.order_id AND t.kind = 'canceled' AND t.id > OLD.id ORDER BY t.id LIMIT 1), true);
  END IF;
  IF was_answer <> is_answer THEN
    PERFORM order_stats_add_order(o, CASE WHEN is_answer THEN 1 ELSE -1 END, true);
  END IF;
  RETURN step;
END
$$;

-- The triggers first: creating them locks `orders` and `order_timeline` against writes until this migration commits,
-- so the backfill below reads tables nobody changes meanwhile, and every later change goes through the triggers.
CREATE TRIGGER order_stats_insert AFTER INSERT ON "orders"
  REFERENCING NEW TABLE AS new_orders FOR EACH STATEMENT EXECUTE FUNCTION order_stats_apply();
CREATE TRIGGER order_stats_update AFTER UPDATE ON "orders"
  REFERENCING OLD TABLE AS old_orders NEW TABLE AS new_orders FOR EACH STATEMENT EXECUTE FUNCTION order_stats_apply();
CREATE TRIGGER order_stats_delete BEFORE DELETE ON "orders"
  FOR EACH ROW EXECUTE FUNCTION order_stats_forget();
CREATE TRIGGER order_stats_cancel_step_insert AFTER INSERT ON "order_timeline"
  FOR EACH ROW WHEN (NEW.kind = 'canceled') EXECUTE FUNCTION order_stats_cancel_step();
CREATE TRIGGER order_stats_cancel_step_delete BEFORE DELETE ON "order_timeline"
  FOR EACH ROW WHEN (OLD.kind = 'canceled') EXECUTE FUNCTION order_stats_cancel_step();

-- Backfill: the figures of every visible order, in slot 0.
INSERT INTO order_stat_buckets (merchant_id, mode, span, start, slot, created, confirmed, canceled, failed, expired,
  answered, answer_histogram)
SELECT o.merchant_id, o.mode, l.span, date_bin(l.width, o.created_at, timestamptz '1970-01-01 00:00:00+00'), 0,
  count(*), count(*) FILTER (WHERE o.status = 'confirmed'), count(*) FILTER (WHERE o.status = 'canceled'),
  count(*) FILTER (WHERE o.status = 'failed'), count(*) FILTER (WHERE o.status = 'expired'),
  count(*) FILTER (WHERE a.answered),
  coalesce(sum(order_stats_histogram(o.created_at, o.updated_at)) FILTER (WHERE a.answered), 0)
FROM orders o
CROSS JOIN LATERAL (SELECT order_stats_answered(o.id, o.status) AS answered) a
CROSS JOIN (VALUES (15::smallint, interval '15 minutes'), (60::smallint, interval '1 hour'), (1440::smallint, interval '1 day'))
  AS l(span, width)
WHERE o.send_state <> 'sending'
GROUP BY 1, 2, 3, 4;

INSERT INTO order_stat_failures (merchant_id, mode, span, start, error_code, slot, count)
SELECT o.merchant_id, o.mode, l.span, date_bin(l.width, o.created_at, timestamptz '1970-01-01 00:00:00+00'),
  coalesce(o.error_code, -1), 0, count(*)
FROM orders o
CROSS JOIN (VALUES (15::smallint, interval '15 minutes'), (60::smallint, interval '1 hour'), (1440::smallint, interval '1 day'))
  AS l(span, width)
WHERE o.send_state <> 'sending' AND o.status = 'failed'
GROUP BY 1, 2, 3, 4, 5;
