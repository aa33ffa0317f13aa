/**
 * How a range of time is read from the statistics buckets (migration 20261125250000_order_stat_buckets): rows of
 * 15 minutes, 1 hour and 1 day (UTC), added or subtracted. A local day of UTC+5:30 (18:30Z to 18:30Z) is its UTC
 * day, plus the previous day's 18:30–24:00, minus its own 18:30–24:00, each of those an hour-and-quarters piece,
 * so a year by day reads about 3,000 rows instead of 35,000 quarters, and a UTC day one row.
 */
export const QUARTER = 15 * 60_000;
export const HOUR = 60 * 60_000;
export const DAY = 24 * HOUR;

/** The rows of `span` minutes whose start is in [from, to), counted with `sign`. */
export interface Piece {
  span: 15 | 60 | 1440;
  from: number;
  to: number;
  sign: 1 | -1;
}

const floorTo = (t: number, step: number) => Math.floor(t / step) * step;
const ceilTo = (t: number, step: number) => Math.ceil(t / step) * step;
const rows = (piece: Piece) => Math.max(0, (piece.to - piece.from) / (piece.span * 60_000));
const cost = (pieces: Piece[]) => pieces.reduce((sum, piece) => sum + rows(piece), 0);
const neg = (pieces: Piece[]): Piece[] => pieces.map((piece) => ({ ...piece, sign: piece.sign === 1 ? -1 : 1 }));
const range = (span: Piece["span"], from: number, to: number, sign: 1 | -1 = 1): Piece[] => (to > from ? [{ span, from, to, sign }] : []);
const cheapest = (...choices: Piece[][]) => choices.reduce((best, choice) => (cost(choice) < cost(best) ? choice : best));

/** [start of t's UTC hour, t), t on a quarter: its quarters, or the hour minus its later quarters. */
function withinHour(t: number): Piece[] {
  const hour = floorTo(t, HOUR);
  return cheapest(range(15, hour, t), [...range(60, hour, hour + HOUR), ...range(15, t, hour + HOUR, -1)]);
}

/** [start of t's UTC day, t), t on a quarter: hours and quarters from midnight, or the day minus the rest. */
function withinDay(t: number): Piece[] {
  const day = floorTo(t, DAY);
  const hour = floorTo(t, HOUR);
  if (t === day) return [];
  return cheapest(
    [...range(60, day, hour), ...withinHour(t)],
    [...range(1440, day, day + DAY), ...range(60, hour, day + DAY, -1), ...withinHour(t)],
  );
}

/**
 * Signed pieces whose sum is [from, to), both on quarters: whole UTC days (or hours, when `top` is the hour) in
 * between, plus what `to` adds within its day, minus what `from` had within its day.
 */
export function piecesOf(from: number, to: number, top: "day" | "hour"): Piece[] {
  if (from % QUARTER !== 0 || to % QUARTER !== 0) throw new Error("order statistics: pieces need quarter-aligned ends");
  if (to <= from) return [];
  const step = top === "day" ? DAY : HOUR;
  const within = top === "day" ? withinDay : withinHour;
  const pieces = [...range(top === "day" ? 1440 : 60, floorTo(from, step), floorTo(to, step)), ...within(to), ...neg(within(from))];
  // Cancel a piece against its exact opposite (a bucket inside one day/hour: to's and from's shares overlap).
  const kept: Piece[] = [];
  for (const piece of pieces) {
    const opposite = kept.findIndex((k) => k.span === piece.span && k.from === piece.from && k.to === piece.to && k.sign !== piece.sign);
    if (opposite >= 0) kept.splice(opposite, 1);
    else kept.push(piece);
  }
  return kept;
}

/** The quarter-aligned middle of [from, to), if any: the rest is read from the orders themselves. */
export function alignedPart(from: number, to: number): { from: number; to: number } | null {
  const start = ceilTo(from, QUARTER);
  const end = floorTo(to, QUARTER);
  return end > start ? { from: start, to: end } : null;
}
