/** How the analytics page writes rates and durations (pure; the catalogue's units are passed in). */
export interface DurationUnits {
  seconds: string;
  minutes: string;
  hours: string;
  days: string;
}

/** 0–1 as a percentage with at most one decimal, through Intl in the chosen locale; null is the catalogue's dash. */
export function formatRate(rate: number | null | undefined, locale: string, none: string): string {
  if (rate === null || rate === undefined) return none;
  return new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 1 }).format(rate);
}

/** Seconds as the two largest units a merchant reads at a glance: "0.4 s", "45 s", "3 min 20 s", "2 h 5 min", "1 d 4 h". */
export function formatDuration(seconds: number | null | undefined, locale: string, units: DurationUnits, none: string): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return none;
  const number = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
  // Answers within seconds (test mode, or a customer with the chat open) keep a decimal instead of reading "0 s".
  if (seconds < 10) return `${new Intl.NumberFormat(locale, { maximumFractionDigits: 1 }).format(seconds)} ${units.seconds}`;
  const whole = Math.round(seconds);
  if (whole < 60) return `${number.format(whole)} ${units.seconds}`;
  const parts: [number, string][] = [
    [Math.floor(whole / 86_400), units.days],
    [Math.floor((whole % 86_400) / 3_600), units.hours],
    [Math.floor((whole % 3_600) / 60), units.minutes],
    [whole % 60, units.seconds],
  ];
  const first = parts.findIndex(([value]) => value > 0);
  return parts
    .slice(first, first + 2)
    .filter(([value], index) => index === 0 || value > 0)
    .map(([value, unit]) => `${number.format(value)} ${unit}`)
    .join(" ");
}
