import { z } from "zod";
import { formatPolicyDelay, MAX_POLICY_DELAY_MS, policyDelayMs } from "./policy-duration.ts";
import { deferPastQuietHours, isTimeZone, minutesOfDay, type QuietHours } from "./quiet-hours.ts";

/** What happens when a customer stays silent (SPEC §9), exactly as the API shows it. */
export interface ConfirmationPolicy {
  /** 0–3 delays after the first message, strictly increasing ("2h", "12h"). */
  reminders: string[];
  /** Delay after the first message after which a still-pending order expires; null = never. */
  expireAfter: string | null;
  quietHours: QuietHours | null;
  /**
   * SMS fallback (SPEC §12): when the first WhatsApp message fails asynchronously with one of these codes, the
   * order stays pending and an SMS with its confirmation page goes out; null = off.
   */
  smsFallback: { errorCodes: number[] } | null;
}

export const EMPTY_POLICY: ConfirmationPolicy = Object.freeze({ reminders: [], expireAfter: null, quietHours: null, smsFallback: null });

/** At most this many fallback codes (Meta's asynchronous failure codes number a few dozen). */
export const MAX_SMS_FALLBACK_CODES = 20;

/** SPEC §15: when a still-pending order joins the follow-up queue, after the last message to the customer. */
export const DEFAULT_FOLLOW_UP_AFTER = "2h";

/**
 * The policy as stored and shown (REST and GraphQL): the schedule's fields plus `followUpAfter`, which schedules
 * nothing (the follow-up queue reads the current value, see order-filter-sql.ts).
 */
export interface StoredPolicy extends ConfirmationPolicy {
  followUpAfter: string;
}

export const MAX_REMINDERS = 3;

export const isEmptyPolicy = (policy: ConfirmationPolicy) => policy.reminders.length === 0 && policy.expireAfter === null;

/**
 * The PUT body (REST and GraphQL alike), validated against the configured minimum delay. Unknown fields are
 * refused: a misspelt `expiresAfter` silently dropped would leave orders pending forever.
 */
export function confirmationPolicyInput(minDelayMs: number) {
  const bounds = { min: formatPolicyDelay(minDelayMs), max: formatPolicyDelay(MAX_POLICY_DELAY_MS) };
  const delay = z
    .string()
    .max(16)
    .superRefine((text, ctx) => {
      const ms = policyDelayMs(text);
      if (ms === null) ctx.addIssue({ code: "custom", message: "i18n:format.policy_delay" });
      else if (ms < minDelayMs || ms > MAX_POLICY_DELAY_MS) {
        ctx.addIssue({ code: "custom", message: "i18n:policy.delay_range", params: bounds });
      }
    })
    .meta({ description: `A delay after the first message: <n>s, <n>m, <n>h or <n>d, from ${bounds.min} to ${bounds.max}` });
  const clock = z
    .string()
    .max(5)
    .refine((text) => minutesOfDay(text) !== null, { error: "i18n:format.clock_time" })
    .meta({ description: "Local time, 24-hour HH:MM" });
  const quietHours = z
    .strictObject({
      start: clock,
      end: clock,
      timeZone: z
        .string()
        .max(64)
        .refine(isTimeZone, { error: "i18n:format.time_zone" })
        .meta({ description: "IANA time zone, e.g. Africa/Cairo" }),
    })
    .refine((value) => value.start !== value.end, { error: "i18n:policy.quiet_hours_empty", path: ["end"] });
  return z
    .strictObject({
      reminders: z
        .array(delay)
        .max(MAX_REMINDERS)
        .default([])
        .meta({ description: "0–3 reminder delays after the first message, strictly increasing" }),
      expireAfter: delay.nullable().default(null).meta({ description: "When a still-pending order expires; null = never" }),
      quietHours: quietHours
        .nullable()
        .default(null)
        .meta({ description: "Local hours in which reminders wait (expiry is not moved); null = none" }),
      smsFallback: z
        .strictObject({
          errorCodes: z
            .array(z.number().int().min(1).max(2_147_483_647))
            .min(1)
            .max(MAX_SMS_FALLBACK_CODES)
            .transform((codes) => [...new Set(codes)])
            .meta({ description: "WhatsApp error codes (asynchronous failures of the first message) that send an SMS instead, e.g. [131026]" }),
        })
        .nullable()
        .default(null)
        .meta({ description: "SMS fallback with the order's confirmation page; null = off" }),
      // Omitted or null: the default, as SPEC §15 asks of a PUT that leaves it out.
      followUpAfter: delay
        .nullable()
        .default(DEFAULT_FOLLOW_UP_AFTER)
        .transform((value) => value ?? DEFAULT_FOLLOW_UP_AFTER)
        .meta({ description: `When a still-pending order joins the follow-up queue, after the last message to the customer (default ${DEFAULT_FOLLOW_UP_AFTER})` }),
    })
    .superRefine((policy, ctx) => {
      const delays = policy.reminders.map(policyDelayMs);
      if (delays.some((ms) => ms === null)) return; // reported per item already
      for (let index = 1; index < delays.length; index++) {
        if (delays[index]! <= delays[index - 1]!) {
          ctx.addIssue({ code: "custom", path: ["reminders", index], message: "i18n:policy.reminders_increasing" });
        }
      }
      const expiry = policy.expireAfter === null ? null : policyDelayMs(policy.expireAfter);
      const last = delays.at(-1);
      if (expiry !== null && last != null && expiry <= last) {
        ctx.addIssue({ code: "custom", path: ["expireAfter"], message: "i18n:policy.expiry_after_reminders" });
      }
    })
    .meta({ id: "ConfirmationPolicyReplacement" });
}

export type ConfirmationPolicyInput = z.infer<ReturnType<typeof confirmationPolicyInput>>;

/** One planned step of an order's schedule. */
export interface PlannedTask {
  kind: "reminder" | "expiry";
  /** Reminder number 1..3; 0 for the expiry. */
  position: number;
  dueAt: Date;
}

/**
 * An order's schedule under `policy`, counted from `pendingAt` (when the order became pending). Reminders
 * falling in quiet hours wait until they end; reminders that would then coincide keep only the last one
 * (a customer never gets two at once), and a reminder that would be due at or after the expiry is dropped.
 */
export function planSchedule(policy: Omit<ConfirmationPolicy, "smsFallback">, pendingAt: Date): PlannedTask[] {
  const expiryMs = policy.expireAfter === null ? null : policyDelayMs(policy.expireAfter);
  const expiresAt = expiryMs === null ? null : new Date(pendingAt.getTime() + expiryMs);
  const reminders: PlannedTask[] = [];
  policy.reminders.forEach((text, index) => {
    const ms = policyDelayMs(text);
    if (ms === null) return;
    const due = new Date(pendingAt.getTime() + ms);
    const dueAt = policy.quietHours ? deferPastQuietHours(due, policy.quietHours) : due;
    if (expiresAt && dueAt.getTime() >= expiresAt.getTime()) return;
    const previous = reminders.at(-1);
    if (previous && previous.dueAt.getTime() === dueAt.getTime()) reminders.pop();
    reminders.push({ kind: "reminder", position: index + 1, dueAt });
  });
  return expiresAt ? [...reminders, { kind: "expiry", position: 0, dueAt: expiresAt }] : reminders;
}
