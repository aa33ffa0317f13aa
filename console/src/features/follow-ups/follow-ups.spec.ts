import { describe, expect, it } from "vitest";
import { telLink, whatsappLink } from "./contact-links.ts";
import { newArrivals, remember } from "./queue-arrivals.ts";

describe("contact links", () => {
  it("builds tel: and wa.me links from stored international digits only", () => {
    expect(telLink("966501234567")).toBe("tel:+966501234567");
    expect(whatsappLink("966501234567")).toBe("https://wa.me/966501234567");
    for (const bad of ["", "0501234567", "1234567", "1234567890123456", "+966501234567", "9665012345x7", "javascript:alert(1)"]) {
      expect(telLink(bad), bad).toBeNull();
      expect(whatsappLink(bad), bad).toBeNull();
    }
  });
});

describe("queue arrivals", () => {
  it("reports only orders that were not in the queue at the last look, and nothing on the first", () => {
    const a = { id: "a" };
    const b = { id: "b" };
    const c = { id: "c" };
    expect(newArrivals(null, [a, b])).toEqual([]);
    const seen = remember(null, [a, b]);
    expect(newArrivals(seen, [c, a])).toEqual([c]);
    // An order that left and came back is not new again (it was seen).
    const later = remember(seen, [c]);
    expect(newArrivals(later, [a, b, c])).toEqual([]);
  });

  it("remembers at most 1,000 ids", () => {
    const many = Array.from({ length: 1_500 }, (_, i) => ({ id: String(i) }));
    const seen = remember(null, many);
    expect(seen.size).toBe(1_000);
    expect(seen.has("1499")).toBe(true);
    expect(seen.has("0")).toBe(false);
  });
});
