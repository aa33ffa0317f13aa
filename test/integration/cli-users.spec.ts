import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { signIn } from "../support/console.ts";
import { GraphQLClient } from "../support/graphql.ts";
import { childEnvWithDatabase, freePort, killStrays, runCli, startServerProcess, type Finished, type ServerProcess } from "../support/processes.ts";

/**
 * SPEC §10 `ocs users …` as an operator runs them (real child processes) next to a running server, which on its
 * first start created the demo merchant's console user and printed its password once.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

vi.setConfig({ testTimeout: 90_000 });

let env: NodeJS.ProcessEnv;
let dataDir: string;
let drop: () => Promise<void>;
let server: ServerProcess;
let baseUrl: string;
let demo: { merchantId: string; email: string; password: string };

function ocs(args: string[], input?: string): Promise<Finished> {
  return runCli(args, env, input);
}

function json(result: Finished): any {
  expect(result.stderr, result.stderr).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

function failure(result: Finished): string {
  expect(result.code).not.toBe(0);
  expect(result.stdout).toBe("");
  const lines = result.stderr.trimEnd().split("\n");
  expect(lines, result.stderr).toHaveLength(1);
  return lines[0];
}

const viewerStatus = async (cookie: string | null) =>
  (await new GraphQLClient(baseUrl).withHeaders({ cookie: cookie ?? "" }).query("{ viewer { user { email role } } }")).status;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "ocs-cli-users-"));
  const child = await childEnvWithDatabase({ DATA_DIR: dataDir, LOG_LEVEL: "info" });
  env = child.env;
  drop = child.drop;
  const port = await freePort();
  server = startServerProcess({ ...env, PORT: String(port), HOST: "127.0.0.1", COOKIE_SECURE: "false" });
  const { text } = await server.waitForFirstStart(/Password:\s+(\S+)/);
  const [, merchantId] = /Demo merchant:\s+([0-9a-f-]{36})/.exec(text)!;
  const [, email] = /Console user:\s+(\S+)/.exec(text)!;
  const [, password] = /Password:\s+(\S+)/.exec(text)!;
  demo = { merchantId, email, password };
  baseUrl = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await server?.stop("SIGKILL");
  killStrays();
  await drop?.();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the demo console user of the first start", () => {
  it("is printed once beside the test key, and signs in as admin of the demo merchant", async () => {
    expect(demo.email).toBe("demo@example.com");
    expect(demo.password).toMatch(/^[A-Za-z0-9]{24}$/);
    const result = await signIn(baseUrl, demo.email, demo.password);
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ user: { id: expect.stringMatching(UUID), email: "demo@example.com", role: "admin" }, merchant: { id: demo.merchantId, name: "Demo Shop" } });
    expect(await viewerStatus(result.cookie)).toBe(200);
  });
});

describe("ocs users", () => {
  const email = `Ops.${randomUUID().slice(0, 6)}@Example.com`;
  let userId: string;

  it("create reads the password from stdin (one line) and prints exactly { user } with --json", async () => {
    const created = json(await ocs(["users", "create", "--merchant", demo.merchantId, "--email", email, "--json"], "stdin passphrase 1\nignored second line\n"));
    expect(Object.keys(created)).toEqual(["user"]);
    expect(Object.keys(created.user)).toEqual(["id", "email", "role", "merchantId"]);
    expect(created.user).toEqual({ id: expect.stringMatching(UUID), email: email.toLowerCase(), role: "admin", merchantId: demo.merchantId });
    userId = created.user.id;
    const result = await signIn(baseUrl, email, "stdin passphrase 1");
    expect(result.status).toBe(200);
    expect(result.body.user.id).toBe(userId);
  });

  it("create without a password on stdin generates one and prints it once; --role viewer makes a viewer", async () => {
    const created = json(await ocs(["users", "create", "--merchant", demo.merchantId, "--email", "viewer@example.com", "--role", "viewer", "--json"]));
    expect(Object.keys(created)).toEqual(["user", "password"]);
    expect(created.user.role).toBe("viewer");
    expect(created.password).toMatch(/^[A-Za-z0-9]{24}$/);
    const result = await signIn(baseUrl, "viewer@example.com", created.password);
    expect(result.body.user.role).toBe("viewer");

    const human = await ocs(["users", "create", "--merchant", demo.merchantId, "--email", "human@example.com"]);
    expect(human.code, human.stderr).toBe(0);
    const [, password] = /Password:\s+(\S+)/.exec(human.stdout)!;
    expect(human.stdout).toMatch(/not shown again/);
    expect((await signIn(baseUrl, "human@example.com", password)).status).toBe(200);
  });

  it("refusals are one line: taken e-mail (any case), bad e-mail, short password, unknown merchant, unknown role", async () => {
    expect(failure(await ocs(["users", "create", "--merchant", demo.merchantId, "--email", email.toUpperCase()], "another passphrase\n"))).toMatch(
      /already exists/,
    );
    expect(failure(await ocs(["users", "create", "--merchant", demo.merchantId, "--email", "not-an-email"], "another passphrase\n"))).toMatch(
      /--email is not an e-mail address/,
    );
    expect(failure(await ocs(["users", "create", "--merchant", demo.merchantId, "--email", "short@example.com"], "short\n"))).toMatch(
      /password must be at least 12 characters/,
    );
    expect(failure(await ocs(["users", "create", "--merchant", randomUUID(), "--email", "x@example.com"], "another passphrase\n"))).toMatch(
      /Merchant .* not found/,
    );
    const role = await ocs(["users", "create", "--merchant", demo.merchantId, "--email", "y@example.com", "--role", "owner"]);
    expect(role.code).not.toBe(0);
    expect(role.stderr).toMatch(/owner.*(admin|viewer)/s);
  });

  it("list shows every user of the merchant, never a password or hash", async () => {
    const listed = json(await ocs(["users", "list", "--merchant", demo.merchantId, "--json"]));
    expect(listed.merchantId).toBe(demo.merchantId);
    expect(listed.users.map((user: any) => user.email)).toEqual(["demo@example.com", email.toLowerCase(), "viewer@example.com", "human@example.com"]);
    for (const user of listed.users) expect(Object.keys(user)).toEqual(["id", "email", "role", "merchantId", "createdAt"]);
    const human = await ocs(["users", "list", "--merchant", demo.merchantId]);
    expect(human.stdout).toContain("viewer@example.com");
    expect(human.stdout + JSON.stringify(listed)).not.toMatch(/scrypt|passphrase/);
  });

  it("reset-password ends the user's sessions on the running server; the new password (stdin or generated) works", async () => {
    const before = await signIn(baseUrl, email, "stdin passphrase 1");
    expect(await viewerStatus(before.cookie)).toBe(200);

    const reset = json(await ocs(["users", "reset-password", userId, "--json"], "stdin passphrase 2\n"));
    expect(reset).toEqual({ user: { id: userId, email: email.toLowerCase(), role: "admin", merchantId: demo.merchantId } });
    expect(await viewerStatus(before.cookie)).toBe(401);
    expect((await signIn(baseUrl, email, "stdin passphrase 1")).status).toBe(401);
    const after = await signIn(baseUrl, email, "stdin passphrase 2");
    expect(after.status).toBe(200);

    const generated = json(await ocs(["users", "reset-password", userId, "--json"]));
    expect(generated.password).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(await viewerStatus(after.cookie)).toBe(401);
    expect((await signIn(baseUrl, email, generated.password)).status).toBe(200);
  });

  it("remove ends the user's sessions at once; a second remove is 'not found'", async () => {
    const users = json(await ocs(["users", "list", "--merchant", demo.merchantId, "--json"])).users as { id: string; email: string }[];
    const viewerId = users.find((user) => user.email === "viewer@example.com")!.id;
    const { password } = json(await ocs(["users", "reset-password", viewerId, "--json"]));
    const session = await signIn(baseUrl, "viewer@example.com", password);
    expect(await viewerStatus(session.cookie)).toBe(200);
    const removed = json(await ocs(["users", "remove", session.body.user.id, "--json"]));
    expect(removed.user).toMatchObject({ id: session.body.user.id, email: "viewer@example.com", role: "viewer" });
    expect(await viewerStatus(session.cookie)).toBe(401);
    expect(failure(await ocs(["users", "remove", session.body.user.id]))).toMatch(new RegExp(`User ${session.body.user.id} not found\\.$`));
    expect(failure(await ocs(["users", "reset-password", "not-a-uuid"], "whatever passphrase\n"))).toMatch(/User not-a-uuid not found\.$/);
  });
});
