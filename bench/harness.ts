/**
 * What every benchmark here shares: settings from the environment, cleanup on exit (also on Ctrl-C), the
 * autocannon load worker, and throwaway databases (in-memory PGlite, or a fresh PostgreSQL database).
 */
import { randomBytes } from "node:crypto";
import { Worker } from "node:worker_threads";
import pg from "pg";
import type { Logger } from "pino";
import { createApp, type RunningApp } from "../src/app.ts";
import { loadConfig, type Config } from "../src/config.ts";
import { openDatabase, type Database } from "../src/db/database.ts";
import type { MerchantScope } from "../src/domain/orders/order.repository.ts";
import { createOrderInput } from "../src/domain/orders/order.schemas.ts";
import { drain, trackInFlight, type InFlight } from "../src/http/in-flight.ts";
import { createLogger } from "../src/logger.ts";
import { startEmbeddedPostgres } from "../src/db/embedded-postgres.ts";
import { migrate } from "../src/db/migrator.ts";
import type { LoadResult, LoadSpec } from "./load-worker.ts";
import { benchOrderBody } from "./order-body.ts";

export type DatabaseKind = "pglite" | "postgres";

export const log = (message: string) => process.stderr.write(`${message}\n`);

export const postgresUrl = process.env.BENCH_PG_URL || "postgresql://postgres@127.0.0.1:5432/postgres";

/**
 * openDatabase()'s own pool sizes (src/db/database.ts). The service reaches PGlite through a postgres:// socket
 * URL, from which openDatabase() cannot tell that the embedded engine is behind, so the size is passed in.
 */
export const POOL_SIZE: Record<DatabaseKind, number> = { pglite: 4, postgres: 20 };

// ---------------------------------------------------------------------------------------------- settings

export function numberEnv(name: string, fallback: number, { min = 1, integer = true } = {}): number {
  const text = process.env[name];
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new Error(`${name}=${text}: expected ${integer ? "an integer" : "a number"} ≥ ${min}`);
  }
  return value;
}

export function listEnv<T extends string>(name: string, allowed: readonly T[]): T[] {
  const text = process.env[name];
  if (!text) return [...allowed];
  const values = text.split(",").map((part) => part.trim()).filter(Boolean);
  const unknown = values.filter((value) => !allowed.includes(value as T));
  if (unknown.length) throw new Error(`${name}: unknown ${unknown.join(", ")} (expected some of ${allowed.join(", ")})`);
  return values as T[];
}

// ------------------------------------------------------------------------------------ cleanup on exit

export const cleanups: (() => Promise<unknown>)[] = [];
/** Runs one cleanup, bounded: a close that never returns (see "never finished" requests) must not hang the run. */
export async function cleanUp(cleanup: () => Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      log(`cleanup did not finish within 30 s, going on: ${cleanup.toString().replace(/\s+/g, " ").slice(0, 80)}`);
      resolve();
    }, 30_000);
  });
  await Promise.race([cleanup().catch((error: unknown) => log(`cleanup failed: ${(error as Error).message}`)), limit]);
  clearTimeout(timer);
}
export async function runCleanups(): Promise<void> {
  while (cleanups.length) await cleanUp(cleanups.pop()!);
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    log(`\n${signal}: cleaning up…`);
    void runCleanups().finally(() => process.exit(130));
  });
}

// ----------------------------------------------------------------------------------------- load worker

export class LoadWorker {
  // Node 20 does not apply the main thread's `--import tsx` hooks to workers: register tsx in the worker first.
  private readonly worker = new Worker(
    `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))})
       .then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL("./load-worker.ts", import.meta.url).href)}); })`,
    { eval: true },
  );

  run(spec: LoadSpec): Promise<LoadResult> {
    return new Promise((resolve, reject) => {
      const onMessage = (message: { result?: LoadResult; error?: string }) => {
        this.worker.off("error", onError);
        if (message.error) reject(new Error(`load worker: ${message.error}`));
        else resolve(message.result!);
      };
      const onError = (error: Error) => {
        this.worker.off("message", onMessage);
        reject(error);
      };
      this.worker.once("message", onMessage);
      this.worker.once("error", onError);
      this.worker.postMessage(spec);
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

// ------------------------------------------------------------------------------------------- databases

export interface ProvisionedDatabase {
  kind: DatabaseKind;
  /** A postgresql:// URL (for PGlite, its unix socket). */
  url: string;
  label: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString();
}

export async function provision(kind: DatabaseKind): Promise<ProvisionedDatabase | null> {
  if (kind === "pglite") {
    const embedded = await startEmbeddedPostgres({ dataDir: null });
    await migrate(embedded.url);
    return { kind, url: embedded.url, label: "PGlite (in memory, unix socket)", drop: () => embedded.stop() };
  }
  const admin = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 3_000 });
  try {
    await admin.connect();
  } catch (error) {
    log(`\nPostgreSQL is not reachable at ${redact(postgresUrl)} (${(error as Error).message}): skipping it.`);
    log("Set BENCH_PG_URL to a server where this user may CREATE DATABASE, or BENCH_DATABASES=pglite to silence this.");
    await admin.end().catch(() => undefined);
    return null;
  }
  const name = `ocs_bench_${randomBytes(6).toString("hex")}`;
  try {
    const { rows } = await admin.query<{ server_version: string }>("SHOW server_version");
    await admin.query(`CREATE DATABASE ${name}`);
    const url = withDatabase(postgresUrl, name);
    const drop = async () => {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      try {
        // pg's pool.end() resolves before its connections have closed; FORCE would kill those mid-goodbye and
        // their pools (no longer listening for errors) would crash the process. Give them a moment first.
        for (let attempt = 0; attempt < 50; attempt++) {
          const { rows: [{ count }] } = await client.query<{ count: number }>(
            "SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = $1",
            [name],
          );
          if (count === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    };
    try {
      await migrate(url);
    } catch (error) {
      await drop();
      throw error;
    }
    return { kind, url, label: `PostgreSQL ${rows[0].server_version.split(" ")[0]} (${name}, TCP loopback)`, drop };
  } finally {
    await admin.end();
  }
}

// --------------------------------------------------------------------------------------------- service

export interface BenchService {
  app: RunningApp;
  database: Database;
  config: Config;
  logger: Logger;
  url: string;
  inFlight: InFlight;
}

/**
 * The service as production runs it (NODE_ENV=production, so no GraphQL introspection or landing page), silent,
 * with a rate limit high enough never to answer 429 while the limiter still runs on every request.
 */
export async function startBenchService(db: ProvisionedDatabase, env: Record<string, string> = {}): Promise<BenchService> {
  const config = loadConfig({
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "silent",
    RATE_LIMIT_MAX: "1000000000",
    // Production on PostgreSQL refuses to start without a secrets key (SPEC §14); the bench's is throwaway.
    SECRETS_KEY: randomBytes(32).toString("base64"),
    ...env,
  });
  config.database = { kind: "postgres", url: db.url };
  // Opened here (not by createApp) only to give it the pool size it uses for the embedded engine (see POOL_SIZE).
  const database = await openDatabase(config.database, { migrate: false, poolSize: POOL_SIZE[db.kind] });
  cleanups.push(() => database.close());
  const logger = createLogger(config.logLevel);
  const app = await createApp(config, { logger, database });
  const inFlight = trackInFlight(app.http);
  cleanups.push(async () => {
    await drain("service", inFlight);
    await app.close();
  });
  const url = await app.http.listen({ host: "127.0.0.1", port: 0 });
  return { app, database, config, logger, url, inFlight };
}

/**
 * Creates `count` orders through OrderService, a few at a time as clients would (the service path, validation
 * included, so the rows are exactly its own), and returns their ids in creation order.
 */
export async function seedOrders(app: RunningApp, scope: MerchantScope, count: number, prefix = "SEED"): Promise<string[]> {
  const ids: string[] = [];
  const batch = 8;
  for (let first = 0; first < count; first += batch) {
    const created = await Promise.all(
      Array.from({ length: Math.min(batch, count - first) }, (_, i) =>
        app.services.orderService.create(scope, createOrderInput.parse(benchOrderBody(`${prefix}-${first + i}`)), "en"),
      ),
    );
    ids.push(...created.map((order) => order.id));
  }
  return ids;
}

/** GET a JSON answer; anything but 200 stops the benchmark with the body. */
export async function getJson(url: string, headers: Record<string, string>): Promise<any> {
  const response = await fetch(url, { headers });
  const body: any = await response.json();
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
  return body;
}

/** A GraphQL operation with an API key; its `data`, or the benchmark stops on any error. */
export async function graphql(baseUrl: string, key: string, query: string, variables: Record<string, unknown>): Promise<any> {
  const response = await fetch(`${baseUrl}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key },
    body: JSON.stringify({ query, variables }),
  });
  const body: any = await response.json();
  if (response.status !== 200 || body.errors) throw new Error(`graphql: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
  return body.data;
}

/** A Markdown table, columns padded to their widest cell; `numeric` columns right-aligned (`---:`). */
export function markdownTable(header: string[], rows: string[][], numeric: ReadonlySet<number>): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (values: string[]) =>
    `| ${values.map((cell, column) => (numeric.has(column) ? cell.padStart(widths[column]) : cell.padEnd(widths[column]))).join(" | ")} |`;
  const separator = `|${widths.map((width, column) => (numeric.has(column) ? `${"-".repeat(width + 1)}:` : "-".repeat(width + 2))).join("|")}|`;
  return [line(header), separator, ...rows.map(line)].join("\n");
}
