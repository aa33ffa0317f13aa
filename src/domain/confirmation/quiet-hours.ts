import { DateTime } from "luxon";

/** Local hours in which no reminder is sent, e.g. 22:00–09:00 in Africa/Cairo (the window may cross midnight). */
export interface QuietHours {
  /** "HH:MM", 24-hour clock, local to `timeZone`. */
  start: string;
  end: string;
  /** IANA time zone name. */
  timeZone: string;
}

const HH_MM = /^([01][0-9]|2[0-3]):([0-5][0-9])$/;

/** Minutes after local midnight of "HH:MM", or null when the text is not a 24-hour time. */
export function minutesOfDay(text: string): number | null {
  const match = HH_MM.exec(text);
  return match ? Number(match[1]) * 60 + Number(match[2]) : null;
}

/** Whether `name` is an IANA time zone this runtime knows (Intl's data, the same luxon uses). */
export function isTimeZone(name: string): boolean {
  if (name.length === 0 || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return DateTime.local().setZone(name).isValid;
  } catch {
    return false;
  }
}

/**
 * The instant a reminder due at `due` is actually sent: `due` itself outside quiet hours, otherwise the end
 * of the quiet period it falls in (local wall-clock time in the merchant's zone, so DST changes move the
 * UTC instant, not the local hour; an end time that does not exist on a spring-forward day is the first
 * instant after the gap).
 */
export function deferPastQuietHours(due: Date, quiet: QuietHours): Date {
  const start = minutesOfDay(quiet.start);
  const end = minutesOfDay(quiet.end);
  if (start === null || end === null || start === end) return due;
  const local = DateTime.fromJSDate(due, { zone: quiet.timeZone });
  const minute = local.hour * 60 + local.minute + (local.second * 1000 + local.millisecond) / 60_000;
  const inside = start < end ? minute >= start && minute < end : minute >= start || minute < end;
  if (!inside) return due;
  // Before `end` on this local day (the early-morning part of a window crossing midnight, or a same-day
  // window): it ends today; otherwise (the evening part) it ends tomorrow.
  const day = minute < end ? local.startOf("day") : local.startOf("day").plus({ days: 1 });
  const ends = day.set({ hour: Math.floor(end / 60), minute: end % 60, second: 0, millisecond: 0 });
  return ends.toJSDate();
}
