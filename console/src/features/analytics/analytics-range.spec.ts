import { describe, expect, it } from "vitest";
import { addDays, localDay, localMidnight, readAnalyticsParams, toStatsRange, writeAnalyticsParams } from "./analytics-range.ts";
import { formatDuration, formatRate } from "./analytics-format.ts";

const UNITS = { seconds: "s", minutes: "min", hours: "h", days: "d" };

describe("the analytics range", () => {
  it("reads the URL, falling back to the last 7 days, by day, in the browser's zone", () => {
    expect(readAnalyticsParams(new URLSearchParams(""), "Asia/Riyadh")).toEqual({ range: "7d", from: "", to: "", interval: "day", timeZone: "Asia/Riyadh" });
    expect(readAnalyticsParams(new URLSearchParams("range=custom&from=2026-11-05&to=2026-11-01&tz=Mars/Base"), "UTC")).toMatchObject({ range: "7d", timeZone: "UTC" });
    const custom = readAnalyticsParams(new URLSearchParams("range=custom&from=2026-11-01&to=2026-11-05&interval=hour&tz=Asia/Dubai"), "UTC");
    expect(custom).toEqual({ range: "custom", from: "2026-11-01", to: "2026-11-05", interval: "hour", timeZone: "Asia/Dubai" });
    expect(writeAnalyticsParams(custom, "UTC").toString()).toBe("range=custom&from=2026-11-01&to=2026-11-05&interval=hour&tz=Asia%2FDubai");
    expect(writeAnalyticsParams({ ...custom, range: "30d", interval: "day", timeZone: "UTC" }, "UTC").toString()).toBe("range=30d");
  });

  it("turns local days of the chosen zone into the API's [from, to), the last day included", () => {
    const now = new Date("2026-11-24T22:30:00Z"); // already the 25th in Riyadh (UTC+3)
    expect(localDay(now, "Asia/Riyadh")).toBe("2026-11-25");
    expect(toStatsRange({ range: "7d", from: "", to: "", interval: "day", timeZone: "Asia/Riyadh" }, now)).toEqual({
      from: "2026-11-18T21:00:00.000Z",
      to: "2026-11-25T21:00:00.000Z",
      firstDay: "2026-11-19",
      lastDay: "2026-11-25",
    });
    expect(toStatsRange({ range: "custom", from: "2026-11-01", to: "2026-11-01", interval: "day", timeZone: "UTC" }, now)).toMatchObject({
      from: "2026-11-01T00:00:00.000Z",
      to: "2026-11-02T00:00:00.000Z",
    });
  });

  it("finds local midnight across a DST change and across month ends", () => {
    expect(localMidnight("2026-03-08", "America/New_York").toISOString()).toBe("2026-03-08T05:00:00.000Z"); // EST
    expect(localMidnight("2026-03-09", "America/New_York").toISOString()).toBe("2026-03-09T04:00:00.000Z"); // EDT
    expect(localMidnight("2026-04-01", "Asia/Kolkata").toISOString()).toBe("2026-03-31T18:30:00.000Z");
    expect(addDays("2026-02-28", 1)).toBe("2026-03-01");
    expect(addDays("2026-01-01", -1)).toBe("2025-12-31");
  });
});

describe("analytics formats", () => {
  it("writes rates as percentages and durations in the two largest units", () => {
    expect(formatRate(0.6667, "en-GB", "—")).toBe("66.7%");
    expect(formatRate(null, "en-GB", "—")).toBe("—");
    expect(formatDuration(0.24, "en-GB", UNITS, "—")).toBe("0.2 s");
    expect(formatDuration(45, "en-GB", UNITS, "—")).toBe("45 s");
    expect(formatDuration(200, "en-GB", UNITS, "—")).toBe("3 min 20 s");
    expect(formatDuration(7_500, "en-GB", UNITS, "—")).toBe("2 h 5 min");
    expect(formatDuration(3_600, "en-GB", UNITS, "—")).toBe("1 h");
    expect(formatDuration(100_800, "en-GB", UNITS, "—")).toBe("1 d 4 h");
    expect(formatDuration(null, "en-GB", UNITS, "—")).toBe("—");
  });
});
