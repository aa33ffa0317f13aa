import { describe, expect, it } from "vitest";
import { negotiateLanguage } from "../../src/http/language.ts";

describe("negotiateLanguage", () => {
  it.each([
    [undefined, "en"],
    ["", "en"],
    ["en", "en"],
    ["ar", "ar"],
    ["AR", "ar"],
    ["ar-EG", "ar"],
    ["ar-SA,ar;q=0.9", "ar"],
    ["ar;q=0.9, en;q=0.8", "ar"],
    ["en;q=0.5, ar;q=0.9", "ar"],
    ["ar;q=0.5, en;q=0.9", "en"],
    ["en-US,en;q=0.9", "en"],
    ["fr", "en"],
    ["fr-FR, de;q=0.8", "en"],
    ["fr, ar;q=0.3", "ar"],
    ["*", "en"],
    ["ar;q=0", "en"],
    ["garbage;;==,", "en"],
  ] as const)("%j → %s", (header, expected) => {
    expect(negotiateLanguage(header)).toBe(expected);
  });

  it("joins repeated headers", () => {
    expect(negotiateLanguage(["fr", "ar-EG"])).toBe("ar");
    expect(negotiateLanguage([])).toBe("en");
  });
});
