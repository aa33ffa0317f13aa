import type pg from "pg";
import { ValidationError } from "../errors.ts";
import type { MerchantScope } from "../orders/order.repository.ts";
import type { StatsInterval } from "./order-stats.ts";
import { withCheckedOutClient } from "../../db/checked-out-client.ts";

/** One row of the statement: the totals (start null) or one bucket. */
export interface StatsRow {
  start: string | null;
  created: number;
  confirmed: number;
  canceled: number;
  failed: number;
  expired: number;
  pending: number;
  answered: number;
  p50: number | null;
  p90: number | null;
  failures: { errorCode: number | null; count: number }[];
}

/**
 * Buckets as local periods. DAY: the local date of createdAt ($5 is the IANA zone), its start the zone's
 * midnight (23 or 25 hours long across a DST change). HOUR: hours counted from the start of the local hour that
 * contains `from`, so a DST change gives 23 or 25 buckets a day instead of a missing or doubled local hour.
 */
const BUCKETING: Record<StatsInterval, { series: string; key: string; start: string }> = {
  day: {
    series: `generate_series(date_trunc('day', $3::timestamptz AT TIME ZONE $5),
      date_trunc('day', ($4::timestamptz - interval '1 microsecond') AT TIME ZONE $5), interval '1 day')`,
    key: `date_trunc('day', o.created_at AT TIME ZONE $5)`,
    start: `series.key AT TIME ZONE $5`,
  },
  hour: {
    // The instant `from` minus its minutes and seconds on the local clock: the start of its local hour.
    series: `generate_series($3::timestamptz - (($3::timestamptz AT TIME ZONE $5) - date_trunc('hour', $3::timestamptz AT TIME ZONE $5)),
      $4::timestamptz - interval '1 microsecond', interval '1 hour')`,
    key: `date_bin(interval '1 hour', o.created_at,
      $3::timestamptz - (($3::timestamptz AT TIME ZONE $5) - date_trunc('hour', $3::timestamptz AT TIME ZONE $5)))`,
    start: `series.key`,
  },
};

/**
 * Everything in one statement: the orders of the range (index (merchant_id, mode, created_at)), who canceled each
 * canceled order (its timeline step, index (order_id, id): one probe per canceled order only), then counts and
 * percentiles per bucket and in total (ROLLUP), the failures per code, and the empty buckets.
 */
function statsSql(interval: StatsInterval): string {
  const { series, key, start } = BUCKETING[interval];
  return `
  WITH scoped AS MATERIALIZED (
    -- The answer's time is the order's updatedAt: the tap's transition writes it with its timeline step (same
    -- instant), and an answered order never changes again (terminal, and the tap already made it READ).
    SELECT ${key} AS bucket, o.status, o.error_code, answer.answered,
      CASE WHEN answer.answered THEN extract(epoch FROM o.updated_at - o.created_at)::float8 END AS answer_seconds
    FROM orders o
    LEFT JOIN LATERAL (
      SELECT t.source, t.detail FROM order_timeline t
      WHERE o.status = 'canceled' AND t.order_id = o.id AND t.kind = 'canceled'
      ORDER BY t.id LIMIT 1
    ) step ON true
    -- A confirmation is always the customer's; a cancel may be the merchant's, which only the timeline tells: the
    -- customer's tap, text or page, or the customer's answer the team recorded (via phone, in_person, other; SPEC
    -- §15) is an answer, a merchant's own cancel is not. Orders from before the timeline have no step: their
    -- customerAction is taken as the customer's.
    CROSS JOIN LATERAL (
      SELECT o.status = 'confirmed' OR (o.status = 'canceled' AND coalesce(
        step.source = 'customer' OR coalesce(step.detail ->> 'via' IN ('phone', 'in_person', 'other'), false), true)) AS answered
    ) answer
    WHERE o.merchant_id = $1::uuid AND o.mode = $2::"KeyMode" AND o.send_state <> 'sending'
      AND o.created_at >= $3::timestamptz AND o.created_at < $4::timestamptz
  ), figures AS (
    SELECT bucket, GROUPING(bucket) AS is_total, count(*)::int AS created,
      count(*) FILTER (WHERE status = 'confirmed')::int AS confirmed,
      count(*) FILTER (WHERE status = 'canceled')::int AS canceled,
      count(*) FILTER (WHERE status = 'failed')::int AS failed,
      count(*) FILTER (WHERE status = 'expired')::int AS expired,
      count(*) FILTER (WHERE status = 'pending')::int AS pending,
      count(*) FILTER (WHERE answered)::int AS answered,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY answer_seconds) AS p50,
      percentile_cont(0.9) WITHIN GROUP (ORDER BY answer_seconds) AS p90
    FROM scoped GROUP BY ROLLUP (bucket)
  ), failure_counts AS (
    SELECT bucket, GROUPING(bucket) AS is_total, error_code, count(*)::int AS n
    FROM scoped WHERE status = 'failed' GROUP BY ROLLUP (bucket), error_code
  ), failures AS (
    SELECT bucket, is_total,
      json_agg(json_build_object('errorCode', error_code, 'count', n) ORDER BY n DESC, error_code NULLS LAST) AS list
    FROM failure_counts GROUP BY bucket, is_total
  ), rows AS (
    SELECT ${start} AS start, f.created, f.confirmed, f.canceled, f.failed, f.expired, f.pending, f.answered,
      f.p50, f.p90, fl.list
    FROM ${series} AS series(key)
    LEFT JOIN figures f ON f.is_total = 0 AND f.bucket = series.key
    LEFT JOIN failures fl ON fl.is_total = 0 AND fl.bucket = series.key
    UNION ALL
    SELECT NULL, f.created, f.confirmed, f.canceled, f.failed, f.expired, f.pending, f.answered, f.p50, f.p90, fl.list
    FROM (SELECT 1) AS one
    LEFT JOIN figures f ON f.is_total = 1
    LEFT JOIN failures fl ON fl.is_total = 1
  )
  SELECT to_char(start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS start,
    coalesce(created, 0) AS created, coalesce(confirmed, 0) AS confirmed, coalesce(canceled, 0) AS canceled,
    coalesce(failed, 0) AS failed, coalesce(expired, 0) AS expired, coalesce(pending, 0) AS pending,
    coalesce(answered, 0) AS answered, p50, p90, coalesce(list, '[]'::json) AS failures
  FROM rows ORDER BY start NULLS FIRST`;
}

const SQL = { day: statsSql("day"), hour: statsSql("hour") };

/** The statement for `interval` (benchmarks print its plan). */
export const statsSqlFor = (interval: StatsInterval): string => SQL[interval];

/** Where the figures come from: the pre-aggregated buckets (the service's) or the orders themselves (the reference). */
export interface StatsSource {
  figures(scope: MerchantScope, range: { from: Date; to: Date; timeZone: string; interval: StatsInterval }): Promise<StatsRow[]>;
}

/**
 * The exact figures computed from the orders table, O(orders in the range). The service reads the pre-aggregated
 * buckets instead (order-stat-buckets.repository.ts); this is the reference the tests, the benchmark and
 * `ocs stats verify` compare them with.
 */
export class OrderStatsRepository implements StatsSource {
  constructor(private readonly pool: pg.Pool) {}

  /** The totals (first row, start null) and every bucket of the range, oldest first. */
  async figures(
    scope: MerchantScope,
    range: { from: Date; to: Date; timeZone: string; interval: StatsInterval },
  ): Promise<StatsRow[]> {
    return withCheckedOutClient(this.pool, async (client) => {
      try {
        // JIT compilation would cost more than the statement itself (hundreds of ms for a 30-day range of a busy
        // merchant: the planner's estimate for the per-order probes is far above jit_above_cost); the sorts of the
        // percentiles get a little more memory than the default 4 MB before they spill. Both for this statement only.
        await client.query("BEGIN READ ONLY; SET LOCAL jit = off; SET LOCAL work_mem = '16MB'");
        const { rows } = await client.query<StatsRow>(SQL[range.interval], [
          scope.merchantId, scope.mode, range.from, range.to, range.timeZone,
        ]);
        await client.query("COMMIT");
        return rows;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        // The runtime's zone list (validated before) and the database's may differ: the database has the last word.
        const { code, message } = error as { code?: string; message?: string };
        if (code === "22023" && /time zone/i.test(message ?? "")) {
          throw new ValidationError([{ field: "timeZone", key: "field.format.time_zone" }]);
        }
        throw error;
      }
    });
  }
}
