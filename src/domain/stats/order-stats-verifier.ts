import type pg from "pg";

/**
 * `ocs stats verify` (docs/statistics.md): compares a merchant's pre-aggregated statistics (every bucket of every
 * level, both modes) with the same figures computed from its orders, and with `repair` adds the difference.
 *
 * Safe while the service runs: the exact figures and the stored ones are read by one statement, so from one snapshot
 * (every committed change moved both together); the repair *adds* the difference in that same statement (an upsert
 * that adds to the row as it is then), so a change committed meanwhile keeps its own contribution. Work: one pass
 * over the merchant's orders (seconds for a million).
 */
const LEVELS = `(VALUES (15::smallint, interval '15 minutes'), (60::smallint, interval '1 hour'), (1440::smallint, interval '1 day'))
  AS l(span, width)`;
const BIN = `date_bin(l.width, o.created_at, timestamptz '1970-01-01 00:00:00+00')`;

const DIFFERENCES = `
  exact AS (
    SELECT o.mode, l.span, ${BIN} AS start, count(*)::int AS created,
      count(*) FILTER (WHERE o.status = 'confirmed')::int AS confirmed, count(*) FILTER (WHERE o.status = 'canceled')::int AS canceled,
      count(*) FILTER (WHERE o.status = 'failed')::int AS failed, count(*) FILTER (WHERE o.status = 'expired')::int AS expired,
      count(*) FILTER (WHERE a.answered)::int AS answered,
      coalesce(sum(order_stats_histogram(o.created_at, o.updated_at)) FILTER (WHERE a.answered), 0) AS histogram
    FROM orders o CROSS JOIN LATERAL (SELECT order_stats_answered(o.id, o.status) AS answered) a CROSS JOIN ${LEVELS}
    WHERE o.merchant_id = $1::uuid AND o.send_state <> 'sending'
    GROUP BY 1, 2, 3
  ), stored AS (
    SELECT mode, span, start, sum(created)::int AS created, sum(confirmed)::int AS confirmed, sum(canceled)::int AS canceled,
      sum(failed)::int AS failed, sum(expired)::int AS expired, sum(answered)::int AS answered, sum(answer_histogram) AS histogram
    FROM order_stat_buckets WHERE merchant_id = $1::uuid GROUP BY 1, 2, 3
  ), compared AS (
    SELECT coalesce(e.mode, s.mode) AS mode, coalesce(e.span, s.span) AS span, coalesce(e.start, s.start) AS start,
      coalesce(e.created, 0) - coalesce(s.created, 0) AS created, coalesce(e.confirmed, 0) - coalesce(s.confirmed, 0) AS confirmed,
      coalesce(e.canceled, 0) - coalesce(s.canceled, 0) AS canceled, coalesce(e.failed, 0) - coalesce(s.failed, 0) AS failed,
      coalesce(e.expired, 0) - coalesce(s.expired, 0) AS expired, coalesce(e.answered, 0) - coalesce(s.answered, 0) AS answered,
      coalesce(e.histogram, 0) - coalesce(s.histogram, 0) AS histogram
    FROM exact e FULL JOIN stored s ON s.mode = e.mode AND s.span = e.span AND s.start = e.start
  ), wrong AS (
    SELECT * FROM compared
    WHERE created <> 0 OR confirmed <> 0 OR canceled <> 0 OR failed <> 0 OR expired <> 0 OR answered <> 0 OR histogram <> 0
  ), exact_failures AS (
    SELECT o.mode, l.span, ${BIN} AS start, coalesce(o.error_code, -1) AS error_code, count(*)::int AS count
    FROM orders o CROSS JOIN ${LEVELS}
    WHERE o.merchant_id = $1::uuid AND o.send_state <> 'sending' AND o.status = 'failed'
    GROUP BY 1, 2, 3, 4
  ), stored_failures AS (
    SELECT mode, span, start, error_code, sum(count)::int AS count FROM order_stat_failures WHERE merchant_id = $1::uuid GROUP BY 1, 2, 3, 4
  ), wrong_failures AS (
    SELECT coalesce(e.mode, s.mode) AS mode, coalesce(e.span, s.span) AS span, coalesce(e.start, s.start) AS start,
      coalesce(e.error_code, s.error_code) AS error_code, coalesce(e.count, 0) - coalesce(s.count, 0) AS count
    FROM exact_failures e
    FULL JOIN stored_failures s ON s.mode = e.mode AND s.span = e.span AND s.start = e.start AND s.error_code = e.error_code
    WHERE coalesce(e.count, 0) <> coalesce(s.count, 0)
  )`;

const DAY_OF = "date_bin(interval '1 day', start, timestamptz '1970-01-01 00:00:00+00')";
const REPAIRS = `,
  repairs AS (
    SELECT mode, span, start, sum(created)::int AS created, sum(confirmed)::int AS confirmed, sum(canceled)::int AS canceled,
      sum(failed)::int AS failed, sum(expired)::int AS expired, sum(answered)::int AS answered, sum(histogram) AS histogram
    FROM (
      SELECT mode, span, start, created, confirmed, canceled, failed, expired, answered, histogram FROM wrong
      UNION ALL
      -- The daily row of every day repaired is written even where its own figures were right: a new row version
      -- tells every instance's cache that answers read from that day must be read again (stat-bucket-cache.ts).
      SELECT mode, 1440::smallint, ${DAY_OF}, 0, 0, 0, 0, 0, 0, 0::numeric FROM wrong
      UNION ALL
      SELECT mode, 1440::smallint, ${DAY_OF}, 0, 0, 0, 0, 0, 0, 0::numeric FROM wrong_failures
    ) AS change
    GROUP BY mode, span, start
  ), repaired AS (
    INSERT INTO order_stat_buckets AS b (merchant_id, mode, span, start, slot, created, confirmed, canceled, failed, expired,
      answered, answer_histogram)
    SELECT $1::uuid, mode, span, start, 0, created, confirmed, canceled, failed, expired, answered, histogram FROM repairs
    ORDER BY mode, span, start
    ON CONFLICT (merchant_id, mode, span, start, slot) DO UPDATE SET created = b.created + EXCLUDED.created,
      confirmed = b.confirmed + EXCLUDED.confirmed, canceled = b.canceled + EXCLUDED.canceled,
      failed = b.failed + EXCLUDED.failed, expired = b.expired + EXCLUDED.expired, answered = b.answered + EXCLUDED.answered,
      answer_histogram = b.answer_histogram + EXCLUDED.answer_histogram
  ), repaired_failures AS (
    INSERT INTO order_stat_failures AS f (merchant_id, mode, span, start, error_code, slot, count)
    SELECT $1::uuid, mode, span, start, error_code, 0, count FROM wrong_failures
    ORDER BY mode, span, start, error_code
    ON CONFLICT (merchant_id, mode, span, start, error_code, slot) DO UPDATE SET count = f.count + EXCLUDED.count
  )`;

const REPORT = `
  SELECT 'bucket' AS kind, mode::text, span, to_char(start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS start,
    json_build_object('created', created, 'confirmed', confirmed, 'canceled', canceled, 'failed', failed, 'expired', expired,
      'answered', answered, 'answerHistogram', histogram <> 0) AS difference
  FROM wrong
  UNION ALL
  SELECT 'failures', mode::text, span, to_char(start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    json_build_object('errorCode', nullif(error_code, -1), 'count', count)
  FROM wrong_failures
  UNION ALL
  SELECT 'checked', NULL, NULL, NULL, json_build_object('buckets', (SELECT count(*) FROM compared))
  ORDER BY 1, 2, 3, 4`;

/** One bucket whose stored figures differ from the orders': exact minus stored, per figure. */
export interface StatsMismatch {
  kind: "bucket" | "failures";
  mode: "live" | "test";
  /** Minutes: 15, 60 or 1440. */
  span: number;
  start: string;
  difference: Record<string, number | boolean | null>;
}

export interface StatsVerification {
  merchantId: string;
  /** Bucket keys compared (every level, both modes). */
  checkedBuckets: number;
  mismatches: StatsMismatch[];
  /** The mismatches were added to the stored figures (only with `repair`). */
  repaired: boolean;
}

export class OrderStatsVerifier {
  constructor(private readonly pool: pg.Pool) {}

  async verify(merchantId: string, options: { repair: boolean }): Promise<StatsVerification> {
    const sql = `WITH ${DIFFERENCES}${options.repair ? REPAIRS : ""}${REPORT}`;
    const { rows } = await this.pool.query<{ kind: string; mode: StatsMismatch["mode"]; span: number; start: string; difference: any }>(sql, [
      merchantId,
    ]);
    const checked = rows.find((row) => row.kind === "checked");
    const mismatches = rows
      .filter((row) => row.kind !== "checked")
      .map((row) => ({ kind: row.kind as StatsMismatch["kind"], mode: row.mode, span: row.span, start: row.start, difference: row.difference }));
    return { merchantId, checkedBuckets: Number(checked?.difference.buckets ?? 0), mismatches, repaired: options.repair && mismatches.length > 0 };
  }
}
