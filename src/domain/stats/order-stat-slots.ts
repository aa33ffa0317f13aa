import type pg from "pg";

/**
 * Folds the slots of closed statistics buckets into slot 0 (docs/statistics.md, "Slots").
 *
 * Writers spread a bucket's figures over up to 256 slots (one per database session) so that concurrent changes of one
 * busy merchant never wait for each other's row; a read sums the slots. Once a bucket has closed, its spread rows only
 * cost reads: a year read by day would read one row per bucket and slot. This folds them into one row per bucket.
 *
 * Exact under concurrent writers: the spread rows are locked (SKIP LOCKED: a row a writer holds is left for the next
 * round), deleted and their sums added to slot 0 in one statement; a writer that meets a deleted row inserts it anew
 * (INSERT … ON CONFLICT retries), so no change is lost or counted twice. A late change of a closed bucket (an answer
 * to an old order) spreads it again, and the next round folds it.
 */
const FOLD_BUCKETS_SQL = `
  WITH spread AS (
    SELECT merchant_id, mode, span, start, slot FROM order_stat_buckets
    WHERE slot <> 0 AND start < $1::timestamptz - make_interval(mins => span)
    ORDER BY start LIMIT $2
    FOR UPDATE SKIP LOCKED
  ), gone AS (
    DELETE FROM order_stat_buckets b USING spread s
    WHERE b.merchant_id = s.merchant_id AND b.mode = s.mode AND b.span = s.span AND b.start = s.start AND b.slot = s.slot
    RETURNING b.*
  ), folded AS (
    INSERT INTO order_stat_buckets AS b (merchant_id, mode, span, start, slot, created, confirmed, canceled, failed,
      expired, answered, answer_histogram)
    SELECT merchant_id, mode, span, start, 0, sum(created), sum(confirmed), sum(canceled), sum(failed), sum(expired),
      sum(answered), sum(answer_histogram)
    FROM gone GROUP BY merchant_id, mode, span, start
    ORDER BY merchant_id, mode, span, start
    ON CONFLICT (merchant_id, mode, span, start, slot) DO UPDATE SET created = b.created + EXCLUDED.created,
      confirmed = b.confirmed + EXCLUDED.confirmed, canceled = b.canceled + EXCLUDED.canceled,
      failed = b.failed + EXCLUDED.failed, expired = b.expired + EXCLUDED.expired, answered = b.answered + EXCLUDED.answered,
      answer_histogram = b.answer_histogram + EXCLUDED.answer_histogram
  )
  SELECT count(*)::int AS folded FROM gone`;

const FOLD_FAILURES_SQL = `
  WITH spread AS (
    SELECT merchant_id, mode, span, start, error_code, slot FROM order_stat_failures
    WHERE slot <> 0 AND start < $1::timestamptz - make_interval(mins => span)
    ORDER BY start LIMIT $2
    FOR UPDATE SKIP LOCKED
  ), gone AS (
    DELETE FROM order_stat_failures f USING spread s
    WHERE f.merchant_id = s.merchant_id AND f.mode = s.mode AND f.span = s.span AND f.start = s.start
      AND f.error_code = s.error_code AND f.slot = s.slot
    RETURNING f.*
  ), folded AS (
    INSERT INTO order_stat_failures AS f (merchant_id, mode, span, start, error_code, slot, count)
    SELECT merchant_id, mode, span, start, error_code, 0, sum(count) FROM gone
    GROUP BY merchant_id, mode, span, start, error_code
    ORDER BY merchant_id, mode, span, start, error_code
    ON CONFLICT (merchant_id, mode, span, start, error_code, slot) DO UPDATE SET count = f.count + EXCLUDED.count
  )
  SELECT count(*)::int AS folded FROM gone`;

/** Rows folded per statement: bounded work (and lock time) per round. */
const BATCH = 2_000;
/** Rounds per call: a backlog (after an upgrade, a busy day) is worked off over several maintenance runs. */
const MAX_ROUNDS = 50;

export class OrderStatSlots {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Folds the spread rows of buckets that ended before `closedBefore` (a bucket still open keeps its slots: its
   * writers are the ones the slots are for). Returns how many spread rows were folded.
   */
  async fold(closedBefore: Date): Promise<number> {
    let total = 0;
    for (const sql of [FOLD_BUCKETS_SQL, FOLD_FAILURES_SQL]) {
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const { rows } = await this.pool.query<{ folded: number }>(sql, [closedBefore, BATCH]);
        const folded = rows[0]?.folded ?? 0;
        total += folded;
        if (folded < BATCH) break;
      }
    }
    return total;
  }
}
