import { isIP } from "node:net";
import { z } from "zod";

/**
 * The only place that reads the environment. Everything else receives a validated `Config`.
 * Names and defaults are fixed by SPEC §1.
 */
const booleanFlag = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((value) => value === "true" || value === "1" || value === "yes");

const durationUnits: Record<string, number> = {
  ms: 1, millisecond: 1, milliseconds: 1,
  s: 1000, sec: 1000, second: 1000, seconds: 1000,
  m: 60_000, min: 60_000, minute: 60_000, minutes: 60_000,
  h: 3_600_000, hour: 3_600_000, hours: 3_600_000,
  d: 86_400_000, day: 86_400_000, days: 86_400_000,
};

/** "5s", "30m", "1 minute", "1500ms", or plain milliseconds. */
export function parseDuration(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  if (!match) return null;
  const unit = match[2].toLowerCase() || "ms";
  const factor = durationUnits[unit];
  return factor === undefined ? null : Math.round(Number(match[1]) * factor);
}

const duration = z.string().transform((text, ctx) => {
  const ms = parseDuration(text);
  if (ms === null || ms <= 0) {
    ctx.addIssue({ code: "custom", message: `"${text}" is not a duration (try 1500ms, 5s, 1 minute)` });
    return z.NEVER;
  }
  return ms;
});

const retrySchedule = z.string().transform((text, ctx) => {
  const delays = text.split(",").map((part) => parseDuration(part));
  if (delays.length === 0 || delays.some((ms) => ms === null || ms < 0)) {
    ctx.addIssue({ code: "custom", message: `"${text}" is not a comma-separated list of durations` });
    return z.NEVER;
  }
  return delays as number[];
});

/** "1.1.1.1, 9.9.9.9:53, [2606:4700::1111]:53": IP addresses with an optional port, as c-ares takes them. */
const dnsServerList = z.string().transform((text, ctx) => {
  const servers = text.split(",").map((part) => part.trim()).filter(Boolean);
  const valid = (server: string) => {
    const match = /^(?:\[([0-9a-fA-F:.]+)\]|([0-9.]+)|([0-9a-fA-F:]+))(?::(\d{1,5}))?$/.exec(server);
    if (!match) return false;
    const [, bracketed, v4, bareV6, port] = match;
    // A bare IPv6 address cannot carry a port (its colons would be ambiguous): brackets are needed for one.
    if (bareV6 !== undefined && port !== undefined && !bracketed) return isIP(`${bareV6}:${port}`) === 6;
    const address = bracketed ?? v4 ?? bareV6;
    return (bracketed ? isIP(address) === 6 : isIP(address) !== 0) && (port === undefined || Number(port) <= 65535);
  };
  if (servers.length === 0 || !servers.every(valid)) {
    ctx.addIssue({ code: "custom", message: `"${text}" is not a comma-separated list of DNS server addresses (ip or ip:port, [ipv6]:port)` });
    return z.NEVER;
  }
  return servers;
});

const databaseUrl = z
  .string()
  .regex(/^(postgres(ql)?:\/\/.+|pglite:.+)$/, "must be a postgres:// or postgresql:// URL, pglite:<dir> or pglite:memory");

const positiveInt = z.coerce.number().int().positive();

/** `https://console.example.com,http://localhost:5173`: exact origins (scheme, host, port), no paths. */
const originList = z.string().transform((text, ctx) => {
  const origins: string[] = [];
  for (const part of text.split(",").map((item) => item.trim()).filter(Boolean)) {
    const parsed = URL.canParse(part) ? new URL(part) : null;
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== part.replace(/\/$/, "").toLowerCase()) {
      ctx.addIssue({ code: "custom", message: `"${part}" is not an origin (scheme://host[:port], e.g. https://console.example.com)` });
      return z.NEVER;
    }
    origins.push(parsed.origin);
  }
  return origins;
});

/** An http(s) origin with an optional path prefix and no query: every link and callback URL starts with it. */
const publicBaseUrl = z.string().transform((text, ctx) => {
  const parsed = URL.canParse(text) ? new URL(text) : null;
  if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.search || parsed.hash || parsed.username || parsed.password) {
    ctx.addIssue({ code: "custom", message: `"${text}" is not a base URL (https://confirm.example.com, no query or credentials)` });
    return z.NEVER;
  }
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`;
});

/**
 * Which proxies' X-Forwarded-For the service believes (SPEC §14): a hop count ("1": the address the nearest proxy
 * saw), or a comma-separated list of proxy addresses or CIDRs ("10.0.0.0/8, 192.168.1.7"). `true` (believe any
 * left-most X-Forwarded-For, which every client chooses) is refused. "false" or "0": no proxy.
 */
const trustProxy = z.string().transform((text, ctx): false | number | string[] => {
  const value = text.trim().toLowerCase();
  if (value === "false" || value === "0" || value === "no") return false;
  if (value === "true" || value === "yes") {
    ctx.addIssue({
      code: "custom",
      message: "true would trust any client's X-Forwarded-For: give the number of proxies in front (e.g. 1) or their addresses/CIDRs",
    });
    return z.NEVER;
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > 10) {
      ctx.addIssue({ code: "custom", message: `${hops} proxies in front is more than plausible (at most 10)` });
      return z.NEVER;
    }
    return hops;
  }
  const entries = value.split(",").map((part) => part.trim()).filter(Boolean);
  const valid = (entry: string) => {
    const [address, bits, ...rest] = entry.split("/");
    if (rest.length || isIP(address) === 0) return false;
    if (bits === undefined) return true;
    return /^\d{1,3}$/.test(bits) && Number(bits) <= (isIP(address) === 4 ? 32 : 128);
  };
  if (entries.length === 0 || !entries.every(valid)) {
    ctx.addIssue({ code: "custom", message: `"${text}" is not a hop count or a comma-separated list of addresses/CIDRs` });
    return z.NEVER;
  }
  return entries;
});

/** 32 bytes, base64 (standard or URL-safe alphabet). */
const secretsKey = z.string().transform((text, ctx) => {
  const key = Buffer.from(text.trim(), "base64");
  if (key.length !== 32) {
    ctx.addIssue({ code: "custom", message: "must be 32 bytes in base64 (generate one with: openssl rand -base64 32)" });
    return z.NEVER;
  }
  return key;
});

const envSchema = z.object({
  NODE_ENV: z.string().default("development"),
  DEMO: booleanFlag.optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  TRUST_PROXY: trustProxy.prefault("false"),
  HTTP_HEADERS_TIMEOUT: duration.prefault("10s"),
  HTTP_REQUEST_TIMEOUT: duration.prefault("30s"),
  HTTP_KEEP_ALIVE_TIMEOUT: duration.prefault("72s"),
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(0).default(256),
  DATABASE_URL: databaseUrl.optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_STATEMENT_TIMEOUT: duration.prefault("5s"),
  DATABASE_CONNECT_TIMEOUT: duration.prefault("5s"),
  PUBLIC_BASE_URL: publicBaseUrl.optional(),
  SECRETS_KEY: secretsKey.optional(),
  SECRETS_KEY_PREVIOUS: z.string().optional(),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL").optional(),
  WHATSAPP_API_URL: z.string().url().default("https://graph.facebook.com/v26.0"),
  WHATSAPP_PHONE_NUMBER_ID: z.string().min(1).optional(),
  WHATSAPP_ACCESS_TOKEN: z.string().min(1).optional(),
  WHATSAPP_APP_SECRET: z.string().min(1).optional(),
  WHATSAPP_VERIFY_TOKEN: z.string().min(1).optional(),
  WHATSAPP_TEMPLATE_NAME: z.string().min(1).default("order_confirmation"),
  WHATSAPP_TIMEOUT_MS: positiveInt.default(10_000),
  WHATSAPP_REMINDER_TEMPLATE_NAME: z.string().min(1).default("order_confirmation_reminder"),
  WHATSAPP_MAX_SENDS_PER_SECOND: z.coerce.number().positive().max(10_000).default(80),
  CONFIRMATION_MIN_DELAY: duration.prefault("5m"),
  WEBHOOK_RETRY_SCHEDULE: retrySchedule.prefault(["5s", "5m", "30m", "2h", "5h", "10h", "10h"].join(",")),
  WEBHOOK_TIMEOUT_MS: positiveInt.default(15_000),
  WEBHOOK_ALLOW_PRIVATE_URLS: booleanFlag.default(false),
  WEBHOOK_DNS_SERVERS: dnsServerList.optional(),
  RATE_LIMIT_MAX: positiveInt.default(1200),
  RATE_LIMIT_WINDOW: duration.prefault("1 minute"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  SESSION_IDLE_TIMEOUT: duration.prefault("12h"),
  SESSION_MAX_AGE: duration.prefault("7d"),
  COOKIE_SECURE: booleanFlag.default(true),
  /** Console sessions may run only the console's own (build-time hashed) operations; default: on in production. */
  CONSOLE_TRUSTED_DOCUMENTS: booleanFlag.optional(),
  CONSOLE_ORIGINS: originList.prefault(""),
  SIGN_IN_RATE_LIMIT_MAX: positiveInt.default(10),
  SIGN_IN_RATE_LIMIT_MAX_PER_EMAIL: positiveInt.default(100),
  SIGN_IN_RATE_LIMIT_MAX_PER_ADDRESS: positiveInt.default(50),
  SIGN_IN_RATE_LIMIT_WINDOW: duration.prefault("15 minutes"),
  AUDIT_LOG_RETENTION: duration.prefault("400d"),
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters (openssl rand -hex 32)").optional(),
  // Store connectors (SPEC §13).
  SHOPIFY_CLIENT_ID: z.string().min(1).max(200).optional(),
  SHOPIFY_CLIENT_SECRET: z.string().min(1).max(500).optional(),
  SHOPIFY_API_VERSION: z.string().regex(/^(\d{4}-\d{2}|unstable)$/, "must look like 2026-10").default("2026-10"),
  SHOPIFY_SHOP_ORIGIN: z
    .string()
    .refine((text) => text.includes("{shop}") && URL.canParse(text.replace("{shop}", "shop.myshopify.com")), {
      message: "must be a URL containing {shop}, e.g. https://{shop}",
    })
    .default("https://{shop}"),
  SHOPIFY_SCOPES: z
    .string()
    .regex(/^[a-z_]+(,[a-z_]+)*$/, "must be comma-separated scope names")
    .default("read_orders,write_orders,read_merchant_managed_fulfillment_orders,write_merchant_managed_fulfillment_orders"),
  STORE_TIMEOUT_MS: positiveInt.default(10_000),
  SALLA_CLIENT_ID: z.string().min(1).max(200).optional(),
  SALLA_CLIENT_SECRET: z.string().min(1).max(500).optional(),
  SALLA_WEBHOOK_SECRET: z.string().min(1).max(500).optional(),
  SALLA_API_URL: publicBaseUrl.default("https://api.salla.dev/admin/v2"),
  SALLA_AUTH_URL: publicBaseUrl.default("https://accounts.salla.sa"),
});

export type DatabaseTarget =
  | { kind: "postgres"; url: string }
  | { kind: "embedded"; dataDir: string | null; template?: Blob };

export interface DatabaseTimeouts {
  /**
   * PostgreSQL's `statement_timeout` for the service's connections: a statement running (or waiting for a lock)
   * longer is cancelled by the server. The driver also gives up on any answer `QUERY_TIMEOUT_MARGIN_MS` later and
   * drops the connection, which bounds a database that no longer sends anything (and PGlite, which has no
   * statement timeout of its own).
   */
  statementTimeoutMs: number;
  /** Connecting (or waiting for a free pooled connection) fails after this. */
  connectTimeoutMs: number;
}

export interface Config {
  env: string;
  production: boolean;
  /** Create the demo merchant and user on an empty database: always outside production, with DEMO=true in it. */
  demo: boolean;
  http: {
    port: number;
    host: string;
    /** false, a hop count, or the trusted proxies' addresses/CIDRs (Fastify's trustProxy). */
    trustProxy: false | number | string[];
    /** A request's headers must arrive within this, the whole request (headers and body) within requestTimeoutMs. */
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    /** An idle keep-alive connection is closed after this. */
    keepAliveTimeoutMs: number;
    /** Open connections one peer address may hold; 0 = unbounded. */
    maxConnectionsPerAddress: number;
  };
  database: DatabaseTarget;
  /** Bounds on every database wait, so a hung query or a silent network cannot hold a request (see DatabaseTimeouts). */
  databaseTimeouts: DatabaseTimeouts;
  dataDir: string;
  /**
   * The origin (and optional path prefix) customers and stores reach, without a trailing slash; null: the
   * listening address as `http://localhost:<port>` (SPEC §12). Read it through `PublicUrls`, never directly.
   */
  publicBaseUrl: string | null;
  /** Encrypts secrets at rest (SPEC §14); null: outside production, a key generated once into DATA_DIR. */
  secretsKey: Buffer | null;
  /** Keys that sealed secrets before a rotation (SECRETS_KEY_PREVIOUS): still opened, never used to seal. */
  previousSecretsKeys: Buffer[];
  redisUrl: string | null;
  whatsapp: {
    apiUrl: string;
    phoneNumberId: string | null;
    accessToken: string | null;
    appSecret: string | null;
    verifyToken: string | null;
    templateName: string;
    reminderTemplateName: string;
    timeoutMs: number;
    /** Reminder sends per second across all instances (Meta's default throughput per number is 80). */
    maxSendsPerSecond: number;
  };
  /** Confirmation policies (SPEC §9): the shortest reminder/expiry delay a merchant may set. */
  confirmation: { minDelayMs: number };
  webhooks: {
    retryScheduleMs: number[];
    timeoutMs: number;
    allowPrivateUrls: boolean;
    /** Who resolves merchants' webhook hosts, for the SSRF checks and the connection; null: the system's servers. */
    dnsServers: string[] | null;
  };
  rateLimit: { max: number; windowMs: number };
  /** Console sign-in (SPEC §10): browser sessions, their cookie and the sign-in throttle. */
  console: {
    sessionIdleTimeoutMs: number;
    sessionMaxAgeMs: number;
    cookieSecure: boolean;
    /** Origins besides the server's own whose pages may use the session (sign-in, websocket). */
    allowedOrigins: string[];
    /** Session requests may run only the console's trusted documents (hash → document manifest of its build). */
    trustedDocuments: boolean;
    /** Failures per (e-mail, address), per e-mail from all addresses (higher), and attempts per address. */
    signInRateLimit: { maxPerPair: number; maxPerEmail: number; maxPerAddress: number; windowMs: number };
  };
  /** Store connectors (SPEC §13); a platform whose app credentials are unset cannot be connected. */
  stores: {
    /** Each call to a store's API is abandoned after this. */
    timeoutMs: number;
    shopify: {
      clientId: string | null;
      clientSecret: string | null;
      apiVersion: string;
      /** `{shop}` is replaced by the shop's domain (tests point it at a fake). */
      shopOrigin: string;
      scopes: string;
    };
    /** Salla (an app in "easy mode"): linking, webhooks and write-back need all three secrets. */
    salla: {
      clientId: string | null;
      clientSecret: string | null;
      webhookSecret: string | null;
      /** Merchant API base, version included (no trailing slash). */
      apiUrl: string;
      /** OAuth server (token endpoint: `<authUrl>/oauth2/token`). */
      authUrl: string;
    };
  };
  logLevel: string;
  /** Audit entries older than this are deleted by the maintenance sweep (SPEC §14). */
  auditLogRetentionMs: number;
  /** When set, /metrics answers only requests with `Authorization: Bearer <this>`. */
  metricsToken: string | null;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
  }
}

function databaseTarget(url: string | undefined, dataDir: string): DatabaseTarget {
  if (!url) return { kind: "embedded", dataDir };
  if (url.startsWith("pglite:")) {
    const target = url.slice("pglite:".length);
    return { kind: "embedded", dataDir: target === "memory" ? null : target };
  }
  return { kind: "postgres", url };
}

/** Reads and validates the environment once; throws `ConfigError` listing every problem. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings are "unset": shells and .env files often export VAR= for "no value".
  const present = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`));
  }
  const env = parsed.data;
  if (env.HTTP_HEADERS_TIMEOUT > env.HTTP_REQUEST_TIMEOUT) {
    throw new ConfigError(["HTTP_HEADERS_TIMEOUT: must not be longer than HTTP_REQUEST_TIMEOUT (the headers are part of the request)"]);
  }
  const previousKeys = (env.SECRETS_KEY_PREVIOUS ?? "").split(",").map((part) => part.trim()).filter(Boolean).map((part) => Buffer.from(part, "base64"));
  if (previousKeys.some((key) => key.length !== 32)) {
    throw new ConfigError(["SECRETS_KEY_PREVIOUS: must be a comma-separated list of 32-byte base64 keys"]);
  }
  const whatsapp = {
    apiUrl: env.WHATSAPP_API_URL.replace(/\/+$/, ""),
    phoneNumberId: env.WHATSAPP_PHONE_NUMBER_ID ?? null,
    accessToken: env.WHATSAPP_ACCESS_TOKEN ?? null,
    appSecret: env.WHATSAPP_APP_SECRET ?? null,
    verifyToken: env.WHATSAPP_VERIFY_TOKEN ?? null,
    templateName: env.WHATSAPP_TEMPLATE_NAME,
    reminderTemplateName: env.WHATSAPP_REMINDER_TEMPLATE_NAME,
    timeoutMs: env.WHATSAPP_TIMEOUT_MS,
    maxSendsPerSecond: env.WHATSAPP_MAX_SENDS_PER_SECOND,
  };
  if (whatsapp.phoneNumberId && whatsapp.accessToken && !whatsapp.appSecret) {
    throw new ConfigError(["WHATSAPP_APP_SECRET: required when live mode is configured (it verifies Meta's callbacks)"]);
  }
  return {
    env: env.NODE_ENV,
    production: env.NODE_ENV === "production",
    demo: env.DEMO ?? env.NODE_ENV !== "production",
    http: {
      port: env.PORT,
      host: env.HOST,
      trustProxy: env.TRUST_PROXY,
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT,
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT,
      maxConnectionsPerAddress: env.HTTP_MAX_CONNECTIONS_PER_ADDRESS,
    },
    database: databaseTarget(env.DATABASE_URL, env.DATA_DIR),
    databaseTimeouts: { statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT, connectTimeoutMs: env.DATABASE_CONNECT_TIMEOUT },
    dataDir: env.DATA_DIR,
    publicBaseUrl: env.PUBLIC_BASE_URL ?? null,
    secretsKey: env.SECRETS_KEY ?? null,
    previousSecretsKeys: previousKeys,
    redisUrl: env.REDIS_URL ?? null,
    whatsapp,
    confirmation: { minDelayMs: env.CONFIRMATION_MIN_DELAY },
    webhooks: {
      retryScheduleMs: env.WEBHOOK_RETRY_SCHEDULE,
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      allowPrivateUrls: env.WEBHOOK_ALLOW_PRIVATE_URLS,
      dnsServers: env.WEBHOOK_DNS_SERVERS ?? null,
    },
    rateLimit: { max: env.RATE_LIMIT_MAX, windowMs: env.RATE_LIMIT_WINDOW },
    console: {
      sessionIdleTimeoutMs: env.SESSION_IDLE_TIMEOUT,
      sessionMaxAgeMs: env.SESSION_MAX_AGE,
      cookieSecure: env.COOKIE_SECURE,
      allowedOrigins: env.CONSOLE_ORIGINS,
      trustedDocuments: env.CONSOLE_TRUSTED_DOCUMENTS ?? env.NODE_ENV === "production",
      signInRateLimit: {
        maxPerPair: env.SIGN_IN_RATE_LIMIT_MAX,
        maxPerEmail: Math.max(env.SIGN_IN_RATE_LIMIT_MAX_PER_EMAIL, env.SIGN_IN_RATE_LIMIT_MAX),
        maxPerAddress: env.SIGN_IN_RATE_LIMIT_MAX_PER_ADDRESS,
        windowMs: env.SIGN_IN_RATE_LIMIT_WINDOW,
      },
    },
    stores: {
      timeoutMs: env.STORE_TIMEOUT_MS,
      shopify: {
        clientId: env.SHOPIFY_CLIENT_ID ?? null,
        clientSecret: env.SHOPIFY_CLIENT_SECRET ?? null,
        apiVersion: env.SHOPIFY_API_VERSION,
        shopOrigin: env.SHOPIFY_SHOP_ORIGIN.replace(/\/+$/, ""),
        scopes: env.SHOPIFY_SCOPES,
      },
      salla: {
        clientId: env.SALLA_CLIENT_ID ?? null,
        clientSecret: env.SALLA_CLIENT_SECRET ?? null,
        webhookSecret: env.SALLA_WEBHOOK_SECRET ?? null,
        apiUrl: env.SALLA_API_URL.replace(/\/+$/, ""),
        authUrl: env.SALLA_AUTH_URL.replace(/\/+$/, ""),
      },
    },
    logLevel: env.LOG_LEVEL,
    auditLogRetentionMs: env.AUDIT_LOG_RETENTION,
    metricsToken: env.METRICS_TOKEN ?? null,
  };
}
