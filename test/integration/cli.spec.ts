import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { listMigrations } from "../../src/db/migrator.ts";
import { ApiClient } from "../support/api.ts";
import { testDatabaseName, usingPostgres } from "../support/database.ts";
import { orderInput } from "../support/fixtures.ts";
import { withDatabase } from "../support/global-setup.ts";
import {
  childEnv,
  childEnvWithDatabase,
  freePort,
  killStrays,
  runCli,
  runNode,
  startServerProcess,
  type Finished,
  type ServerProcess,
} from "../support/processes.ts";

/**
 * The operator CLI (SPEC §8) as an operator runs it: real child processes on a real database, next to a real
 * server process. On PGlite every process gets the same DATA_DIR, so the one-process-per-data-dir rule is exercised.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const LIVE_KEY = /^ek_live_[0-9A-Za-z]{32,}$/;
const TEST_KEY = /^ek_test_[0-9A-Za-z]{32,}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const KEY_FIELDS = ["id", "merchantId", "mode", "prefix", "name", "createdAt", "lastUsedAt", "revokedAt"];

// Every test starts child processes (about 1–3 s each on PGlite, more on a busy machine).
vi.setConfig({ testTimeout: 90_000 });

const temporary: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
/** The shared database: an embedded data dir (PGlite runs) or a fresh PostgreSQL database. */
let env: NodeJS.ProcessEnv;
let dataDir: string;

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "ocs-cli-"));
  temporary.push(dir);
  return dir;
}

function ocs(...args: string[]): Promise<Finished> {
  return runCli(args, env);
}

/** `--json`: exit 0, exactly one JSON object on stdout, nothing on stderr. */
function json(result: Finished): any {
  expect(result.stderr, result.stderr).toBe("");
  expect(result.code).toBe(0);
  const text = result.stdout.trim();
  expect(text.startsWith("{") && text.endsWith("}")).toBe(true);
  const value = JSON.parse(text); // throws on a second object or any other text
  expect(value).toBeTypeOf("object");
  return value;
}

/** A failure: non-zero exit, one line on stderr, nothing on stdout, no stack trace. */
function failure(result: Finished): string {
  expect(result.code).not.toBe(0);
  expect(result.stdout).toBe("");
  const lines = result.stderr.trimEnd().split("\n");
  expect(lines, result.stderr).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  return lines[0];
}

/** An empty PostgreSQL database (named so global-setup sweeps it up after an interrupted run). */
async function emptyPostgresDatabase(): Promise<string> {
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  const name = testDatabaseName();
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  cleanups.push(async () => {
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.end();
  });
  return withDatabase(process.env.TEST_DATABASE_URL!, name);
}

beforeAll(async () => {
  dataDir = tempDir();
  const child = await childEnvWithDatabase({ DATA_DIR: dataDir, LOG_LEVEL: "info" });
  env = child.env;
  cleanups.push(child.drop);
});

afterAll(async () => {
  killStrays();
  for (const cleanup of cleanups) await cleanup();
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

describe("ocs basics", () => {
  it("npx ocs: bin/ocs.js runs the CLI and lists every verb", async () => {
    const result = await runNode(["bin/ocs.js", "--help"], env);
    expect(result.code).toBe(0);
    for (const verb of ["migrate", "serve", "merchants", "keys"]) expect(result.stdout).toContain(verb);
    const keys = await runNode(["bin/ocs.js", "keys", "--help"], env);
    for (const verb of ["create", "list", "revoke"]) expect(keys.stdout).toContain(verb);
  });

  it("ocs migrate applies every migration to a fresh database, then has nothing left to do", async () => {
    const fresh = usingPostgres
      ? childEnv({ DATA_DIR: tempDir(), DATABASE_URL: await emptyPostgresDatabase() })
      : childEnv({ DATA_DIR: path.join(tempDir(), "nested", "data") }); // a parent that does not exist yet
    const names = listMigrations().map((migration) => migration.name);

    if (usingPostgres) {
      // A shared PostgreSQL is migrated only on request: data commands refuse until then.
      const refused = failure(await runCli(["merchants", "create", "--name", "Too Early"], fresh));
      expect(refused).toMatch(/missing \d+ migration.*run `ocs migrate` first/);
    }

    const first = await runCli(["migrate"], fresh);
    expect(first.code, first.stderr).toBe(0);
    for (const name of names) expect(first.stdout).toContain(name);
    expect(first.stdout).toMatch(new RegExp(`Applied ${names.length} migration`));

    const second = json(await runCli(["migrate", "--json"], fresh));
    expect(second).toEqual({ applied: [], alreadyApplied: names.length });
  });
});

describe("merchants and keys", () => {
  let merchant: { id: string; name: string };
  let keys: { live: string; test: string };

  it("merchants create --json prints exactly the SPEC's object", async () => {
    // On PGlite this is the data dir's first command: the CLI creates and migrates it itself.
    const created = json(await ocs("merchants", "create", "--name", "  Corner Shop  ", "--json"));
    expect(Object.keys(created)).toEqual(["merchant", "keys"]);
    expect(Object.keys(created.merchant)).toEqual(["id", "name"]);
    expect(Object.keys(created.keys)).toEqual(["live", "test"]);
    expect(created.merchant.id).toMatch(UUID);
    expect(created.merchant.name).toBe("Corner Shop");
    expect(created.keys.live).toMatch(LIVE_KEY);
    expect(created.keys.test).toMatch(TEST_KEY);
    merchant = created.merchant;
    keys = created.keys;
  });

  it("keys create, list and revoke; listing never shows a key", async () => {
    const live = json(await ocs("keys", "create", "--merchant", merchant.id, "--mode", "live", "--name", "Checkout", "--json"));
    expect(Object.keys(live)).toEqual(["key", "apiKey"]);
    expect(Object.keys(live.key)).toEqual(KEY_FIELDS);
    expect(live.apiKey).toMatch(LIVE_KEY);
    expect(live.key).toMatchObject({ merchantId: merchant.id, mode: "live", name: "Checkout", lastUsedAt: null, revokedAt: null });
    expect(live.key.id).toMatch(UUID);
    expect(live.key.createdAt).toMatch(ISO);
    expect(live.apiKey.startsWith(live.key.prefix)).toBe(true);
    expect(live.key.prefix.length).toBeLessThan(live.apiKey.length / 2);

    const byDefault = json(await ocs("keys", "create", "--merchant", merchant.id, "--json"));
    expect(byDefault.key.mode).toBe("test"); // the safe default: test keys never reach WhatsApp
    expect(byDefault.apiKey).toMatch(TEST_KEY);

    const revoked = json(await ocs("keys", "revoke", live.key.id, "--json"));
    expect(revoked.key).toMatchObject({ id: live.key.id, mode: "live" });
    expect(revoked.key.revokedAt).toMatch(ISO);

    const listed = await ocs("keys", "list", "--merchant", merchant.id, "--json");
    const list = json(listed);
    expect(list.merchantId).toBe(merchant.id);
    expect(list.keys.map((key: any) => key.id)).toContain(live.key.id);
    expect(list.keys).toHaveLength(4); // the merchant's two, and two more
    for (const key of list.keys) {
      expect(Object.keys(key)).toEqual(KEY_FIELDS);
      expect(key.prefix).toMatch(/^ek_(live|test)_[0-9A-Za-z]{4}$/);
    }
    expect(list.keys.find((key: any) => key.id === live.key.id).revokedAt).toBe(revoked.key.revokedAt);
    expect(list.keys.filter((key: any) => key.revokedAt !== null)).toHaveLength(1);

    const human = await ocs("keys", "list", "--merchant", merchant.id);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(live.key.prefix);
    expect(human.stdout).toContain("Checkout");
    expect(human.stdout).toContain(revoked.key.revokedAt);
    for (const secret of [live.apiKey, byDefault.apiKey, keys.live, keys.test]) {
      expect(listed.stdout).not.toContain(secret);
      expect(human.stdout + human.stderr).not.toContain(secret);
    }
  });

  it("unknown or malformed ids and bad arguments: one line on stderr and a non-zero exit", async () => {
    const unknown = randomUUID();
    // Concurrent on purpose: on PGlite the commands take turns with the data dir instead of failing.
    const [createFor, listFor, listMalformed, revokeUnknown] = await Promise.all([
      ocs("keys", "create", "--merchant", unknown, "--json"),
      ocs("keys", "list", "--merchant", unknown),
      ocs("keys", "list", "--merchant", "not-a-merchant"),
      ocs("keys", "revoke", unknown, "--json"),
    ]);
    expect(failure(createFor)).toBe(`error: Merchant ${unknown} not found.`);
    expect(failure(listFor)).toBe(`error: Merchant ${unknown} not found.`);
    expect(failure(listMalformed)).toBe("error: Merchant not-a-merchant not found.");
    expect(failure(revokeUnknown)).toBe(`error: API key ${unknown} not found.`);

    const [badMode, noName, blankName, noMerchant, unknownVerb] = await Promise.all([
      ocs("keys", "create", "--merchant", merchant.id, "--mode", "prod"),
      ocs("merchants", "create", "--json"),
      ocs("merchants", "create", "--name", "   "),
      ocs("keys", "list"),
      ocs("orders", "list"),
    ]);
    expect(failure(badMode)).toMatch(/--mode.*'prod'.*live, test/);
    expect(failure(noName)).toMatch(/required option '--name/);
    expect(failure(blankName)).toMatch(/--name/);
    expect(failure(noMerchant)).toMatch(/required option '--merchant/);
    expect(failure(unknownVerb)).toMatch(/unknown command 'orders'/);

    const invalidConfig = await runCli(["keys", "list", "--merchant", merchant.id], { ...env, DATABASE_URL: "mysql://nope" });
    expect(invalidConfig.code).not.toBe(0);
    expect(invalidConfig.stderr).toMatch(/DATABASE_URL: must be a postgres/);
  });

  describe("while a server runs on the same database", () => {
    let server: ServerProcess;
    let api: ApiClient;

    beforeAll(async () => {
      const port = await freePort();
      server = startServerProcess({ ...env, PORT: String(port), HOST: "127.0.0.1" });
      await server.waitFor(/Order Confirmation Service (is ready|on )/);
      api = new ApiClient(`http://127.0.0.1:${port}`);
    });
    afterAll(() => server?.stop("SIGKILL"));

    it("goes through the server (its database socket on PGlite), and the printed test key works there", async () => {
      const created = json(await ocs("merchants", "create", "--name", "Served Shop", "--json"));
      const order = await api.withKey(created.keys.test).post("/api/v1/orders", orderInput());
      expect(order.status).toBe(201);
      expect(order.body.status).toBe("pending");

      const listed = await ocs("keys", "list", "--merchant", created.merchant.id);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toContain(created.keys.test.slice(0, 12));
      if (usingPostgres) expect(listed.stderr).toMatch(/Using PostgreSQL at postgresql:\/\//);
      else expect(listed.stderr).toContain(`Using the embedded database of the running server (pid ${server.pid}) in ${dataDir}`);

      const migrated = await ocs("migrate");
      expect(migrated.code, migrated.stderr).toBe(0);
      expect(migrated.stdout).toMatch(/up to date/);
    });

    it("a key revoked with the CLI gets 401 from the server (within its 5 s key cache)", async () => {
      const created = json(await ocs("keys", "create", "--merchant", merchant.id, "--mode", "test", "--json"));
      const client = api.withKey(created.apiKey);
      expect((await client.get("/api/v1/orders")).status).toBe(200); // now in the server's cache

      const listed = json(await ocs("keys", "list", "--merchant", merchant.id, "--json"));
      expect(listed.keys.find((key: any) => key.id === created.key.id).lastUsedAt).toMatch(ISO);

      json(await ocs("keys", "revoke", created.key.id, "--json"));
      const revokedAt = Date.now();
      let response = await client.get("/api/v1/orders");
      // The cache holds a key for 5 s; the bound leaves room for a loaded machine's slow requests.
      while (response.status === 200 && Date.now() - revokedAt < 12_000) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        response = await client.get("/api/v1/orders");
      }
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ success: false, error: "UNAUTHORIZED" });
      expect(Date.now() - revokedAt).toBeLessThan(10_000);
    });

    it("after the server stops, the CLI opens the data dir itself", async () => {
      const stopped = await server.stop("SIGTERM");
      expect(stopped.code).toBe(0);
      const listed = await ocs("keys", "list", "--merchant", merchant.id);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toContain("Checkout");
      if (usingPostgres) return;
      expect(listed.stderr).toContain(`Using the embedded database in ${dataDir}.`);
      // Nothing left holding the directory: a server could take it right away.
      // (The data dir also keeps the generated secrets key and the first start's credentials file: files, not locks.)
      const kept = new Set(["pgdata", "secrets.key", "first-start.txt"]);
      expect(readdirSync(dataDir).filter((name) => !kept.has(name))).toEqual([]);
      expect(existsSync(path.join(dataDir, "ocs.lock"))).toBe(false);
    });
  });
});
