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
  const nextHour = ceilTo(t, HOUR);
  return cheapest(
    [...range(60, day, hour), ...withinHour(t)],
    [...range(1440, day, day + DAY), ...range(60, hour, day + DAY, -1), ...withinHour(t)],
    [...range(1440, day, day + DAY), ...range(60, nextHour, day + DAY, -1), ...range(15, t, nextHour, -1)],
  );
}

/** The rows of [start of t's UTC day (or hour), t), t on a quarter, as signed pieces. */
export function withinTop(t: number, top: "day" | "hour"): Piece[] {
  if (t % QUARTER !== 0) throw new Error("order statistics: pieces need quarter-aligned ends");
  return top === "day" ? withinDay(t) : withinHour(t);
}

/** The whole UTC days (or hours) from the one holding `from` up to the one holding `to`. */
export function topRange(from: number, to: number, top: "day" | "hour"): Piece[] {
  const step = top === "day" ? DAY : HOUR;
  return range(top === "day" ? 1440 : 60, floorTo(from, step), floorTo(to, step));
}

/**
 * Signed pieces whose sum is [from, to), both on quarters: whole UTC days (or hours, when `top` is the hour) in
 * between, plus what `to` adds within its day, minus what `from` had within its day. (The repository reads the
 * share within the day of each bucket boundary once, for the two buckets that meet there.)
 */
export function piecesOf(from: number, to: number, top: "day" | "hour"): Piece[] {
  if (to <= from) return [];
  return [...topRange(from, to, top), ...withinTop(to, top), ...neg(withinTop(from, top))];
}

/** The quarter-aligned middle of [from, to), if any: the rest is read from the orders themselves. */
export function alignedPart(from: number, to: number): { from: number; to: number } | null {
  const start = ceilTo(from, QUARTER);
  const end = floorTo(to, QUARTER);
  return end > start ? { from: start, to: end } : null;
}
