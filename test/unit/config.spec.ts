import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, parseDuration } from "../../src/config.ts";

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected loadConfig to throw");
}

describe("loadConfig defaults (SPEC §1)", () => {
  it("gives a working configuration with nothing set", () => {
    const config = loadConfig({});
    expect(config.http).toEqual({
      port: 3000,
      host: "0.0.0.0",
      trustProxy: false,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 72_000,
      maxConnectionsPerAddress: 256,
    });
    expect(config.database).toEqual({ kind: "embedded", dataDir: "./data" });
    expect(config.dataDir).toBe("./data");
    expect(config.redisUrl).toBeNull();
    expect(config.whatsapp).toEqual({
      apiUrl: "https://graph.facebook.com/v26.0",
      phoneNumberId: null,
      accessToken: null,
      appSecret: null,
      verifyToken: null,
      templateName: "order_confirmation",
      reminderTemplateName: "order_confirmation_reminder",
      timeoutMs: 10_000,
      maxSendsPerSecond: 80,
    });
    expect(config.confirmation).toEqual({ minDelayMs: 300_000 });
    expect(config.webhooks).toEqual({
      retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      timeoutMs: 15_000,
      allowPrivateUrls: false,
      dnsServers: null,
    });
    expect(config.rateLimit).toEqual({ max: 1200, windowMs: 60_000 });
    expect(config.logLevel).toBe("info");
    expect(config.production).toBe(false);
  });

  it("takes TRUST_PROXY as a hop count or addresses/CIDRs and refuses true (a client-chosen X-Forwarded-For)", () => {
    expect(loadConfig({ TRUST_PROXY: "2" }).http.trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: "false" }).http.trustProxy).toBe(false);
    expect(loadConfig({}).http.trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "127.0.0.1, ::1, 10.1.0.0/16" }).http.trustProxy).toEqual(["127.0.0.1", "::1", "10.1.0.0/16"]);
    expect(() => loadConfig({ TRUST_PROXY: "true" })).toThrow(/TRUST_PROXY: true would trust any client's X-Forwarded-For/);
    expect(() => loadConfig({ TRUST_PROXY: "10.0.0.0/40" })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ TRUST_PROXY: "proxy.local" })).toThrow(/TRUST_PROXY/);
  });

  it("treats empty strings as unset", () => {
    const config = loadConfig({ PORT: "", DATABASE_URL: "", REDIS_URL: "", LOG_LEVEL: "", RATE_LIMIT_WINDOW: "" });
    expect(config.http.port).toBe(3000);
    expect(config.database).toEqual({ kind: "embedded", dataDir: "./data" });
    expect(config.redisUrl).toBeNull();
    expect(config.rateLimit.windowMs).toBe(60_000);
  });

  it("reads every variable", () => {
    const config = loadConfig({
      NODE_ENV: "production",
      PORT: "8080",
      HOST: "127.0.0.1",
      TRUST_PROXY: "10.0.0.0/8, 192.168.1.7",
      HTTP_HEADERS_TIMEOUT: "5s",
      HTTP_REQUEST_TIMEOUT: "1 minute",
      HTTP_KEEP_ALIVE_TIMEOUT: "65s",
      HTTP_MAX_CONNECTIONS_PER_ADDRESS: "0",
      DATA_DIR: "/var/lib/ocs",
      REDIS_URL: "redis://localhost:6379",
      WHATSAPP_API_URL: "http://127.0.0.1:9999/v26.0/",
      WHATSAPP_PHONE_NUMBER_ID: "123",
      WHATSAPP_ACCESS_TOKEN: "token",
      WHATSAPP_APP_SECRET: "secret",
      WHATSAPP_VERIFY_TOKEN: "verify",
      WHATSAPP_TEMPLATE_NAME: "my_template",
      WHATSAPP_TIMEOUT_MS: "2500",
      WHATSAPP_REMINDER_TEMPLATE_NAME: "my_reminder",
      WHATSAPP_MAX_SENDS_PER_SECOND: "20",
      CONFIRMATION_MIN_DELAY: "2s",
      WEBHOOK_RETRY_SCHEDULE: "1s,2s",
      WEBHOOK_TIMEOUT_MS: "3000",
      WEBHOOK_ALLOW_PRIVATE_URLS: "true",
      WEBHOOK_DNS_SERVERS: "9.9.9.9",
      RATE_LIMIT_MAX: "10",
      RATE_LIMIT_WINDOW: "30s",
      LOG_LEVEL: "debug",
    });
    expect(config.production).toBe(true);
    expect(config.http).toEqual({
      port: 8080,
      host: "127.0.0.1",
      trustProxy: ["10.0.0.0/8", "192.168.1.7"],
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 65_000,
      maxConnectionsPerAddress: 0,
    });
    expect(config.database).toEqual({ kind: "embedded", dataDir: "/var/lib/ocs" });
    expect(config.redisUrl).toBe("redis://localhost:6379");
    expect(config.whatsapp).toEqual({
      apiUrl: "http://127.0.0.1:9999/v26.0",
      phoneNumberId: "123",
      accessToken: "token",
      appSecret: "secret",
      verifyToken: "verify",
      templateName: "my_template",
      reminderTemplateName: "my_reminder",
      timeoutMs: 2500,
      maxSendsPerSecond: 20,
    });
    expect(config.confirmation).toEqual({ minDelayMs: 2000 });
    expect(config.webhooks).toEqual({ retryScheduleMs: [1000, 2000], timeoutMs: 3000, allowPrivateUrls: true, dnsServers: ["9.9.9.9"] });
    expect(config.rateLimit).toEqual({ max: 10, windowMs: 30_000 });
    expect(config.logLevel).toBe("debug");
  });
});

describe("WEBHOOK_DNS_SERVERS", () => {
  it("defaults to the system's servers (null)", () => {
    expect(loadConfig({}).webhooks.dnsServers).toBeNull();
  });

  it("takes addresses with optional ports, IPv6 in brackets when it has one", () => {
    expect(loadConfig({ WEBHOOK_DNS_SERVERS: "1.1.1.1, 127.0.0.1:5353,[2606:4700::1111]:53,::1" }).webhooks.dnsServers).toEqual([
      "1.1.1.1",
      "127.0.0.1:5353",
      "[2606:4700::1111]:53",
      "::1",
    ]);
  });

  it.each(["dns.example.com", "1.1.1.1:99999", "300.1.1.1", ",", "[1.1.1.1]:53"])("refuses %s", (value) => {
    expect(configError({ WEBHOOK_DNS_SERVERS: value }).problems).toEqual([expect.stringMatching(/^WEBHOOK_DNS_SERVERS: /)]);
  });
});

describe("HTTP timeouts", () => {
  it("refuses a headers timeout longer than the request timeout", () => {
    const error = configError({ HTTP_HEADERS_TIMEOUT: "40s", HTTP_REQUEST_TIMEOUT: "30s" });
    expect(error.problems).toEqual([expect.stringMatching(/^HTTP_HEADERS_TIMEOUT: /)]);
  });
});

describe("DATABASE_URL", () => {
  it.each(["postgres://user:pw@db:5432/ocs", "postgresql://postgres@127.0.0.1:5432/postgres"])("%s is PostgreSQL", (url) => {
    expect(loadConfig({ DATABASE_URL: url }).database).toEqual({ kind: "postgres", url });
  });

  it("pglite:memory is an in-memory embedded database", () => {
    expect(loadConfig({ DATABASE_URL: "pglite:memory" }).database).toEqual({ kind: "embedded", dataDir: null });
  });

  it("pglite:<dir> is an embedded database in that directory", () => {
    expect(loadConfig({ DATABASE_URL: "pglite:/tmp/ocs-data" }).database).toEqual({ kind: "embedded", dataDir: "/tmp/ocs-data" });
    expect(loadConfig({ DATABASE_URL: "pglite:./other" }).database).toEqual({ kind: "embedded", dataDir: "./other" });
  });

  it.each(["mysql://localhost/db", "localhost:5432", "pglite:", "postgres://", "sqlite:memory"])("refuses %s", (url) => {
    const error = configError({ DATABASE_URL: url });
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(/^DATABASE_URL: /);
  });
});

describe("invalid configuration", () => {
  it("lists every problem, each naming its variable", () => {
    const error = configError({
      PORT: "abc",
      LOG_LEVEL: "loud",
      DATABASE_URL: "mysql://x",
      REDIS_URL: "http://redis",
      WEBHOOK_ALLOW_PRIVATE_URLS: "maybe",
      RATE_LIMIT_MAX: "-5",
      WHATSAPP_API_URL: "not a url",
    });
    const variables = error.problems.map((problem) => problem.split(":")[0]).sort();
    expect(variables).toEqual(
      ["DATABASE_URL", "LOG_LEVEL", "PORT", "RATE_LIMIT_MAX", "REDIS_URL", "WEBHOOK_ALLOW_PRIVATE_URLS", "WHATSAPP_API_URL"].sort(),
    );
    for (const problem of error.problems) expect(error.message).toContain(problem);
    expect(error.message).toMatch(/^Invalid configuration:/);
  });

  it.each([
    ["PORT", "70000"],
    ["PORT", "-1"],
    ["PORT", "3.5"],
    ["WEBHOOK_TIMEOUT_MS", "0"],
    ["WHATSAPP_TIMEOUT_MS", "soon"],
    ["RATE_LIMIT_MAX", "0"],
    ["RATE_LIMIT_WINDOW", "0s"],
    ["RATE_LIMIT_WINDOW", "a while"],
    ["RATE_LIMIT_WINDOW", "5 fortnights"],
    ["WEBHOOK_RETRY_SCHEDULE", "5s,,5m"],
    ["WEBHOOK_RETRY_SCHEDULE", "soon"],
    ["WEBHOOK_RETRY_SCHEDULE", "5s,-1s"],
  ])("%s=%s is refused", (name, value) => {
    const error = configError({ [name]: value });
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0].startsWith(`${name}: `)).toBe(true);
  });

  it("requires WHATSAPP_APP_SECRET when live mode is configured", () => {
    const error = configError({ WHATSAPP_PHONE_NUMBER_ID: "123", WHATSAPP_ACCESS_TOKEN: "token" });
    expect(error.problems).toEqual([expect.stringMatching(/^WHATSAPP_APP_SECRET: /)]);
    expect(() => loadConfig({ WHATSAPP_PHONE_NUMBER_ID: "123" })).not.toThrow();
  });

  it("accepts the boolean spellings", () => {
    for (const [text, value] of [["true", true], ["1", true], ["yes", true], ["false", false], ["0", false], ["no", false]] as const) {
      expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_URLS: text }).webhooks.allowPrivateUrls).toBe(value);
    }
  });
});

describe("durations", () => {
  it.each([
    ["1 minute", 60_000],
    ["2 minutes", 120_000],
    ["1500ms", 1500],
    ["1500", 1500],
    ["5s", 5000],
    ["5 seconds", 5000],
    ["30m", 1_800_000],
    ["2h", 7_200_000],
    ["10h", 36_000_000],
    ["1 day", 86_400_000],
    ["1.5s", 1500],
    [" 5 s ", 5000],
    ["0", 0],
  ])("parseDuration(%j) = %s", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["", "s", "minute", "5 fortnights", "-5s", "5s5m", "1,5s"])("parseDuration(%j) is null", (text) => {
    expect(parseDuration(text)).toBeNull();
  });

  it("parses WEBHOOK_RETRY_SCHEDULE lists with spaces and mixed units", () => {
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: "5s, 5m ,30m,2h" }).webhooks.retryScheduleMs).toEqual([5000, 300_000, 1_800_000, 7_200_000]);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: "100ms" }).webhooks.retryScheduleMs).toEqual([100]);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: "0,1 second" }).webhooks.retryScheduleMs).toEqual([0, 1000]);
  });

  it("reads RATE_LIMIT_WINDOW in words", () => {
    expect(loadConfig({ RATE_LIMIT_WINDOW: "1 minute" }).rateLimit.windowMs).toBe(60_000);
    expect(loadConfig({ RATE_LIMIT_WINDOW: "10 seconds" }).rateLimit.windowMs).toBe(10_000);
    expect(loadConfig({ RATE_LIMIT_WINDOW: "1 hour" }).rateLimit.windowMs).toBe(3_600_000);
  });
});

describe("console sessions (SPEC §10)", () => {
  it("defaults: 12 h idle, 7 d absolute, Secure cookies, no extra origins, 10 failures per (e-mail, address), 100 per e-mail and 50 attempts per address per 15 minutes", () => {
    expect(loadConfig({}).console).toEqual({
      sessionIdleTimeoutMs: 12 * 3_600_000,
      sessionMaxAgeMs: 7 * 86_400_000,
      cookieSecure: true,
      allowedOrigins: [],
      trustedDocuments: false,
      signInRateLimit: { maxPerPair: 10, maxPerEmail: 100, maxPerAddress: 50, windowMs: 15 * 60_000 },
    });
  });

  it("trusted documents: on by default in production only, and CONSOLE_TRUSTED_DOCUMENTS decides when set", () => {
    expect(loadConfig({ NODE_ENV: "production" }).console.trustedDocuments).toBe(true);
    expect(loadConfig({ NODE_ENV: "production", CONSOLE_TRUSTED_DOCUMENTS: "false" }).console.trustedDocuments).toBe(false);
    expect(loadConfig({ CONSOLE_TRUSTED_DOCUMENTS: "true" }).console.trustedDocuments).toBe(true);
    expect(configError({ CONSOLE_TRUSTED_DOCUMENTS: "sometimes" }).problems[0]).toMatch(/^CONSOLE_TRUSTED_DOCUMENTS:/);
  });

  it("reads every variable; CONSOLE_ORIGINS is a comma-separated list of exact origins", () => {
    const config = loadConfig({
      SESSION_IDLE_TIMEOUT: "30m",
      SESSION_MAX_AGE: "1 day",
      COOKIE_SECURE: "false",
      CONSOLE_ORIGINS: "https://Console.Example.com, http://localhost:5173/",
      SIGN_IN_RATE_LIMIT_MAX: "5",
      SIGN_IN_RATE_LIMIT_MAX_PER_EMAIL: "30",
      SIGN_IN_RATE_LIMIT_MAX_PER_ADDRESS: "20",
      SIGN_IN_RATE_LIMIT_WINDOW: "1h",
      CONSOLE_TRUSTED_DOCUMENTS: "yes",
    });
    expect(config.console).toEqual({
      sessionIdleTimeoutMs: 1_800_000,
      sessionMaxAgeMs: 86_400_000,
      cookieSecure: false,
      allowedOrigins: ["https://console.example.com", "http://localhost:5173"],
      trustedDocuments: true,
      signInRateLimit: { maxPerPair: 5, maxPerEmail: 30, maxPerAddress: 20, windowMs: 3_600_000 },
    });
  });

  it("refuses origins with a path, other schemes, and durations that are not durations", () => {
    for (const origins of ["https://console.example.com/app", "ftp://example.com", "console.example.com"]) {
      expect(configError({ CONSOLE_ORIGINS: origins }).problems[0]).toMatch(/^CONSOLE_ORIGINS: .* is not an origin/);
    }
    expect(configError({ SESSION_IDLE_TIMEOUT: "soon" }).problems[0]).toMatch(/^SESSION_IDLE_TIMEOUT:/);
    expect(configError({ COOKIE_SECURE: "maybe" }).problems[0]).toMatch(/^COOKIE_SECURE:/);
  });
});

describe("PUBLIC_BASE_URL and SECRETS_KEY (SPEC §12, §14)", () => {
  it("keeps the base URL without a trailing slash and refuses one with a query or credentials", () => {
    expect(loadConfig({ PUBLIC_BASE_URL: "https://confirm.example.com/" }).publicBaseUrl).toBe("https://confirm.example.com");
    expect(loadConfig({ PUBLIC_BASE_URL: "https://example.com/ocs/" }).publicBaseUrl).toBe("https://example.com/ocs");
    expect(loadConfig({}).publicBaseUrl).toBeNull();
    for (const bad of ["ftp://example.com", "https://example.com/?a=1", "https://u:p@example.com", "example.com"]) {
      expect(() => loadConfig({ PUBLIC_BASE_URL: bad }), bad).toThrow(/PUBLIC_BASE_URL/);
    }
  });

  it("takes a 32-byte base64 secrets key and refuses any other length", () => {
    const key = Buffer.alloc(32, 7);
    expect(loadConfig({ SECRETS_KEY: key.toString("base64") }).secretsKey?.equals(key)).toBe(true);
    expect(() => loadConfig({ SECRETS_KEY: Buffer.alloc(16).toString("base64") })).toThrow(/SECRETS_KEY: must be 32 bytes/);
  });
});
