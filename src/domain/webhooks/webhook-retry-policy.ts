/**
 * What happens after one delivery attempt (SPEC §4, Standard Webhooks status-code handling): pure, so every rule
 * is unit-tested without a clock or a network.
 */

/** What the sender observed. `statusCode` is null when no response arrived (timeout, refused, blocked, …). */
export interface AttemptResult {
  statusCode: number | null;
  durationMs: number;
  /** Null on success; otherwise the text the merchant sees in the delivery log. */
  error: string | null;
  /** The response's Retry-After header, when it had one. */
  retryAfter: string | null;
}

export type AttemptDecision =
  | { kind: "succeeded" }
  /** No attempt left, or the receiver answered 410 Gone (`disableEndpoint` then says why). */
  | { kind: "dead"; disableEndpoint: string | null }
  | { kind: "retry"; delayMs: number };

/** A Retry-After beyond this is clamped: a receiver cannot park a delivery for longer than a day per attempt. */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;
/** ±10 %: retries of many deliveries that failed together (an endpoint outage) do not return in lockstep. */
export const JITTER = 0.1;

export interface RetryPolicy {
  /** Delays between attempts, after the immediate first one (WEBHOOK_RETRY_SCHEDULE). */
  scheduleMs: readonly number[];
  /** In [0, 1): injectable for tests. */
  random?: () => number;
}

export const isSuccess = (statusCode: number | null) => statusCode !== null && statusCode >= 200 && statusCode < 300;

/**
 * `attemptNumber` is 1 for the first attempt. A failure of attempt `maxAttempts` is final. The wait before the
 * next attempt is `scheduleMs[attemptNumber - 1]` with jitter; a 429 or 503 carrying Retry-After waits at least
 * that long (never less than the schedule: the header is a "not before", and the schedule is our own back-off).
 */
export function decideAfterAttempt(
  result: AttemptResult,
  attemptNumber: number,
  maxAttempts: number,
  policy: RetryPolicy,
  now: Date = new Date(),
): AttemptDecision {
  if (isSuccess(result.statusCode)) return { kind: "succeeded" };
  if (result.statusCode === 410) return { kind: "dead", disableEndpoint: "The endpoint answered 410 Gone" };
  if (attemptNumber >= maxAttempts) return { kind: "dead", disableEndpoint: null };
  const scheduled = withJitter(scheduledDelay(policy.scheduleMs, attemptNumber), policy.random ?? Math.random);
  const requested =
    result.statusCode === 429 || result.statusCode === 503 ? parseRetryAfter(result.retryAfter, now) : null;
  return { kind: "retry", delayMs: requested === null ? scheduled : Math.max(scheduled, requested) };
}

/** The schedule's delay after attempt `attemptNumber`; manual retries can go past its end, which repeats the last. */
export function scheduledDelay(scheduleMs: readonly number[], attemptNumber: number): number {
  if (scheduleMs.length === 0) return 0;
  return scheduleMs[Math.min(Math.max(attemptNumber - 1, 0), scheduleMs.length - 1)];
}

export function withJitter(delayMs: number, random: () => number): number {
  return Math.max(0, Math.round(delayMs * (1 - JITTER + 2 * JITTER * random())));
}

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 §10.2.3), in ms from `now`, clamped to 0…24 h. */
export function parseRetryAfter(value: string | null | undefined, now: Date = new Date()): number | null {
  if (!value) return null;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const at = Date.parse(text);
    // Only the HTTP date form (e.g. "Wed, 21 Oct 2026 07:28:00 GMT"), not any string Date.parse happens to read.
    if (Number.isNaN(at) || !/GMT$/i.test(text)) return null;
    ms = at - now.getTime();
  }
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}
