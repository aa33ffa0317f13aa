/**
 * Policy delays as merchants write them (SPEC §9): a whole number and one unit, `<n>s|m|h|d` ("90m", "2h").
 * Kept as written when stored and shown; converted to milliseconds when an order's schedule is computed.
 */
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const POLICY_DURATION = /^([1-9][0-9]{0,6})([smhd])$/;

/** Milliseconds of a policy delay, or null when the text is not `<n>s|m|h|d`. */
export function policyDelayMs(text: string): number | null {
  const match = POLICY_DURATION.exec(text);
  return match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : null;
}

/** The shortest exact way to write `ms` as a policy delay (for messages: "5m", "7d"). */
export function formatPolicyDelay(ms: number): string {
  for (const [unit, size] of [["d", UNIT_MS.d], ["h", UNIT_MS.h], ["m", UNIT_MS.m]] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${Math.ceil(ms / 1000)}s`;
}

/** The longest delay a policy may use: reminders and expiry within a week of the first message. */
export const MAX_POLICY_DELAY_MS = 7 * UNIT_MS.d;
