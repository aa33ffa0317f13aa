import { describe, expect, it } from "vitest";
import { MemoryAttemptCounter } from "../../src/domain/users/attempt-counter.ts";
import { generatePassword, hashPassword, verifyPassword } from "../../src/domain/users/password.ts";
import { generateSessionToken, hashSessionToken, isSessionTokenFormat } from "../../src/domain/users/session-token.ts";
import { isAllowedOrigin, requestedMode, sessionCookieOf } from "../../src/http/console-session.ts";

describe("passwords (scrypt)", () => {
  it("verifies the right password only; the stored form names its parameters and never the password", async () => {
    const stored = await hashPassword("correct horse battery staple");
    expect(stored).toMatch(/^scrypt\$16\$8\$2\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(stored).not.toContain("correct");
    expect(await verifyPassword("correct horse battery staple", stored)).toBe(true);
    expect(await verifyPassword("correct horse battery stapler", stored)).toBe(false);
    expect(await verifyPassword("", stored)).toBe(false);
    // Salted: the same password hashes differently each time.
    expect(await hashPassword("correct horse battery staple")).not.toBe(stored);
  });

  it("a malformed stored hash verifies nothing", async () => {
    expect(await verifyPassword("anything at all", "plain-text-password")).toBe(false);
    expect(await verifyPassword("anything at all", "scrypt$16$8$2$salt")).toBe(false);
  });

  it("generated passwords: 24 characters without look-alikes, all different", () => {
    const passwords = new Set(Array.from({ length: 200 }, () => generatePassword()));
    expect(passwords.size).toBe(200);
    for (const password of passwords) expect(password).toMatch(/^[A-HJ-NP-Za-km-z2-9]{24}$/);
  });
});

describe("session tokens", () => {
  it("are 32 random bytes (base64url), stored as their SHA-256", () => {
    const token = generateSessionToken();
    expect(isSessionTokenFormat(token)).toBe(true);
    expect(Buffer.from(token, "base64url")).toHaveLength(32);
    expect(hashSessionToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSessionToken(token)).toBe(hashSessionToken(token));
    expect(generateSessionToken()).not.toBe(token);
    for (const bad of ["", "short", `${token}x`, token.replace(/.$/, "!")]) expect(isSessionTokenFormat(bad)).toBe(false);
  });

  it("the ocs_session cookie is found among others, and absent when not sent", () => {
    expect(sessionCookieOf({ cookie: "theme=dark; ocs_session=abc123; other=1" })).toBe("abc123");
    expect(sessionCookieOf({ cookie: "theme=dark" })).toBeUndefined();
    expect(sessionCookieOf({})).toBeUndefined();
    expect(sessionCookieOf({ cookie: "xocs_session=nope; ocs_session=yes" })).toBe("yes");
  });
});

describe("Origin rule", () => {
  const allowed = ["https://console.example.com"];
  it("accepts no Origin (non-browser clients), the request's own host, and listed origins", () => {
    expect(isAllowedOrigin({ host: "api.example.com" }, allowed)).toBe(true);
    expect(isAllowedOrigin({ host: "api.example.com", origin: "https://api.example.com" }, allowed)).toBe(true);
    expect(isAllowedOrigin({ host: "api.example.com:443", origin: "https://api.example.com" }, allowed)).toBe(true);
    expect(isAllowedOrigin({ host: "localhost:3000", origin: "http://localhost:3000" }, allowed)).toBe(true);
    expect(isAllowedOrigin({ host: "api.example.com", origin: "https://Console.Example.com" }, allowed)).toBe(true);
  });

  it("refuses other sites, other ports, null, non-web schemes, and cross-site fetches without Origin", () => {
    for (const origin of ["https://evil.example", "http://localhost:3001", "null", "file://", "https://api.example.com.evil.example", "http://console.example.com"]) {
      expect(isAllowedOrigin({ host: origin.includes("localhost") ? "localhost:3000" : "api.example.com", origin }, allowed), origin).toBe(false);
    }
    expect(isAllowedOrigin({ host: "api.example.com", "sec-fetch-site": "cross-site" }, allowed)).toBe(false);
    expect(isAllowedOrigin({ host: "api.example.com", "sec-fetch-site": "same-origin" }, allowed)).toBe(true);
  });

  it("X-OCS-Mode: test by default, test or live in any case, anything else invalid", () => {
    expect(requestedMode({})).toBe("test");
    expect(requestedMode({ "x-ocs-mode": "LIVE" })).toBe("live");
    expect(requestedMode({ "x-ocs-mode": " test " })).toBe("test");
    expect(requestedMode({ "x-ocs-mode": "prod" })).toBe("invalid");
    expect(requestedMode({ "x-ocs-mode": "" })).toBe("invalid");
  });
});

describe("memory attempt counter", () => {
  it("counts per key within a fixed window, then starts over", async () => {
    let now = 1_000;
    const counter = new MemoryAttemptCounter(() => now);
    expect(await counter.hit("a", 10_000)).toEqual({ count: 1, resetInMs: 10_000 });
    now += 4_000;
    expect(await counter.hit("a", 10_000)).toEqual({ count: 2, resetInMs: 6_000 });
    expect(await counter.peek("a")).toEqual({ count: 2, resetInMs: 6_000 });
    expect(await counter.peek("b")).toEqual({ count: 0, resetInMs: 0 });
    now += 6_000;
    expect(await counter.peek("a")).toEqual({ count: 0, resetInMs: 0 });
    expect(await counter.hit("a", 10_000)).toEqual({ count: 1, resetInMs: 10_000 });
    await counter.reset("a");
    expect((await counter.peek("a")).count).toBe(0);
  });
});
