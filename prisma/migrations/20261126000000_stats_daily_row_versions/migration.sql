-- The statistics cache (src/domain/stats/stat-bucket-cache.ts, docs/statistics.md) trusts a UTC day's cached answers
-- while the day's own rows (span 1440) keep their row versions. Every writer writes a day's row with its finer rows,
-- except one case of the statement trigger: a statement whose changes net to zero over a day but not over its hours or
-- quarters (one UPDATE moving an order within a day, or swapping two orders' statuses or error codes) wrote the hour
-- and quarter rows and left the day's row alone. From now on the day's row is written (adding zero) whenever anything
-- of its day moved, at any level, in either table. Statements that move no figure still write nothing.

CREATE OR REPLACE FUNCTION order_stats_apply() RETURNS trigger LANGUAGE plpgsql AS $$
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
    ), failure_figures AS (
      SELECT c.merchant_id, c.mode, l.span, date_bin(l.width, c.created_at, timestamptz '1970-01-01 00:00:00+00') AS start,
        coalesce(c.error_code, -1) AS error_code, sum(c.sign)::integer AS count
      FROM changes c CROSS JOIN levels l
      WHERE c.status = 'failed'
      GROUP BY 1, 2, 3, 4, 5 HAVING sum(c.sign) <> 0
    ), moved_days AS (
      -- The UTC days in which any figure moved, at any level, in either table.
      SELECT merchant_id, mode, date_bin(interval '1 day', start, timestamptz '1970-01-01 00:00:00+00') AS day FROM figures
      WHERE created <> 0 OR confirmed <> 0 OR canceled <> 0 OR failed <> 0 OR expired <> 0 OR answered <> 0 OR histogram <> 0
      UNION
      SELECT merchant_id, mode, date_bin(interval '1 day', start, timestamptz '1970-01-01 00:00:00+00') FROM failure_figures
    ), written AS (
      INSERT INTO order_stat_buckets AS b (merchant_id, mode, span, start, slot, created, confirmed, canceled, failed,
        expired, answered, answer_histogram)
      SELECT merchant_id, mode, span, start, my_slot, created, confirmed, canceled, failed, expired, answered, histogram
      FROM figures f
      WHERE created <> 0 OR confirmed <> 0 OR canceled <> 0 OR failed <> 0 OR expired <> 0 OR answered <> 0 OR histogram <> 0
        -- A day's own row is written whenever anything of the day moved, even when its figures net to zero.
        OR (span = 1440 AND EXISTS (SELECT 1 FROM moved_days d WHERE d.merchant_id = f.merchant_id AND d.mode = f.mode AND d.day = f.start))
      ORDER BY 1, 2, 3, 4
      ON CONFLICT (merchant_id, mode, span, start, slot) DO UPDATE SET created = b.created + EXCLUDED.created,
        confirmed = b.confirmed + EXCLUDED.confirmed, canceled = b.canceled + EXCLUDED.canceled,
        failed = b.failed + EXCLUDED.failed, expired = b.expired + EXCLUDED.expired,
        answered = b.answered + EXCLUDED.answered, answer_histogram = b.answer_histogram + EXCLUDED.answer_histogram
    )
    INSERT INTO order_stat_failures AS f (merchant_id, mode, span, start, error_code, slot, count)
    SELECT merchant_id, mode, span, start, error_code, my_slot, count FROM failure_figures
    ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (merchant_id, mode, span, start, error_code, slot) DO UPDATE SET count = f.count + EXCLUDED.count;
  END IF;
  RETURN NULL;
END
$$;
