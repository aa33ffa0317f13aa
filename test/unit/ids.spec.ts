import { describe, expect, it } from "vitest";
import { isUuid, newId, randomIdText } from "../../src/domain/ids.ts";

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

describe("randomIdText", () => {
  it("gives base64url text of the asked bytes, different every time, across refills of the pool shared with newId", () => {
    const texts = new Set<string>();
    for (let i = 0; i < 5_000; i++) {
      const text = randomIdText(18);
      expect(text).toMatch(/^[A-Za-z0-9_-]{24}$/);
      texts.add(text);
      // Interleaved with ids, so draws of 18 and 16 bytes cross the pool's 4 KiB edge at odd offsets.
      if (i % 3 === 0) expect(isUuid(newId())).toBe(true);
    }
    expect(texts.size).toBe(5_000);
    expect(Buffer.from(randomIdText(64), "base64url")).toHaveLength(64);
  });

  it("refuses a size outside 1 to 64 bytes", () => {
    for (const size of [0, -1, 65, 1.5, Number.NaN]) expect(() => randomIdText(size)).toThrow(RangeError);
  });
});
