import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiClient } from "../support/api.ts";
import { usingPostgres } from "../support/database.ts";
import { orderInput } from "../support/fixtures.ts";
import { childEnvWithDatabase, freePort, killStrays, startServerProcess, type ServerProcess } from "../support/processes.ts";

/**
 * SPEC §1, the newcomer's `npm start` with no configuration at all: embedded PGlite in DATA_DIR (only DATA_DIR
 * and PORT are set here, to keep the run away from ./data and port 3000), a demo merchant whose test key is
 * printed once, the docs URL, a clean stop on SIGTERM. On PostgreSQL runs DATABASE_URL names a fresh database.
 */
// Every test starts child processes (about 1–3 s each on PGlite, more on a busy machine).
vi.setConfig({ testTimeout: 90_000 });

const BANNER = /Order Confirmation Service (is ready|on )/;
const READY = /Test API key:\s+(ek_test_[0-9A-Za-z]+)/;

let dataDir: string;
let port: number;
let env: NodeJS.ProcessEnv;
let api: ApiClient;
let drop: () => Promise<void> = async () => undefined;
let first: ServerProcess;
let demoKey: string;

beforeAll(async () => {
  dataDir = path.join(mkdtempSync(path.join(tmpdir(), "ocs-start-")), "data"); // its parent is there, itself not yet
  port = await freePort();
  ({ env, drop } = await childEnvWithDatabase({ DATA_DIR: dataDir, PORT: String(port) }));
  api = new ApiClient(`http://127.0.0.1:${port}`);
});

afterAll(async () => {
  killStrays();
  await drop();
  rmSync(path.dirname(dataDir), { recursive: true, force: true });
});

describe("first start with no configuration", () => {
  it("shows a demo merchant's test key that works, and the URLs of the docs and the simulator; not on stdout when it is not a terminal (SPEC §14)", async () => {
    first = startServerProcess(env);
    const banner = await first.waitForFirstStart(READY);
    const [, key] = banner;
    demoKey = key;
    expect(banner.file).toBe(path.join(path.resolve(dataDir), "first-start.txt"));
    expect(statSync(banner.file).mode & 0o777).toBe(0o600);
    expect(banner.text).toContain(`API docs:       http://localhost:${port}/docs`);
    expect(banner.text).toContain(`OpenAPI:        http://localhost:${port}/api/v1/openapi.json`);
    expect(banner.text).toContain(`Simulator:      http://localhost:${port}/simulator`);
    expect(banner.text).toContain(`Console:        http://localhost:${port}/console`);
    expect(banner.text).toContain(`GraphQL:        http://localhost:${port}/graphql (subscriptions: ws://localhost:${port}/graphql)`);
    expect(banner.text.match(/ek_test_[0-9A-Za-z]{32,}/g)?.every((printed) => printed === key)).toBe(true);
    expect(banner.text).not.toMatch(/ek_live_/);
    // stdout (the log stream here) carries the file's path, never a key or a password.
    expect(first.stdout).not.toMatch(/ek_test_|ek_live_|Password:/);

    const created = await api.withKey(key).post("/api/v1/orders", orderInput());
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: "pending", customerAction: null, deliveryStatus: null });
    expect((await api.get("/docs")).status).toBe(200);
    expect((await api.get("/simulator")).status).toBe(200);
    expect((await api.get("/console")).status).toBe(200);
    if (!usingPostgres) expect(existsSync(path.join(dataDir, "pgdata"))).toBe(true);
  });

  it.skipIf(usingPostgres)("a second server on the same DATA_DIR refuses with a clear message", async () => {
    const second = startServerProcess({ ...env, PORT: String(await freePort()) });
    const result = await second.exited;
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`The embedded database in ${dataDir} is in use by process ${first.pid}.`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).not.toMatch(/ek_test_/);
    // The first one is untouched.
    expect((await api.withKey(demoKey).get("/api/v1/orders")).status).toBe(200);
  });

  it.skipIf(!usingPostgres)("a second instance on the same PostgreSQL starts alongside and creates no second demo merchant", async () => {
    const second = startServerProcess({ ...env, PORT: String(await freePort()) });
    await second.waitFor(BANNER);
    expect(second.stdout).not.toMatch(/ek_test_/);
    const stopped = await second.stop("SIGTERM");
    expect(stopped.code, JSON.stringify(stopped)).toBe(0);
  });

  it("NODE_ENV=production on an empty database creates no demo merchant (SPEC §14), DEMO=true does", async () => {
    const prodDir = path.join(path.dirname(dataDir), "prod");
    const prod = await childEnvWithDatabase({ DATA_DIR: prodDir, PORT: String(await freePort()), NODE_ENV: "production", SECRETS_KEY: Buffer.alloc(32, 7).toString("base64") });
    try {
      const server = startServerProcess(prod.env);
      await server.waitFor(/no merchant yet/);
      expect(server.stdout).not.toMatch(/ek_test_|ek_live_|Password:|firstStartFile/);
      expect(existsSync(path.join(prodDir, "first-start.txt"))).toBe(false);
      expect((await server.stop("SIGTERM")).code).toBe(0);
      const demo = startServerProcess({ ...prod.env, DEMO: "true" });
      await demo.waitForFirstStart(READY);
      expect((await demo.stop("SIGTERM")).code).toBe(0);
    } finally {
      await prod.drop();
    }
  });

  it("SIGTERM stops it with exit code 0 within a few seconds", async () => {
    const started = Date.now();
    const stopped = await first.stop("SIGTERM");
    expect(stopped.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(stopped.stderr).not.toMatch(/\n\s+at /);
    if (!usingPostgres) expect(existsSync(path.join(dataDir, "ocs.lock"))).toBe(false);
  });

  it("a second start on the same data prints no new key, and the first key still works", async () => {
    const again = startServerProcess(env);
    await again.waitFor(BANNER);
    await again.waitFor(/simulator: http\S+\)/);
    expect(again.stdout).toContain(`API docs: http://localhost:${port}/docs, simulator: http://localhost:${port}/simulator)`);
    expect(again.stdout).not.toMatch(/ek_test_|ek_live_/);
    expect((await api.withKey(demoKey).post("/api/v1/orders", orderInput())).status).toBe(201);
    const stopped = await again.stop("SIGTERM");
    expect(stopped.code).toBe(0);
  });
});
