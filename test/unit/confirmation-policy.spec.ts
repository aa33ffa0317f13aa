import { describe, expect, it } from "vitest";
import { confirmationPolicyInput, EMPTY_POLICY, planSchedule } from "../../src/domain/confirmation/confirmation-policy.ts";
import { formatPolicyDelay, policyDelayMs } from "../../src/domain/confirmation/policy-duration.ts";

const MIN = 5 * 60_000;
const schema = confirmationPolicyInput(MIN);
const t0 = new Date("2026-01-15T10:00:00.000Z");
const plus = (ms: number) => new Date(t0.getTime() + ms).toISOString();
const plan = (policy: Parameters<typeof planSchedule>[0]) =>
  planSchedule(policy, t0).map((task) => [task.kind, task.position, task.dueAt.toISOString()]);

describe("policy delays", () => {
  it("are a whole number and one unit", () => {
    expect(policyDelayMs("90s")).toBe(90_000);
    expect(policyDelayMs("5m")).toBe(300_000);
    expect(policyDelayMs("2h")).toBe(7_200_000);
    expect(policyDelayMs("7d")).toBe(604_800_000);
    for (const bad of ["", "0s", "1.5h", "2 h", "2H", "h", "-1h", "1w", "01h", "2h ", "99999999s"]) expect(policyDelayMs(bad)).toBeNull();
  });

  it("are shown in their shortest exact form", () => {
    expect(formatPolicyDelay(300_000)).toBe("5m");
    expect(formatPolicyDelay(604_800_000)).toBe("7d");
    expect(formatPolicyDelay(5_400_000)).toBe("90m");
    expect(formatPolicyDelay(1_000)).toBe("1s");
  });
});

describe("the policy schema", () => {
  it("defaults every field: {} is the empty policy", () => {
    expect(schema.parse({})).toEqual({ ...EMPTY_POLICY, followUpAfter: "2h" });
  });

  it("accepts a full policy, unchanged", () => {
    const policy = {
      reminders: ["5m", "2h", "12h"],
      expireAfter: "7d",
      quietHours: { start: "22:00", end: "09:00", timeZone: "Africa/Cairo" },
      smsFallback: { errorCodes: [131026] },
      followUpAfter: "4h",
    };
    expect(schema.parse(policy)).toEqual(policy);
  });

  it("bounds delays by the configured minimum and 7 days", () => {
    expect(schema.safeParse({ reminders: ["4m"] }).success).toBe(false);
    expect(schema.safeParse({ reminders: ["299s"] }).success).toBe(false);
    expect(schema.safeParse({ reminders: ["300s"] }).success).toBe(true);
    expect(schema.safeParse({ expireAfter: "168h" }).success).toBe(true);
    expect(schema.safeParse({ expireAfter: "169h" }).success).toBe(false);
    expect(confirmationPolicyInput(1000).safeParse({ reminders: ["1s"] }).success).toBe(true);
  });

  it("reports the problems with their paths and parameters", () => {
    const result = schema.safeParse({ reminders: ["2h", "1h", "8d"], expireAfter: "1h", extra: true });
    expect(result.success).toBe(false);
    const issues = result.error!.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message, params: (issue as { params?: unknown }).params }));
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: "reminders.2", message: "i18n:policy.delay_range", params: { min: "5m", max: "7d" } }),
        expect.objectContaining({ path: "", message: expect.any(String) }),
      ]),
    );
  });

  it("refuses decreasing reminders and an expiry not after the last reminder", () => {
    const messages = (input: unknown) => schema.safeParse(input).error?.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`);
    expect(messages({ reminders: ["2h", "1h"] })).toEqual(["reminders.1 i18n:policy.reminders_increasing"]);
    expect(messages({ reminders: ["2h"], expireAfter: "2h" })).toEqual(["expireAfter i18n:policy.expiry_after_reminders"]);
    expect(messages({ reminders: ["2h"], expireAfter: "121m" })).toBeUndefined();
  });
});

describe("planSchedule", () => {
  it("schedules nothing for the empty policy", () => {
    expect(plan(EMPTY_POLICY)).toEqual([]);
  });

  it("counts every delay from the moment the order became pending", () => {
    expect(plan({ reminders: ["2h", "12h"], expireAfter: "1d", quietHours: null })).toEqual([
      ["reminder", 1, plus(2 * 3_600_000)],
      ["reminder", 2, plus(12 * 3_600_000)],
      ["expiry", 0, plus(24 * 3_600_000)],
    ]);
  });

  it("defers reminders out of quiet hours, never the expiry", () => {
    // t0 is 12:00 in Cairo; a reminder at +11h falls at 23:00 local → 09:00 the next day (07:00Z).
    const quietHours = { start: "22:00", end: "09:00", timeZone: "Africa/Cairo" };
    expect(plan({ reminders: ["1h", "11h"], expireAfter: "2d", quietHours })).toEqual([
      ["reminder", 1, plus(3_600_000)],
      ["reminder", 2, "2026-01-16T07:00:00.000Z"],
      ["expiry", 0, plus(48 * 3_600_000)],
    ]);
  });

  it("keeps only the last of reminders that quiet hours make coincide", () => {
    const quietHours = { start: "22:00", end: "09:00", timeZone: "Africa/Cairo" };
    expect(plan({ reminders: ["11h", "13h"], expireAfter: null, quietHours })).toEqual([["reminder", 2, "2026-01-16T07:00:00.000Z"]]);
  });

  it("drops a reminder that quiet hours would push to or past the expiry", () => {
    const quietHours = { start: "22:00", end: "09:00", timeZone: "Africa/Cairo" };
    expect(plan({ reminders: ["1h", "11h"], expireAfter: "12h", quietHours })).toEqual([
      ["reminder", 1, plus(3_600_000)],
      ["expiry", 0, plus(12 * 3_600_000)],
    ]);
  });
});
