import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { DEFAULT_DATABASE_TIMEOUTS } from "../../src/db/database.ts";
import { isDatabaseUnavailable } from "../../src/db/unavailable.ts";

describe("database timeouts (DATABASE_STATEMENT_TIMEOUT, DATABASE_CONNECT_TIMEOUT)", () => {
  it("default to 5 s each, the same values openDatabase() uses when given none", () => {
    const config = loadConfig({});
    expect(config.databaseTimeouts).toEqual({ statementTimeoutMs: 5_000, connectTimeoutMs: 5_000 });
    expect(DEFAULT_DATABASE_TIMEOUTS).toEqual(config.databaseTimeouts);
  });

  it("take durations", () => {
    const config = loadConfig({ DATABASE_STATEMENT_TIMEOUT: "30s", DATABASE_CONNECT_TIMEOUT: "1500ms" });
    expect(config.databaseTimeouts).toEqual({ statementTimeoutMs: 30_000, connectTimeoutMs: 1_500 });
  });

  it("refuse what is not a positive duration", () => {
    for (const [name, value] of [["DATABASE_STATEMENT_TIMEOUT", "0"], ["DATABASE_STATEMENT_TIMEOUT", "forever"], ["DATABASE_CONNECT_TIMEOUT", "-1s"]]) {
      expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrow(ConfigError);
      try {
        loadConfig({ [name]: value });
      } catch (error) {
        expect((error as ConfigError).problems.join("\n")).toContain(name);
      }
    }
  });
});

describe("a timed-out statement is an unavailable database (503 with Retry-After), not a bug (500)", () => {
  it("recognises the server's cancel and the driver's read timeout, also wrapped as Prisma wraps them", () => {
    const cancelled = Object.assign(new Error("canceling statement due to statement timeout"), { code: "57014" });
    expect(isDatabaseUnavailable(cancelled)).toBe(true);
    expect(isDatabaseUnavailable({ name: "DriverAdapterError", cause: { kind: "postgres", originalCode: "57014" } })).toBe(true);
    expect(isDatabaseUnavailable(new Error("Query read timeout"))).toBe(true);
    expect(isDatabaseUnavailable(new Error("x", { cause: new Error("Query read timeout") }))).toBe(true);
  });

  it("still treats a refused statement as a bug", () => {
    expect(isDatabaseUnavailable(Object.assign(new Error("syntax error"), { code: "42601" }))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBe(false);
  });
});
