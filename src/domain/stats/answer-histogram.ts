/**
 * Times to answer as mergeable histograms with fixed logarithmic bins (migration 20261125250000_order_stat_buckets
 * writes them; this module reads them). Bin 0 holds answers under 1 ms; bin k ≥ 1 holds answers in
 * [GROWTH^(k-1), GROWTH^k) ms, up to bin MAX_BIN (≈ 25 years, later answers are counted there).
 *
 * In the database a histogram is one exact integer (numeric) with SLOT_DIGITS decimal digits per bin: bin k counts
 * at 10^(SLOT_DIGITS × k). Adding histograms is adding integers (sum() is exact), so a range's histogram is the sum of
 * its buckets', and a slot holds up to 999,999,999 answers of one bin in one bucket of an answer (a local day or hour;
 * the totals add the buckets' bins in the service).
 *
 * Error bound: a bin's value stands for every answer in it as 2·GROWTH^k / (1 + GROWTH) ms, within
 * (GROWTH − 1) / (GROWTH + 1) = 1.96 % of any value in the bin. A percentile interpolates between two order statistics
 * exactly as percentile_cont does, each within 1.96 %, so the result is within 1.96 % of the exact percentile (plus
 * the millisecond rounding of the answer). Answers under 1 ms read as 0.
 */
export const GROWTH = 1.04;
export const MAX_BIN = 700;
export const SLOT_DIGITS = 9;
export const RELATIVE_ERROR = (GROWTH - 1) / (GROWTH + 1);

/** Bin → number of answers. */
export type Histogram = Map<number, number>;

/** A histogram as a dense array (index = bin), for summing many. */
export const emptyBins = (): Float64Array => new Float64Array(MAX_BIN + 1);

/** The bin of an answer time (the SQL function order_stats_bin does the same). */
export function binOf(milliseconds: number): number {
  if (milliseconds < 1) return 0;
  return Math.min(Math.floor(Math.log(milliseconds) / Math.log(GROWTH)) + 1, MAX_BIN);
}

/** The value that stands for a bin, in milliseconds. */
export function binValue(bin: number): number {
  return bin === 0 ? 0 : (2 * GROWTH ** bin) / (1 + GROWTH);
}

/** The bins of a histogram as the database returns it (the integer's decimal text). */
export function decodeHistogram(text: string): Histogram {
  const histogram: Histogram = new Map();
  if (!/^\d+$/.test(text)) throw new Error(`order statistics: not a histogram (${text.slice(0, 40)})`);
  for (let end = text.length, bin = 0; end > 0; end -= SLOT_DIGITS, bin++) {
    const count = Number(text.slice(Math.max(0, end - SLOT_DIGITS), end));
    if (count > 0) histogram.set(bin, count);
  }
  return histogram;
}

/**
 * Adds `sign` × the histogram in `binary` (the integer in PostgreSQL's binary form, numeric_send: int16 digit count,
 * int16 weight, uint16 sign, int16 display scale, then base-10,000 digits, most significant first, trailing zero
 * digits left out) to `bins`. The database sends numeric_send(h), not its decimal text: about half the bytes of the
 * significant digits, without the thousands of trailing zeros of the low bins, and no trimming in SQL.
 */
export function addBinaryHistogram(binary: Uint8Array, bins: Float64Array, sign = 1): { low: number; high: number } {
  if (binary.length < 8) throw new Error("order statistics: not a histogram (too short)");
  const view = new DataView(binary.buffer, binary.byteOffset, binary.byteLength);
  const digits = view.getInt16(0);
  const weight = view.getInt16(2);
  const numericSign = view.getUint16(4);
  if (numericSign === 0xc000 || binary.length !== 8 + 2 * digits) throw new Error("order statistics: not a histogram");
  if (digits === 0) return { low: 0, high: -1 };
  const factor = numericSign === 0x4000 ? -sign : sign;
  // Digit i's lowest decimal position is 4 × (weight − i); its four decimals fall in one bin, or straddle two.
  const low = Math.floor((4 * (weight - digits + 1)) / SLOT_DIGITS);
  const high = Math.floor((4 * weight + 3) / SLOT_DIGITS);
  if (weight - digits + 1 < 0) throw new Error("order statistics: not a histogram (a fraction)");
  for (let i = 0; i < digits; i++) {
    const digit = view.getInt16(8 + 2 * i);
    if (digit === 0) continue;
    const position = 4 * (weight - i);
    const bin = (position / SLOT_DIGITS) | 0;
    const offset = position - bin * SLOT_DIGITS;
    if (bin > MAX_BIN) throw new Error("order statistics: not a histogram (beyond the last bin)");
    if (offset <= SLOT_DIGITS - 4) {
      bins[bin] += factor * digit * POWERS[offset];
    } else {
      // The lower SLOT_DIGITS − offset decimals in this bin, the rest at the bottom of the next.
      const split = POWERS[SLOT_DIGITS - offset];
      const below = digit % split;
      const above = (digit - below) / split;
      if (below !== 0) bins[bin] += factor * below * POWERS[offset];
      if (above !== 0) {
        if (bin + 1 > MAX_BIN) throw new Error("order statistics: not a histogram (beyond the last bin)");
        bins[bin + 1] += factor * above;
      }
    }
  }
  return { low, high: Math.min(high, MAX_BIN) };
}

const POWERS = Array.from({ length: SLOT_DIGITS }, (_, k) => 10 ** k);

/** percentile_cont(q) read from dense bins, in seconds; null when empty. */
export function binsPercentile(bins: Float64Array, q: number): number | null {
  return binsPercentiles(bins, [q])[0];
}

/** percentile_cont(q) for each of `qs`, read from dense bins in two passes, in seconds; null when empty. */
export function binsPercentiles(bins: Float64Array, qs: readonly number[], from = 0, to = bins.length - 1): (number | null)[] {
  // `from`…`to`: the bins that may hold answers (all of them unless the caller knows).
  let total = 0;
  for (let bin = from; bin <= to; bin++) {
    const count = bins[bin];
    if (count === 0) continue;
    if (count < 0) throw new Error("order statistics: a histogram bin below zero");
    total += count;
  }
  if (total === 0) return qs.map(() => null);
  // The order statistics each q interpolates between (0-based), found in one cumulative pass.
  const wanted = qs.flatMap((q) => {
    const rank = q * (total - 1);
    const lower = Math.floor(rank);
    return [lower, rank > lower ? lower + 1 : lower];
  });
  const order = wanted.map((_, index) => index).sort((a, b) => wanted[a] - wanted[b]);
  const values = wanted.map(() => 0);
  let seen = 0;
  let next = 0;
  for (let bin = from; bin <= to && next < order.length; bin++) {
    seen += bins[bin];
    while (next < order.length && wanted[order[next]] < seen) values[order[next++]] = binValue(bin);
  }
  return qs.map((q, index) => {
    const rank = q * (total - 1);
    const [low, high] = [values[2 * index], values[2 * index + 1]];
    return (low + (rank - Math.floor(rank)) * (high - low)) / 1000;
  });
}

/** `into` plus `sign` × `from` (a bucket is some sums minus others). */
export function addHistogram(into: Histogram, from: Histogram, sign: 1 | -1 = 1): Histogram {
  for (const [bin, count] of from) into.set(bin, (into.get(bin) ?? 0) + sign * count);
  return into;
}

/** percentile_cont(q) read from the bins, in seconds; null for an empty histogram. */
export function histogramPercentile(histogram: Histogram, q: number): number | null {
  if ([...histogram.values()].some((count) => count < 0)) throw new Error("order statistics: a histogram bin below zero");
  const bins = [...histogram.entries()].filter(([, count]) => count > 0).sort((a, b) => a[0] - b[0]);
  const total = bins.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return null;
  const rank = q * (total - 1);
  const lower = Math.floor(rank);
  const valueAt = (index: number): number => {
    let seen = 0;
    for (const [bin, count] of bins) {
      seen += count;
      if (index < seen) return binValue(bin);
    }
    return binValue(bins[bins.length - 1][0]);
  };
  const low = valueAt(lower);
  const high = rank > lower ? valueAt(lower + 1) : low;
  return (low + (rank - lower) * (high - low)) / 1000;
}
