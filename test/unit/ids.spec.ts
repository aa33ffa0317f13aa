import { describe, expect, it } from "vitest";
import { isUuid, newId } from "../../src/domain/ids.ts";

describe("newId", () => {
  it("makes version-7 UUIDs, unique and strictly increasing across many in the same millisecond", () => {
    const ids = Array.from({ length: 20_000 }, () => newId());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(isUuid(id)).toBe(true);
      expect(id[14]).toBe("7");
      expect("89ab").toContain(id[19]);
    }
    // More ids than the random pool holds (4 KiB = 256 ids): the pool is refilled, and order holds across refills.
    expect([...ids].sort()).toEqual(ids);
  });

  it("starts with the current time in milliseconds", () => {
    const before = Date.now();
    const id = newId();
    const msecs = parseInt(id.replace(/-/g, "").slice(0, 12), 16);
    expect(msecs).toBeGreaterThanOrEqual(before);
    expect(msecs).toBeLessThanOrEqual(Date.now() + 1);
  });
});
