import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addBinaryHistogram, addHistogram, binOf, binsPercentile, emptyBins, binValue, decodeHistogram, GROWTH, histogramPercentile, MAX_BIN, RELATIVE_ERROR, SLOT_DIGITS,
} from "../../src/domain/stats/answer-histogram.ts";
import { DAY, HOUR, piecesOf, QUARTER, withinTop, type Piece } from "../../src/domain/stats/stat-pieces.ts";

/** How often each quarter of [lo, hi) is counted by the pieces (rows of a span count every quarter inside them). */
function coverage(pieces: Piece[], lo: number, hi: number): number[] {
  const counts = new Array((hi - lo) / QUARTER).fill(0);
  for (const piece of pieces) {
    const span = piece.span * 60_000;
    expect(piece.from % span).toBe(0);
    expect(piece.to % span).toBe(0);
    for (let row = piece.from; row < piece.to; row += span) {
      for (let q = row; q < row + span; q += QUARTER) {
        const index = (q - lo) / QUARTER;
        if (index < 0 || index >= counts.length) throw new Error(`piece outside the window: ${JSON.stringify(piece)}`);
        counts[index] += piece.sign;
      }
    }
  }
  return counts;
}

describe("statistics pieces", () => {
  const quarterInstant = fc.integer({ min: 0, max: 4 * 96 }).map((n) => Date.parse("2026-03-07T00:00:00Z") + n * QUARTER);

  it("sum to exactly the range: every quarter inside once, none outside", () => {
    fc.assert(
      fc.property(quarterInstant, quarterInstant, fc.constantFrom("day" as const, "hour" as const), (a, b, top) => {
        const [from, to] = a <= b ? [a, b] : [b, a];
        const lo = Math.floor(from / DAY) * DAY - DAY;
        const hi = Math.ceil(to / DAY) * DAY + DAY;
        const counts = coverage(piecesOf(from, to, top), lo, hi);
        const wanted = counts.map((_, index) => (lo + index * QUARTER >= from && lo + index * QUARTER < to ? 1 : 0));
        expect(counts).toEqual(wanted);
      }),
      { numRuns: 300 },
    );
  });

  it("read few rows: a UTC day is one, a day of UTC+5:30 one plus its boundaries' shares (8 rows each), an hour of UTC+5:45 at most 5", () => {
    const rows = (pieces: Piece[]) => pieces.reduce((sum, piece) => sum + (piece.to - piece.from) / (piece.span * 60_000), 0);
    const midnight = Date.parse("2026-03-08T00:00:00Z");
    expect(rows(piecesOf(midnight, midnight + DAY, "day"))).toBe(1);
    expect(rows(piecesOf(midnight - 5.5 * HOUR, midnight + DAY - 5.5 * HOUR, "day"))).toBeLessThanOrEqual(17);
    // A year of UTC+5:30 days: each day's UTC day, and each boundary's share of its day read once.
    let year = 0;
    for (let d = 0; d <= 365; d++) year += rows(withinTop(midnight + d * DAY - 5.5 * HOUR, "day")) + (d < 365 ? 1 : 0);
    expect(year).toBeLessThanOrEqual(365 + 366 * 8);
    expect(rows(piecesOf(midnight + 15 * 60_000 * 3, midnight + HOUR + 15 * 60_000 * 3, "hour"))).toBeLessThanOrEqual(5);
  });

  it("refuse ends that are not on a quarter", () => {
    expect(() => piecesOf(1, QUARTER * 4, "day")).toThrow(/quarter/);
  });
});

describe("time-to-answer histograms", () => {
  it("bin every time so that its bin's value is within the documented error", () => {
    expect(RELATIVE_ERROR).toBeLessThanOrEqual(0.02);
    fc.assert(
      fc.property(fc.double({ min: 1, max: 1e11, noNaN: true }), (ms) => {
        const bin = binOf(ms);
        expect(bin).toBeGreaterThan(0);
        expect(Math.abs(binValue(bin) - ms) / ms).toBeLessThanOrEqual(RELATIVE_ERROR + 1e-12);
      }),
      { numRuns: 5000 },
    );
    expect(binOf(0)).toBe(0);
    expect(binOf(0.5)).toBe(0);
    expect(binOf(1)).toBe(1);
    expect(binOf(GROWTH)).toBe(2);
    expect(binOf(1e15)).toBe(MAX_BIN);
  });

  it("decode the database's integer: 9 digits per bin, bin 0 the last", () => {
    const text = "5" + "000000000" + "000000012" + "000000003";
    expect([...decodeHistogram(text)]).toEqual([[0, 3], [1, 12], [3, 5]]);
    expect(decodeHistogram("0").size).toBe(0);
    expect(SLOT_DIGITS).toBe(9);
    expect(() => decodeHistogram("-1000000000")).toThrow();
  });

  it("decode the integer's binary form the statement sends (numeric_send) into dense bins, with a sign", () => {
    // PostgreSQL's numeric binary form: int16 count of base-10,000 digits, int16 weight of the first, uint16 sign
    // (0x4000 negative), int16 display scale, the digits, trailing zero digits left out.
    const send = (value: bigint): Uint8Array => {
      const negative = value < 0n;
      let rest = negative ? -value : value;
      const digits: number[] = [];
      while (rest > 0n) {
        digits.unshift(Number(rest % 10_000n));
        rest /= 10_000n;
      }
      const weight = digits.length - 1;
      while (digits.length && digits[digits.length - 1] === 0) digits.pop();
      const view = new DataView(new ArrayBuffer(8 + 2 * digits.length));
      view.setInt16(0, digits.length);
      view.setInt16(2, Math.max(weight, 0));
      view.setUint16(4, negative ? 0x4000 : 0);
      view.setInt16(6, 0);
      digits.forEach((digit, i) => view.setInt16(8 + 2 * i, digit));
      return new Uint8Array(view.buffer);
    };
    fc.assert(
      fc.property(fc.dictionary(fc.integer({ min: 0, max: MAX_BIN }).map(String), fc.integer({ min: 0, max: 999_999_999 })), (entries) => {
        let value = 0n;
        for (const [bin, count] of Object.entries(entries)) value += BigInt(count) * 10n ** BigInt(9 * Number(bin));
        const [a, b, c] = [emptyBins(), emptyBins(), emptyBins()];
        addBinaryHistogram(send(value), a);
        addBinaryHistogram(send(value), b, -1);
        addBinaryHistogram(send(-value), c);
        const wanted = Array.from({ length: MAX_BIN + 1 }, (_, bin) => entries[String(bin)] ?? 0);
        expect([...a]).toEqual(wanted);
        expect([...b].map((count) => -count || 0)).toEqual(wanted);
        expect([...c].map((count) => -count || 0)).toEqual(wanted);
      }),
      { numRuns: 100 },
    );
    expect(() => addBinaryHistogram(send(10n ** BigInt(9 * (MAX_BIN + 1))), emptyBins())).toThrow(/beyond the last bin/);
    expect(() => addBinaryHistogram(new Uint8Array([0, 1]), emptyBins())).toThrow(/not a histogram/);
    const bins = emptyBins();
    bins[binOf(60_000)] = 1;
    bins[binOf(300_000)] = 1;
    expect(Math.abs(binsPercentile(bins, 0.5)! - 180)).toBeLessThanOrEqual(180 * RELATIVE_ERROR);
    expect(binsPercentile(emptyBins(), 0.9)).toBeNull();
  });

  it("read percentiles as percentile_cont does, within the error of the exact value", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 1, max: 1e9, noNaN: true }), { minLength: 1, maxLength: 200 }), fc.constantFrom(0.5, 0.9), (times, q) => {
        const histogram = new Map<number, number>();
        for (const ms of times) addHistogram(histogram, new Map([[binOf(ms), 1]]));
        const sorted = [...times].sort((a, b) => a - b);
        const rank = q * (sorted.length - 1);
        const low = Math.floor(rank);
        const exactMs = sorted[low] + (rank - low) * ((sorted[Math.ceil(rank)] ?? sorted[low]) - sorted[low]);
        const estimate = histogramPercentile(histogram, q)! * 1000;
        expect(Math.abs(estimate - exactMs)).toBeLessThanOrEqual(exactMs * RELATIVE_ERROR * (1 + 1e-9));
      }),
      { numRuns: 2000 },
    );
    expect(histogramPercentile(new Map(), 0.5)).toBeNull();
  });
});
