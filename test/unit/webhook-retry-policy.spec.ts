import { describe, expect, it } from "vitest";
import {
  decideAfterAttempt,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
  scheduledDelay,
  type AttemptResult,
} from "../../src/domain/webhooks/webhook-retry-policy.ts";

const schedule = [5_000, 300_000, 1_800_000];
const middle = { scheduleMs: schedule, random: () => 0.5 }; // no jitter
const now = new Date("2026-01-31T12:00:00.000Z");
const result = (statusCode: number | null, retryAfter: string | null = null): AttemptResult => ({
  statusCode,
  durationMs: 12,
  error: statusCode && statusCode < 300 ? null : "failed",
  retryAfter,
});

describe("after an attempt", () => {
  it.each([200, 201, 202, 204, 299])("%i is success", (status) => {
    expect(decideAfterAttempt(result(status), 1, 4, middle, now)).toEqual({ kind: "succeeded" });
  });

  it.each([301, 302, 307, 400, 401, 404, 429, 500, 502, 503, 504, null])("%s is retried on the schedule", (status) => {
    expect(decideAfterAttempt(result(status), 1, 4, middle, now)).toEqual({ kind: "retry", delayMs: 5_000 });
    expect(decideAfterAttempt(result(status), 3, 4, middle, now)).toEqual({ kind: "retry", delayMs: 1_800_000 });
  });

  it("gives up after the last attempt", () => {
    expect(decideAfterAttempt(result(500), 4, 4, middle, now)).toEqual({ kind: "dead", disableEndpoint: null });
    expect(decideAfterAttempt(result(null), 5, 4, middle, now)).toEqual({ kind: "dead", disableEndpoint: null });
  });

  it("410 Gone is final and disables the endpoint, even with attempts left", () => {
    const decision = decideAfterAttempt(result(410), 1, 8, middle, now);
    expect(decision.kind).toBe("dead");
    expect(decision.kind === "dead" && decision.disableEndpoint).toMatch(/410/);
  });

  it("jitters by ±10 %", () => {
    const low = decideAfterAttempt(result(500), 1, 4, { scheduleMs: schedule, random: () => 0 }, now);
    const high = decideAfterAttempt(result(500), 1, 4, { scheduleMs: schedule, random: () => 0.999999 }, now);
    expect(low).toEqual({ kind: "retry", delayMs: 4_500 });
    expect(high.kind === "retry" && high.delayMs).toBeGreaterThan(5_400);
    expect(high.kind === "retry" && high.delayMs).toBeLessThanOrEqual(5_500);
  });

  it("waits at least Retry-After on 429 and 503, never less than the schedule", () => {
    expect(decideAfterAttempt(result(503, "120"), 1, 4, middle, now)).toEqual({ kind: "retry", delayMs: 120_000 });
    expect(decideAfterAttempt(result(429, "1"), 1, 4, middle, now)).toEqual({ kind: "retry", delayMs: 5_000 });
    const date = new Date(now.getTime() + 60_000).toUTCString();
    expect(decideAfterAttempt(result(429, date), 1, 4, middle, now)).toEqual({ kind: "retry", delayMs: 60_000 });
    // Other statuses: the header is not a throttle signal.
    expect(decideAfterAttempt(result(500, "120"), 1, 4, middle, now)).toEqual({ kind: "retry", delayMs: 5_000 });
    // Never beyond a day, and never an extra attempt.
    expect(decideAfterAttempt(result(503, "999999999"), 1, 4, middle, now)).toEqual({ kind: "retry", delayMs: MAX_RETRY_AFTER_MS });
    expect(decideAfterAttempt(result(503, "120"), 4, 4, middle, now).kind).toBe("dead");
  });

  it("repeats the schedule's last delay for attempts a manual retry adds beyond it", () => {
    expect(scheduledDelay(schedule, 10)).toBe(1_800_000);
    expect(scheduledDelay([], 1)).toBe(0);
  });
});

describe("Retry-After", () => {
  it.each([
    ["0", 0],
    ["30", 30_000],
    [" 30 ", 30_000],
    [new Date(now.getTime() + 90_000).toUTCString(), 90_000],
    [new Date(now.getTime() - 90_000).toUTCString(), 0],
  ])("%j → %i ms", (value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms);
  });

  it.each([null, "", "soon", "-5", "1.5", "2026-01-31T12:01:00Z"])("ignores %j", (value) => {
    expect(parseRetryAfter(value, now)).toBeNull();
  });
});
