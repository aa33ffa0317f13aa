/**
 * The figures of whole answer buckets (a local day, an hour), kept in this instance's memory between reads
 * (docs/statistics.md, "Cache"). A year by day is 366 buckets whose figures almost never change once the day is
 * over; reading them again from the pre-aggregated rows costs a few hundred index probes and histogram sums each time.
 *
 * Never stale: an entry is used only when the *fingerprint* it was computed with equals the one read in the same
 * snapshot as the rest of the answer. The fingerprint of a bucket is the row versions (slot and xmin) of the daily
 * rows of every UTC day the bucket touches, in order_stat_buckets and order_stat_failures. Every change of a figure
 * writes the daily row of its order's day in the same statement as the finer rows (a new row version, with the
 * writing transaction's id), even when the day's own figures net to zero (migration
 * 20261126000000_stats_daily_row_versions), so a changed figure always changes the fingerprint; the repair of `ocs stats verify`
 * rewrites the daily rows of every day it repairs for the same reason. Folding slots changes the fingerprint without
 * changing a figure: the bucket is read again once. Nothing is shared between instances and nothing survives a restart.
 */
export interface CachedBucket {
  fingerprint: string;
  created: number;
  confirmed: number;
  canceled: number;
  failed: number;
  expired: number;
  answered: number;
  /** Failures per error code (null: without a code). */
  failures: Map<number | null, number>;
  /** Time to answer, from the histogram (ms). */
  p50: number | null;
  p90: number | null;
  /** The histogram's non-empty span: counts of bins `low`, `low + 1`, … (the totals merge them). */
  low: number;
  bins: Uint32Array;
}

/** Buckets kept (least recently used go first): about 2 KB each, so at most ~20 MB; a year by day is 366. */
export const STAT_BUCKET_CACHE_ENTRIES = 10_000;

export class StatBucketCache {
  private readonly entries = new Map<string, CachedBucket>();

  constructor(private readonly maxEntries = STAT_BUCKET_CACHE_ENTRIES) {}

  /** The bucket's figures if they were computed with this very fingerprint. */
  get(key: string, fingerprint: string): CachedBucket | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.fingerprint !== fingerprint) {
      this.entries.delete(key);
      return undefined;
    }
    // Most recently used last (Map keeps insertion order).
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  set(key: string, entry: CachedBucket): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
    }
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

/** The cache key of one bucket: whose figures, and which instants ([from, to) in ms). */
export const statBucketKey = (merchantId: string, mode: string, from: number, to: number): string =>
  `${merchantId}:${mode}:${from}:${to}`;
