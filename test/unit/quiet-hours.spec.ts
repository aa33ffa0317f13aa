import { describe, expect, it } from "vitest";
import { deferPastQuietHours, isTimeZone, minutesOfDay } from "../../src/domain/confirmation/quiet-hours.ts";

const at = (iso: string) => new Date(iso);
const defer = (iso: string, start: string, end: string, timeZone: string) =>
  deferPastQuietHours(at(iso), { start, end, timeZone }).toISOString();

describe("deferPastQuietHours", () => {
  describe("a window crossing midnight (22:00–09:00, Africa/Cairo, UTC+2 in winter)", () => {
    const cairo = (iso: string) => defer(iso, "22:00", "09:00", "Africa/Cairo");

    it("leaves a time outside the window alone", () => {
      expect(cairo("2026-01-15T10:00:00.000Z")).toBe("2026-01-15T10:00:00.000Z"); // 12:00 local
      expect(cairo("2026-01-15T19:59:59.999Z")).toBe("2026-01-15T19:59:59.999Z"); // 21:59:59.999 local
      expect(cairo("2026-01-15T07:00:00.000Z")).toBe("2026-01-15T07:00:00.000Z"); // 09:00 local: the window has ended
    });

    it("moves the evening part to 09:00 the next local day, across midnight and the year's end", () => {
      expect(cairo("2026-01-15T20:00:00.000Z")).toBe("2026-01-16T07:00:00.000Z"); // 22:00 local: the window starts
      expect(cairo("2026-01-15T21:30:00.000Z")).toBe("2026-01-16T07:00:00.000Z"); // 23:30 local
      expect(cairo("2026-12-31T21:59:00.000Z")).toBe("2027-01-01T07:00:00.000Z"); // 23:59 on 31 December
    });

    it("moves the early-morning part to 09:00 the same local day", () => {
      expect(cairo("2026-01-15T22:30:00.000Z")).toBe("2026-01-16T07:00:00.000Z"); // 00:30 local on the 16th
      expect(cairo("2026-01-16T06:59:59.000Z")).toBe("2026-01-16T07:00:00.000Z"); // 08:59:59 local
    });
  });

  it("a window within one day (12:00–14:00 UTC)", () => {
    expect(defer("2026-05-01T11:59:00.000Z", "12:00", "14:00", "UTC")).toBe("2026-05-01T11:59:00.000Z");
    expect(defer("2026-05-01T12:00:00.000Z", "12:00", "14:00", "UTC")).toBe("2026-05-01T14:00:00.000Z");
    expect(defer("2026-05-01T13:45:00.000Z", "12:00", "14:00", "UTC")).toBe("2026-05-01T14:00:00.000Z");
    expect(defer("2026-05-01T14:00:00.000Z", "12:00", "14:00", "UTC")).toBe("2026-05-01T14:00:00.000Z");
  });

  describe("DST changes of the zone move the UTC instant, never the local hour", () => {
    it("spring forward (America/New_York, 8 March 2026): 09:00 EDT is 13:00Z, not 14:00Z", () => {
      // 23:30 EST on 7 March → 09:00 EDT on 8 March.
      expect(defer("2026-03-08T04:30:00.000Z", "22:00", "09:00", "America/New_York")).toBe("2026-03-08T13:00:00.000Z");
      // The day before the change, the same local end is 14:00Z.
      expect(defer("2026-03-07T04:30:00.000Z", "22:00", "09:00", "America/New_York")).toBe("2026-03-07T14:00:00.000Z");
    });

    it("an end time inside the spring-forward gap is shifted forward by the gap (02:30 → 03:30 EDT)", () => {
      expect(defer("2026-03-08T05:30:00.000Z", "00:00", "02:30", "America/New_York")).toBe("2026-03-08T07:30:00.000Z");
    });

    it("fall back (America/New_York, 1 November 2026): 09:00 EST is 14:00Z", () => {
      expect(defer("2026-11-01T03:30:00.000Z", "22:00", "09:00", "America/New_York")).toBe("2026-11-01T14:00:00.000Z");
      // Inside the repeated hour (01:30 EST, the second 01:30), still before 09:00 local.
      expect(defer("2026-11-01T06:30:00.000Z", "22:00", "09:00", "America/New_York")).toBe("2026-11-01T14:00:00.000Z");
    });

    it("Cairo's summer time (from 24 April 2026): the same 09:00 local is 06:00Z", () => {
      expect(defer("2026-04-24T20:00:00.000Z", "22:00", "09:00", "Africa/Cairo")).toBe("2026-04-25T06:00:00.000Z");
      expect(defer("2026-04-22T20:00:00.000Z", "22:00", "09:00", "Africa/Cairo")).toBe("2026-04-23T07:00:00.000Z");
    });
  });
});

describe("minutesOfDay and isTimeZone", () => {
  it("reads 24-hour HH:MM only", () => {
    expect(minutesOfDay("00:00")).toBe(0);
    expect(minutesOfDay("23:59")).toBe(1439);
    for (const bad of ["24:00", "9:00", "12:60", "12:00:00", " 12:00", "noon", ""]) expect(minutesOfDay(bad)).toBeNull();
  });

  it("knows IANA zones and refuses anything else", () => {
    for (const zone of ["UTC", "Africa/Cairo", "Asia/Riyadh", "America/New_York", "Europe/London"]) expect(isTimeZone(zone)).toBe(true);
    for (const zone of ["Mars/Olympus", "", "Africa/Cairo\u0000", "x".repeat(65), "GMT+25"]) expect(isTimeZone(zone)).toBe(false);
  });
});
