/**
 * The analytics page's range, kept in the URL (shareable, reload-safe):
 * ?range=7d|30d|custom&from=2026-11-01&to=2026-11-24&interval=day|hour&tz=Asia/Riyadh
 * Days are calendar days of the chosen time zone (not the browser's): "to" includes its whole day, so the API's
 * [from, to) ends at the next local midnight. Pure, so it is unit-tested without a browser.
 */
export type RangePreset = "7d" | "30d" | "custom";
export type Interval = "day" | "hour";

export interface AnalyticsParams {
  range: RangePreset;
  /** Local days (YYYY-MM-DD) of a custom range; empty for presets. */
  from: string;
  to: string;
  interval: Interval;
  timeZone: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const PRESET_DAYS: Record<Exclude<RangePreset, "custom">, number> = { "7d": 7, "30d": 30 };

/** A short list of merchants' zones offered next to the free-text field (any IANA name is accepted). */
export const COMMON_TIME_ZONES = [
  "Asia/Riyadh",
  "Asia/Dubai",
  "Asia/Kuwait",
  "Asia/Qatar",
  "Asia/Bahrain",
  "Asia/Muscat",
  "Africa/Cairo",
  "Asia/Amman",
  "Africa/Casablanca",
  "Europe/London",
  "UTC",
];

export function isTimeZone(name: string): boolean {
  if (!name || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export function readAnalyticsParams(search: URLSearchParams, browserTimeZone: string): AnalyticsParams {
  const range = search.get("range");
  const from = search.get("from") ?? "";
  const to = search.get("to") ?? "";
  const custom = range === "custom" && DATE.test(from) && DATE.test(to) && from <= to;
  const tz = search.get("tz") ?? "";
  return {
    range: custom ? "custom" : range === "30d" ? "30d" : "7d",
    from: custom ? from : "",
    to: custom ? to : "",
    interval: search.get("interval") === "hour" ? "hour" : "day",
    timeZone: isTimeZone(tz) ? tz : browserTimeZone,
  };
}

export function writeAnalyticsParams(params: AnalyticsParams, browserTimeZone: string): URLSearchParams {
  const search = new URLSearchParams();
  search.set("range", params.range);
  if (params.range === "custom") {
    search.set("from", params.from);
    search.set("to", params.to);
  }
  if (params.interval !== "day") search.set("interval", params.interval);
  if (params.timeZone !== browserTimeZone) search.set("tz", params.timeZone);
  return search;
}

/** The API's [from, to) for these params, as UTC instants; `now` is when the page reads it. */
export function toStatsRange(params: AnalyticsParams, now: Date): { from: string; to: string; firstDay: string; lastDay: string } {
  let firstDay: string;
  let lastDay: string;
  if (params.range === "custom") {
    firstDay = params.from;
    lastDay = params.to;
  } else {
    lastDay = localDay(now, params.timeZone);
    firstDay = addDays(lastDay, -(PRESET_DAYS[params.range] - 1));
  }
  return {
    from: localMidnight(firstDay, params.timeZone).toISOString(),
    to: localMidnight(addDays(lastDay, 1), params.timeZone).toISOString(),
    firstDay,
    lastDay,
  };
}

/** The calendar day (YYYY-MM-DD) of an instant in a time zone. */
export function localDay(instant: Date, timeZone: string): string {
  const parts = zonedParts(instant, timeZone);
  return `${parts.year}-${pad(parts.month)}-${pad(parts.day)}`;
}

export function addDays(day: string, days: number): string {
  const [year, month, date] = day.split("-").map(Number);
  const shifted = new Date(Date.UTC(year, month - 1, date + days));
  return shifted.toISOString().slice(0, 10);
}

/** The instant of a local midnight in a time zone (the offset read twice, so a DST change on that day is right). */
export function localMidnight(day: string, timeZone: string): Date {
  const [year, month, date] = day.split("-").map(Number);
  const wall = Date.UTC(year, month - 1, date);
  let instant = wall - offsetMs(new Date(wall), timeZone);
  const corrected = wall - offsetMs(new Date(instant), timeZone);
  if (corrected !== instant) instant = corrected;
  return new Date(instant);
}

function offsetMs(instant: Date, timeZone: string): number {
  const p = zonedParts(instant, timeZone);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return wall - Math.floor(instant.getTime() / 1000) * 1000;
}

function zonedParts(instant: Date, timeZone: string) {
  const format = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    second: "numeric",
  });
  const values: Record<string, number> = {};
  for (const part of format.formatToParts(instant)) if (part.type !== "literal") values[part.type] = Number(part.value);
  return { year: values.year, month: values.month, day: values.day, hour: values.hour % 24, minute: values.minute, second: values.second };
}

const pad = (n: number) => String(n).padStart(2, "0");
