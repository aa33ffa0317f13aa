import { describe, expect, it } from "vitest";
import { displayPrefix, generateApiKey, hashApiKey, parseApiKey } from "../../src/domain/merchants/api-key.ts";

describe("API keys", () => {
  it("generates ek_live_/ek_test_ followed by 40 base62 characters", () => {
    expect(generateApiKey("live")).toMatch(/^ek_live_[0-9A-Za-z]{40}$/);
    expect(generateApiKey("test")).toMatch(/^ek_test_[0-9A-Za-z]{40}$/);
  });

  it("never repeats a key", () => {
    const keys = new Set(Array.from({ length: 500 }, () => generateApiKey("test")));
    expect(keys.size).toBe(500);
  });

  it("uses the whole base62 alphabet", () => {
    const chars = new Set(Array.from({ length: 200 }, () => generateApiKey("live").slice(8)).join(""));
    expect(chars.size).toBe(62);
  });

  it("hashes with SHA-256 (hex), deterministically, never containing the key", () => {
    const key = generateApiKey("live");
    const hash = hashApiKey(key);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).toBe(hash);
    expect(hashApiKey(generateApiKey("live"))).not.toBe(hash);
    expect(hash).not.toContain(key.slice(8));
    expect(hashApiKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("parses the mode of well-formed keys", () => {
    expect(parseApiKey(generateApiKey("live"))).toEqual({ mode: "live" });
    expect(parseApiKey(generateApiKey("test"))).toEqual({ mode: "test" });
    expect(parseApiKey(`ek_test_${"a".repeat(32)}`)).toEqual({ mode: "test" });
  });

  it.each([
    ["empty", ""],
    ["no prefix", "A".repeat(40)],
    ["unknown mode", `ek_prod_${"A".repeat(40)}`],
    ["upper-case prefix", `EK_TEST_${"A".repeat(40)}`],
    ["too short", `ek_test_${"A".repeat(31)}`],
    ["non-base62", `ek_test_${"A".repeat(39)}-`],
    ["whitespace", ` ek_test_${"A".repeat(40)}`],
    ["trailing newline", `ek_test_${"A".repeat(40)}\n`],
    ["too long", `ek_test_${"A".repeat(129)}`],
  ])("refuses %s", (_name, key) => {
    expect(parseApiKey(key)).toBeNull();
  });

  it("shows only a short prefix again", () => {
    const key = generateApiKey("test");
    expect(displayPrefix(key)).toBe(key.slice(0, 12));
    expect(displayPrefix(key)).toMatch(/^ek_test_[0-9A-Za-z]{4}$/);
  });
});
