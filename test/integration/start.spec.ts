import { existsSync, mkdtempSync, rmSync } from "node:fs";
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
  it("prints a demo merchant's test key that works, and the URLs of the docs and the simulator", async () => {
    first = startServerProcess(env);
    const [, key] = await first.waitFor(READY);
    await first.waitFor(/Simulator: .*\/simulator/);
    demoKey = key;
    expect(first.stdout).toContain(`API docs:       http://localhost:${port}/docs`);
    expect(first.stdout).toContain(`OpenAPI:        http://localhost:${port}/api/v1/openapi.json`);
    expect(first.stdout).toContain(`Simulator:      http://localhost:${port}/simulator`);
    expect(first.stdout).toContain(`Console:        http://localhost:${port}/console`);
    expect(first.stdout).toContain(`GraphQL:        http://localhost:${port}/graphql (subscriptions: ws://localhost:${port}/graphql)`);
    expect(first.stdout.match(/ek_test_[0-9A-Za-z]{32,}/g)?.every((printed) => printed === key)).toBe(true);
    expect(first.stdout).not.toMatch(/ek_live_/);

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
