import type pg from "pg";
import { ValidationError } from "../errors.ts";
import type { MerchantScope } from "../orders/order.repository.ts";
import type { StatsInterval } from "./order-stats.ts";
import type { StatsRow } from "./order-stats.repository.ts";
import { addBinaryHistogram, binsPercentiles, emptyBins } from "./answer-histogram.ts";
import { alignedPart, DAY, QUARTER, topRange, withinTop, type Piece } from "./stat-pieces.ts";
import { statBucketKey, StatBucketCache, type CachedBucket } from "./stat-bucket-cache.ts";
import { withCheckedOutClient } from "../../db/checked-out-client.ts";
import { preparedStatement } from "../../db/prepared-statement.ts";

/**
 * Order statistics read from the pre-aggregated buckets (migration 20261125250000_order_stat_buckets,
 * docs/statistics.md): the work is a few rows per bucket of the answer, whatever the number of orders.
 *
 * 1. The buckets of the answer (local days or hours of the time zone) come from the database's own zone rules, as
 *    before: [start, next start), clipped to [from, to).
 * 2. Each bucket's quarter-aligned middle is a sum of signed pieces of 15-minute, hour and day rows (stat-pieces.ts);
 *    an end that is not on a quarter (a `from` at 10:07, a zone with a historical offset) is read from the orders
 *    of that part-quarter, with the same definitions.
 * 3. One statement reads all of it (one snapshot) and sums each bucket of the answer in one aggregation (one group per
 *    bucket: a grouped sum of the long histogram integers costs far more per group than per row); counts are exact
 *    sums, each bucket's histogram comes back as numeric_send bytes, its percentiles are read here, and the totals are
 *    the sum of the buckets.
 */
const BUCKETS_SQL = {
  day: `
    SELECT to_char(key AT TIME ZONE $3 AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS start,
      extract(epoch FROM key AT TIME ZONE $3)::float8 * 1000 AS start_ms,
      extract(epoch FROM (key + interval '1 day') AT TIME ZONE $3)::float8 * 1000 AS end_ms
    FROM generate_series(date_trunc('day', $1::timestamptz AT TIME ZONE $3),
      date_trunc('day', ($2::timestamptz - interval '1 microsecond') AT TIME ZONE $3), interval '1 day') AS key`,
  hour: `
    SELECT to_char(key AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS start,
      extract(epoch FROM key)::float8 * 1000 AS start_ms, extract(epoch FROM key + interval '1 hour')::float8 * 1000 AS end_ms
    FROM generate_series($1::timestamptz - (($1::timestamptz AT TIME ZONE $3) - date_trunc('hour', $1::timestamptz AT TIME ZONE $3)),
      $2::timestamptz - interval '1 microsecond', interval '1 hour') AS key`,
} satisfies Record<StatsInterval, string>;

export const FIGURES_SQL = `
  WITH piece AS (
    -- Times come as milliseconds since the epoch (cheaper to send than timestamps' text; to_timestamp keeps microseconds).
    SELECT p.term, p.sign, p.span, to_timestamp(p.lo_ms / 1000.0) AS lo, to_timestamp(p.hi_ms / 1000.0) AS hi
    FROM unnest($3::int[], $4::int[], $5::smallint[], $6::bigint[], $7::bigint[]) AS p(term, sign, span, lo_ms, hi_ms)
  ), edge AS (
    SELECT e.term, to_timestamp(e.lo_ms / 1000.0) AS lo, to_timestamp(e.hi_ms / 1000.0) AS hi
    FROM unnest($8::int[], $9::bigint[], $10::bigint[]) AS e(term, lo_ms, hi_ms)
  ), top_key AS (
    SELECT k.term, k.sign, to_timestamp(k.start_ms / 1000.0) AS start
    FROM unnest($11::int[], $12::int[], $13::bigint[]) AS k(term, sign, start_ms)
  ), term_use AS (
    -- Where each term goes: the answer's buckets (0, 1, …) with their signs.
    SELECT * FROM unnest($17::int[], $18::int[], $19::int[]) AS u(term, bucket, sign)
  ), top_rows AS MATERIALIZED (
    -- The rows of the answer's own level (days, or hours), each used by one bucket and by its boundaries' shares: one
    -- range scan, joined to their uses by start.
    SELECT r.start, r.created, r.confirmed, r.canceled, r.failed, r.expired, r.answered, r.answer_histogram
    FROM order_stat_buckets r
    WHERE r.merchant_id = $1::uuid AND r.mode = $2::"KeyMode" AND r.span = $14::smallint AND r.start >= $15::timestamptz
      AND r.start < $16::timestamptz
  ), edge_orders AS MATERIALIZED (
    SELECT e.term, o.status, o.error_code, order_stats_answered(o.id, o.status) AS answered, o.created_at, o.updated_at
    FROM edge e
    JOIN orders o ON o.merchant_id = $1::uuid AND o.mode = $2::"KeyMode" AND o.send_state <> 'sending'
      AND o.created_at >= e.lo AND o.created_at < e.hi
  ), term_rows AS (
    -- Every row a term is made of, with its sign (pieces by their own index range scans: OFFSET 0 keeps the planner
    -- from turning the LATERAL scan into a join that reads every row of the merchant), and the orders of the
    -- part-quarters as rows of one.
    SELECT p.term, p.sign, r.created, r.confirmed, r.canceled, r.failed, r.expired, r.answered, r.answer_histogram
    FROM piece p
    CROSS JOIN LATERAL (
      SELECT r.created, r.confirmed, r.canceled, r.failed, r.expired, r.answered, r.answer_histogram
      FROM order_stat_buckets r
      WHERE r.merchant_id = $1::uuid AND r.mode = $2::"KeyMode" AND r.span = p.span AND r.start >= p.lo AND r.start < p.hi
      OFFSET 0
    ) r
    UNION ALL
    SELECT k.term, k.sign, t.created, t.confirmed, t.canceled, t.failed, t.expired, t.answered, t.answer_histogram
    FROM top_key k JOIN top_rows t ON t.start = k.start
    UNION ALL
    SELECT term, 1, 1, (status = 'confirmed')::int, (status = 'canceled')::int, (status = 'failed')::int,
      (status = 'expired')::int, answered::int, CASE WHEN answered THEN order_stats_histogram(created_at, updated_at) ELSE 0 END
    FROM edge_orders
  ), failure_rows AS (
    SELECT p.term, p.sign, r.error_code, r.count
    FROM piece p
    CROSS JOIN LATERAL (
      SELECT r.error_code, r.count
      FROM order_stat_failures r
      WHERE r.merchant_id = $1::uuid AND r.mode = $2::"KeyMode" AND r.span = p.span AND r.start >= p.lo AND r.start < p.hi
      OFFSET 0
    ) r
    UNION ALL
    SELECT k.term, k.sign, r.error_code, r.count
    FROM top_key k
    JOIN order_stat_failures r ON r.merchant_id = $1::uuid AND r.mode = $2::"KeyMode" AND r.span = $14::smallint
      AND r.start = k.start
    UNION ALL
    SELECT term, 1, coalesce(error_code, -1), 1 FROM edge_orders WHERE status = 'failed'
  )
  -- Each bucket as the signed sum of its terms' rows, in one aggregation: a group per bucket (a grouped sum of these
  -- long integers costs far more per group than per row), its histogram in the integer's binary form (numeric_send:
  -- base-10,000 digits without the low bins' trailing zeros).
  SELECT u.bucket, sum(u.sign * r.sign * r.created)::int AS created, sum(u.sign * r.sign * r.confirmed)::int AS confirmed,
    sum(u.sign * r.sign * r.canceled)::int AS canceled, sum(u.sign * r.sign * r.failed)::int AS failed,
    sum(u.sign * r.sign * r.expired)::int AS expired, sum(u.sign * r.sign * r.answered)::int AS answered,
    numeric_send(sum(CASE WHEN u.sign = r.sign THEN r.answer_histogram ELSE -r.answer_histogram END)) AS histogram,
    NULL::int AS error_code
  FROM term_use u JOIN term_rows r ON r.term = u.term
  GROUP BY u.bucket
  UNION ALL
  SELECT u.bucket, sum(u.sign * r.sign * r.count)::int, 0, 0, 0, 0, 0, NULL, r.error_code
  FROM term_use u JOIN failure_rows r ON r.term = u.term
  GROUP BY u.bucket, r.error_code HAVING sum(u.sign * r.sign * r.count) <> 0`;

interface BucketBounds {
  start: string;
  start_ms: number;
  end_ms: number;
}

interface FigureRow {
  /** The answer's bucket (its index). */
  bucket: number;
  created: number;
  confirmed: number;
  canceled: number;
  failed: number;
  expired: number;
  answered: number;
  /** The histogram as numeric_send gives it; null on a row of failures. */
  histogram: Buffer | null;
  error_code: number | null;
}

interface Figures {
  created: number;
  confirmed: number;
  canceled: number;
  failed: number;
  expired: number;
  answered: number;
  p50: number | null;
  p90: number | null;
  failures: Map<number | null, number>;
}

const emptyFigures = (): Figures => ({
  created: 0, confirmed: 0, canceled: 0, failed: 0, expired: 0, answered: 0, p50: null, p90: null, failures: new Map(),
});

/**
 * What the statement reads for a range, as terms: each term is a sum the statement computes once (signed pieces of
 * bucket rows, or the orders of a part-quarter), and adds to or subtracts from the answer's buckets. A bucket is its
 * whole UTC days (hours), plus its end's share of its day, minus its start's; two buckets that meet share that term.
 */
export function readPlan(buckets: { from: number; to: number }[], interval: StatsInterval) {
  const terms: { bucket: number; sign: 1 | -1 }[][] = [];
  const pieces = { term: [] as number[], sign: [] as number[], span: [] as number[], lo: [] as number[], hi: [] as number[] };
  const edges = { term: [] as number[], lo: [] as number[], hi: [] as number[] };
  const topSpan = interval === "day" ? 1440 : 60;
  const keys = { term: [] as number[], sign: [] as number[], start: [] as number[], span: topSpan, from: Infinity, to: -Infinity };
  const addPieces = (list: Piece[]) => {
    const term = terms.push([]) - 1;
    for (const piece of list) {
      pieces.term.push(term);
      pieces.sign.push(piece.sign);
      pieces.span.push(piece.span);
      pieces.lo.push(piece.from);
      pieces.hi.push(piece.to);
    }
    return term;
  };
  // A boundary's share of its day (or hour): its rows below the answer's own level are one term, shared by the two
  // buckets that meet there; its rows of the answer's own level (a whole day minus the rest) are netted per bucket
  // below, where they mostly cancel against the bucket's whole days.
  const boundaries = new Map<number, { term: number | null; tops: Piece[] }>();
  const boundary = (t: number) => {
    let found = boundaries.get(t);
    if (found === undefined) {
      const all = withinTop(t, interval);
      const below = all.filter((piece) => piece.span !== topSpan);
      found = { term: below.length ? addPieces(below) : null, tops: all.filter((piece) => piece.span === topSpan) };
      boundaries.set(t, found);
    }
    return found;
  };
  const edge = (bucket: number, lo: number, hi: number) => {
    if (hi <= lo) return;
    edges.term.push(terms.push([{ bucket, sign: 1 }]) - 1);
    edges.lo.push(lo);
    edges.hi.push(hi);
  };
  buckets.forEach(({ from, to }, bucket) => {
    const aligned = alignedPart(from, to);
    if (!aligned) return edge(bucket, from, to);
    edge(bucket, from, aligned.from);
    edge(bucket, aligned.to, to);
    const [end, start] = [boundary(aligned.to), boundary(aligned.from)];
    if (end.term !== null) terms[end.term].push({ bucket, sign: 1 });
    if (start.term !== null) terms[start.term].push({ bucket, sign: -1 });
    // The rows of the answer's own level: whole days (hours), plus the end's, minus the start's, netted.
    const net = new Map<number, number>();
    const addTops = (list: Piece[], sign: 1 | -1) => {
      for (const piece of list) {
        for (let at = piece.from; at < piece.to; at += topSpan * 60_000) net.set(at, (net.get(at) ?? 0) + sign * piece.sign);
      }
    };
    addTops(topRange(aligned.from, aligned.to, interval), 1);
    addTops(end.tops, 1);
    addTops(start.tops, -1);
    let term: number | null = null;
    for (const [at, count] of net) {
      // A row counted twice is listed twice: the statement's signs are ±1.
      for (let n = 0; n < Math.abs(count); n++) {
        term ??= terms.push([{ bucket, sign: 1 }]) - 1;
        keys.term.push(term);
        keys.sign.push(Math.sign(count));
        keys.start.push(at);
        keys.from = Math.min(keys.from, at);
        keys.to = Math.max(keys.to, at + 1);
      }
    }
  });
  // Where each term goes, for the statement: its buckets with their signs.
  const uses = { term: [] as number[], bucket: [] as number[], sign: [] as number[] };
  terms.forEach((list, term) => {
    for (const { bucket, sign } of list) {
      uses.term.push(term);
      uses.bucket.push(bucket);
      uses.sign.push(sign);
    }
  });
  return { terms, pieces, edges, keys, uses };
}

/**
 * The zone's buckets of [$1, $2) in zone $3 (BUCKETS_SQL), then the row versions of the daily rows of each UTC day in
 * [$6, $7) of merchant $4 and mode $5: a bucket's fingerprint for the cache (stat-bucket-cache.ts). xmin is the writing
 * transaction's id: every new version of a row has a new one. One statement, one round trip.
 */
const boundsAndFingerprintsSql = (interval: StatsInterval) => `
  WITH bucket AS (${BUCKETS_SQL[interval]}
  ), version AS (
    SELECT start, 'b' || slot || ':' || xmin::text AS tag FROM order_stat_buckets
    WHERE merchant_id = $4::uuid AND mode = $5::"KeyMode" AND span = 1440 AND start >= $6::timestamptz AND start < $7::timestamptz
    UNION ALL
    SELECT start, 'f' || error_code || ':' || slot || ':' || xmin::text FROM order_stat_failures
    WHERE merchant_id = $4::uuid AND mode = $5::"KeyMode" AND span = 1440 AND start >= $6::timestamptz AND start < $7::timestamptz
  )
  SELECT start, start_ms, end_ms, NULL::float8 AS day_ms, NULL::text AS fingerprint FROM bucket
  UNION ALL
  SELECT NULL, NULL, NULL, extract(epoch FROM start)::float8 * 1000, string_agg(tag, ',' ORDER BY tag) FROM version GROUP BY start
  ORDER BY day_ms NULLS FIRST, start_ms`;

/**
 * Named prepared statements on PostgreSQL (each connection parses them once); unnamed on PGlite. Not the figures
 * statement: its generic plan (array sizes unknown) read a year twice as slowly as a plan for the actual arrays.
 */
const BOUNDS_STATEMENTS = {
  day: preparedStatement("order_stats_bounds_day", boundsAndFingerprintsSql("day")),
  hour: preparedStatement("order_stats_bounds_hour", boundsAndFingerprintsSql("hour")),
} satisfies Record<StatsInterval, unknown>;

/** One bucket of the answer: its figures, percentiles and histogram (what the cache keeps). */
type BucketFigures = Omit<CachedBucket, "fingerprint">;

export class OrderStatBucketsRepository {
  constructor(
    private readonly pool: pg.Pool,
    /** Whole buckets' figures between reads; null reads every bucket every time. */
    readonly cache: StatBucketCache | null = new StatBucketCache(),
    /** Run the statements as named prepared statements (Database.prepareStatements). */
    private readonly prepare = false,
  ) {}

  /** The totals (first row, start null) and every bucket of the range, oldest first (OrderStatsRepository's shape). */
  async figures(
    scope: MerchantScope,
    range: { from: Date; to: Date; timeZone: string; interval: StatsInterval },
  ): Promise<StatsRow[]> {
    return withCheckedOutClient(this.pool, async (client) => {
      let bounds: BucketBounds[];
      let rows: FigureRow[] = [];
      const buckets: (BucketFigures | null)[] = [];
      /** The buckets read from the rows, not the cache: their index in the answer and their cache entry's key. */
      const misses: { index: number; key: string | null; fingerprint: string }[] = [];
      try {
        // One snapshot for the zone's buckets, the fingerprints and the figures; no JIT compilation: the planner's
        // estimate for the per-piece index probes is above jit_above_cost, and compiling took longer (~120 ms) than
        // the statement.
        await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL jit = off");
        const from = range.from.getTime();
        const to = range.to.getTime();
        // The fingerprints of every UTC day the range touches (none without a cache).
        const daysFrom = this.cache === null ? to : Math.floor(from / DAY) * DAY;
        const { rows: boundRows } = await client.query<BucketBounds & { day_ms: number | null; fingerprint: string | null }>(
          BOUNDS_STATEMENTS[range.interval](
            [range.from, range.to, range.timeZone, scope.merchantId, scope.mode, new Date(daysFrom), range.to],
            this.prepare,
          ),
        );
        bounds = boundRows.filter((row) => row.day_ms === null);
        const days = new Map<number, string>();
        for (const row of boundRows) if (row.day_ms !== null) days.set(row.day_ms, row.fingerprint!);
        const clipped = bounds.map((bound) => ({ from: Math.max(from, bound.start_ms), to: Math.min(to, bound.end_ms) }));
        // A bucket with quarter-aligned ends is made of bucket rows only, so it can be cached; the ends of a range
        // that starts at 10:07 (or a zone's historical offset) are read from the orders every time.
        const cacheable = (bucket: { from: number; to: number }) =>
          this.cache !== null && bucket.from % QUARTER === 0 && bucket.to % QUARTER === 0 && bucket.to > bucket.from;
        clipped.forEach((bucket, index) => {
          if (!cacheable(bucket)) {
            buckets.push(null);
            misses.push({ index, key: null, fingerprint: "" });
            return;
          }
          const fingerprint = bucketFingerprint(days, bucket);
          const key = statBucketKey(scope.merchantId, scope.mode, bucket.from, bucket.to);
          const cached = this.cache!.get(key, fingerprint);
          if (cached) {
            buckets.push(cached);
          } else {
            buckets.push(null);
            misses.push({ index, key, fingerprint });
          }
        });
        if (misses.length > 0) {
          const { pieces, edges, keys, uses } = readPlan(misses.map(({ index }) => clipped[index]), range.interval);
          ({ rows } = await client.query<FigureRow>(FIGURES_SQL, [
            scope.merchantId, scope.mode, pgArray(pieces.term), pgArray(pieces.sign), pgArray(pieces.span), pgArray(pieces.lo),
            pgArray(pieces.hi), pgArray(edges.term), pgArray(edges.lo), pgArray(edges.hi), pgArray(keys.term), pgArray(keys.sign),
            pgArray(keys.start), keys.span, new Date(Number.isFinite(keys.from) ? keys.from : 0),
            new Date(Number.isFinite(keys.to) ? keys.to : 0), pgArray(uses.term), pgArray(uses.bucket), pgArray(uses.sign),
          ]));
        }
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        // The runtime's zone list (validated before) and the database's may differ: the database has the last word.
        const { code, message } = error as { code?: string; message?: string };
        if (code === "22023" && /time zone/i.test(message ?? "")) {
          throw new ValidationError([{ field: "timeZone", key: "field.format.time_zone" }]);
        }
        throw error;
      }
      const read = readBuckets(rows, misses.length);
      misses.forEach(({ index, key, fingerprint }, miss) => {
        buckets[index] = read[miss];
        if (key !== null) this.cache!.set(key, { ...read[miss], fingerprint });
      });
      // The totals are the sum of the buckets (which tile [from, to)).
      const totals = emptyFigures();
      const totalBins = emptyBins();
      let [totalLow, totalHigh] = [totalBins.length, -1];
      for (const bucket of buckets as BucketFigures[]) {
        totals.created += bucket.created;
        totals.confirmed += bucket.confirmed;
        totals.canceled += bucket.canceled;
        totals.failed += bucket.failed;
        totals.expired += bucket.expired;
        totals.answered += bucket.answered;
        for (const [code, count] of bucket.failures) totals.failures.set(code, (totals.failures.get(code) ?? 0) + count);
        for (let bin = 0; bin < bucket.bins.length; bin++) totalBins[bucket.low + bin] += bucket.bins[bin];
        if (bucket.bins.length > 0) {
          [totalLow, totalHigh] = [Math.min(totalLow, bucket.low), Math.max(totalHigh, bucket.low + bucket.bins.length - 1)];
        }
      }
      [totals.p50, totals.p90] = binsPercentiles(totalBins, PERCENTILES, totalLow, totalHigh);
      return [statsRow(null, totals), ...buckets.map((bucket, index) => statsRow(bounds[index].start, bucket!))];
    });
  }
}

/** A bucket's fingerprint: those of the UTC days it touches, in order. */
function bucketFingerprint(days: Map<number, string>, bucket: { from: number; to: number }): string {
  const parts: string[] = [];
  for (let day = Math.floor(bucket.from / DAY) * DAY; day < bucket.to; day += DAY) parts.push(days.get(day) ?? "-");
  return parts.join("|");
}

/** The statement's rows as each bucket's figures (`count` buckets: the statement's bucket numbers). */
function readBuckets(rows: FigureRow[], count: number): BucketFigures[] {
  const read = Array.from({ length: count }, (): BucketFigures => ({
    created: 0, confirmed: 0, canceled: 0, failed: 0, expired: 0, answered: 0, failures: new Map(), low: 0,
    bins: new Uint32Array(0), p50: null, p90: null,
  }));
  const bins = emptyBins();
  for (const row of rows) {
    const bucket = read[row.bucket];
    if (row.histogram === null) {
      const code = row.error_code === -1 ? null : row.error_code;
      bucket.failures.set(code, (bucket.failures.get(code) ?? 0) + row.created);
      continue;
    }
    bucket.created += row.created;
    bucket.confirmed += row.confirmed;
    bucket.canceled += row.canceled;
    bucket.failed += row.failed;
    bucket.expired += row.expired;
    bucket.answered += row.answered;
    // One bucket's histogram at a time in `bins` (its bins `low`…`high`), kept as a compact copy and cleared after.
    const { low, high } = addBinaryHistogram(row.histogram, bins);
    [bucket.p50, bucket.p90] = binsPercentiles(bins, PERCENTILES, low, high);
    if (high >= low) {
      bucket.low = low;
      bucket.bins = Uint32Array.from(bins.subarray(low, high + 1));
      bins.fill(0, low, high + 1);
    }
  }
  for (const bucket of read) for (const [code, count] of bucket.failures) if (count === 0) bucket.failures.delete(code);
  return read;
}

const PERCENTILES = [0.5, 0.9] as const;

/** An array of integers as PostgreSQL's array text: node-postgres quotes and escapes every element of an array. */
const pgArray = (values: number[]): string => `{${values.join(",")}}`;

function statsRow(start: string | null, figures: Omit<Figures, "failures"> & { failures: Map<number | null, number> }): StatsRow {
  const failures = [...figures.failures]
    .filter(([, count]) => count !== 0)
    .map(([errorCode, count]) => ({ errorCode, count }))
    // Most frequent first, then by code, failures without a code last (as the exact statement orders them).
    .sort((a, b) => b.count - a.count || (a.errorCode === null ? 1 : b.errorCode === null ? -1 : a.errorCode - b.errorCode));
  return {
    start,
    created: figures.created,
    confirmed: figures.confirmed,
    canceled: figures.canceled,
    failed: figures.failed,
    expired: figures.expired,
    pending: figures.created - figures.confirmed - figures.canceled - figures.failed - figures.expired,
    answered: figures.answered,
    p50: figures.p50,
    p90: figures.p90,
    failures,
  };
}
