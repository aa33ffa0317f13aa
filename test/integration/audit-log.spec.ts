import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { recordAudit } from "../../src/domain/audit/audit-log.ts";
import { SecretBox, secretKey } from "../../src/domain/secrets/secret-box.ts";
import { resealAllSecrets, sealPlaintextSecrets } from "../../src/domain/secrets/stored-secrets.ts";
import { consoleSession, createConsoleUser, PASSWORD, signIn, type ConsoleSession } from "../support/console.ts";
import { GraphQLClient } from "../support/graphql.ts";
import { childEnvWithDatabase, killStrays, runCli } from "../support/processes.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { createEndpoint, insertEndpoint, newWebhookSecret } from "../support/webhooks.ts";

/**
 * SPEC §14: the audit log (written in the change's own transaction, read by admins through GraphQL and by the CLI,
 * bounded by AUDIT_LOG_RETENTION), and secrets at rest (the start-up sealing of old plain-text secrets and the
 * key rotation).
 */
const ENTRY = "id at action target address actor { kind id label }";
const AUDIT = `query($first: Int, $after: String, $filter: AuditLogFilter) {
  auditLog(first: $first, after: $after, filter: $filter) { edges { cursor node { ${ENTRY} } } pageInfo { hasNextPage endCursor } }
}`;

let server: TestServer;
let shop: TestMerchant;
let other: TestMerchant;
let admin: ConsoleSession;

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: "true", TRUST_PROXY: "1" });
  shop = await server.merchant("Audited Shop");
  other = await server.merchant("Other Shop");
  admin = await consoleSession(server, shop.id, "admin");
});
afterAll(async () => {
  killStrays();
  await server?.close();
});

async function entries(filter: Record<string, string> = {}, first = 200) {
  const response = await admin.graphql.query(AUDIT, { first, filter });
  expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
  return response.body.data.auditLog.edges.map((edge: any) => edge.node);
}

describe("what is recorded, by whom, from where", () => {
  it("keys created and revoked by an admin session name the user, the key and the address", async () => {
    const created = await admin.graphql.query("mutation { createApiKey(mode: TEST) { apiKey { id } } }", undefined, undefined);
    const keyId = created.body.data.createApiKey.apiKey.id;
    await admin.graphql.withHeaders({ "x-forwarded-for": "203.0.113.50" }).query(`mutation { revokeApiKey(id: "${keyId}") { apiKey { id } } }`);
    const [revoked] = await entries({ action: "api_key.revoked" });
    expect(revoked).toMatchObject({
      action: "api_key.revoked",
      target: keyId,
      address: "203.0.113.50",
      actor: { kind: "USER", id: admin.user.id, label: admin.user.email },
    });
    const [createdEntry] = await entries({ action: "api_key.created" });
    expect(createdEntry).toMatchObject({ target: keyId, actor: { kind: "USER", id: admin.user.id } });
    // A second revocation changes nothing and records nothing.
    await admin.graphql.query(`mutation { revokeApiKey(id: "${keyId}") { apiKey { id } } }`);
    expect((await entries({ action: "api_key.revoked" })).filter((entry: any) => entry.target === keyId)).toHaveLength(1);
  });

  it("endpoint secrets created (REST, by an API key) and rotated (GraphQL, by a session)", async () => {
    const endpoint = await createEndpoint(shop.test, { url: "http://127.0.0.1:9/hook" });
    await admin.graphql.query(`mutation { rotateWebhookEndpointSecret(id: "${endpoint.id}") { secret } }`);
    const [rotated] = await entries({ action: "endpoint_secret.rotated" });
    expect(rotated).toMatchObject({ target: endpoint.id, actor: { kind: "USER", id: admin.user.id } });
    const [created] = await entries({ action: "endpoint_secret.created" });
    const testKey = (await server.app.services.merchantService.listKeys(shop.id)).find((key) => key.mode === "test" && shop.keys.test.startsWith(key.prefix))!;
    expect(created).toMatchObject({ target: endpoint.id, actor: { kind: "API_KEY", id: testKey.id, label: testKey.prefix }, address: "127.0.0.1" });
  });

  it("users created, given a new password and removed (the CLI), and sign-ins that succeeded or failed", async () => {
    const user = await createConsoleUser(server, shop.id, { role: "viewer" });
    expect((await signIn(server.baseUrl, user.email, "wrong password here", { "x-forwarded-for": "198.51.100.3" })).status).toBe(401);
    expect((await signIn(server.baseUrl, user.email, PASSWORD)).status).toBe(200);
    await server.app.services.users.resetPassword(user.id, "a brand new password");
    await server.app.services.users.remove(user.id);
    // An unknown e-mail belongs to no merchant: nothing is recorded for anyone.
    expect((await signIn(server.baseUrl, "nobody@example.com", "whatever it is")).status).toBe(401);

    const forUser = (await entries()).filter((entry: any) => entry.target === user.id);
    expect(forUser.map((entry: any) => entry.action)).toEqual(["user.removed", "user.password_reset", "sign_in.succeeded", "sign_in.failed", "user.created"]);
    expect(forUser[0].actor).toEqual({ kind: "CLI", id: null, label: "ocs users remove" });
    expect(forUser[3]).toMatchObject({ address: "198.51.100.3", actor: { kind: "USER", id: user.id, label: user.email } });
  });

  it("a change that fails writes no entry (same transaction)", async () => {
    const before = (await entries({ action: "user.created" })).length;
    await expect(server.app.services.users.create(shop.id, admin.user.email, "admin", PASSWORD)).rejects.toThrow();
    expect((await entries({ action: "user.created" })).length).toBe(before);
  });
});

describe("Query.auditLog", () => {
  it("is for admin sessions only: viewers and API keys get FORBIDDEN", async () => {
    const viewer = await consoleSession(server, shop.id, "viewer");
    for (const client of [viewer.graphql, new GraphQLClient(server.baseUrl, shop.keys.test)]) {
      const response = await client.query(AUDIT, { first: 5 });
      expect(response.status).toBe(403);
      expect(response.body.errors![0].extensions!.code).toBe("FORBIDDEN");
      expect(response.body.data ?? null).toBeNull();
    }
  });

  it("shows only the merchant's own entries, newest first, pages with after, filters by action and actor", async () => {
    const otherAdmin = await consoleSession(server, other.id, "admin");
    const otherIds = new Set((await otherAdmin.graphql.query(AUDIT, { first: 200 })).body.data.auditLog.edges.map((edge: any) => edge.node.id));
    const all = await entries();
    expect(all.some((entry: any) => otherIds.has(entry.id))).toBe(false);
    const ids = all.map((entry: any) => BigInt(entry.id));
    expect([...ids].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0))).toEqual(ids);

    const first = (await admin.graphql.query(AUDIT, { first: 2 })).body.data.auditLog;
    expect(first.edges).toHaveLength(2);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = (await admin.graphql.query(AUDIT, { first: 2, after: first.pageInfo.endCursor })).body.data.auditLog;
    expect(second.edges.map((edge: any) => edge.node.id)).toEqual(all.slice(2, 4).map((entry: any) => entry.id));

    const cli = await entries({ actorId: "cli" });
    expect(cli.length).toBeGreaterThan(0);
    expect(cli.every((entry: any) => entry.actor.kind === "CLI")).toBe(true);
    const mine = await entries({ actorId: admin.user.id });
    expect(mine.every((entry: any) => entry.actor.id === admin.user.id)).toBe(true);

    for (const variables of [{ first: 0 }, { first: 201 }, { first: 5, after: "nope" }, { first: 5, filter: { action: "made.up" } }]) {
      const refused = await admin.graphql.query(AUDIT, variables);
      expect(refused.body.errors![0].extensions!.code, JSON.stringify(variables)).toBe("BAD_USER_INPUT");
    }
  });

  it("forgets entries older than AUDIT_LOG_RETENTION", async () => {
    const prisma = server.app.services.database.prisma;
    const old = new Date(Date.now() - 401 * 86_400_000);
    await recordAudit(prisma, { merchantId: shop.id, action: "sign_in.failed", target: null, actor: { kind: "cli", id: null, label: "old" }, address: null, at: old });
    expect(await prisma.auditEntry.count({ where: { merchantId: shop.id, at: { lt: new Date(Date.now() - 400 * 86_400_000) } } })).toBe(1);
    expect(await server.app.services.auditLog.purgeOlderThan(server.config.auditLogRetentionMs)).toBeGreaterThanOrEqual(1);
    expect(await prisma.auditEntry.count({ where: { merchantId: shop.id, at: { lt: new Date(Date.now() - 400 * 86_400_000) } } })).toBe(0);
    expect(await prisma.auditEntry.count({ where: { merchantId: shop.id } })).toBeGreaterThan(0);
  });
});

describe("secrets at rest: sealing old secrets, rotating the key", () => {
  it("the start-up step seals plain-text secrets (idempotently), and a rotation re-seals every secret under the new key", async () => {
    const prisma = server.app.services.database.prisma;
    const box = server.app.services.secrets;
    const plain = newWebhookSecret();
    const previous = newWebhookSecret();
    const legacy = await insertEndpoint(server, shop.id, { url: "http://127.0.0.1:9/legacy", secret: plain, previousSecret: previous });
    const first = await sealPlaintextSecrets(prisma, box);
    expect(first.sealed).toBeGreaterThanOrEqual(2);
    const sealed = await prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: legacy.id } });
    expect(box.open(sealed.secret, `webhook-endpoint:${legacy.id}`)).toBe(plain);
    expect(box.open(sealed.previousSecret!, `webhook-endpoint:${legacy.id}`)).toBe(previous);
    expect((await sealPlaintextSecrets(prisma, box)).sealed).toBe(0);

    const next = secretKey(randomBytes(32));
    const rotated = await resealAllSecrets(prisma, new SecretBox(next, [box.current]));
    expect(rotated.sealed).toBeGreaterThanOrEqual(2);
    const after = await prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: legacy.id } });
    expect(after.secret.startsWith(`ocs1.${next.id}.`)).toBe(true);
    expect(new SecretBox(next).open(after.secret, `webhook-endpoint:${legacy.id}`)).toBe(plain);
    expect(() => box.open(after.secret, `webhook-endpoint:${legacy.id}`)).toThrow(/unknown key/);
    // Put the server's own key back (the other tests' deliveries sign with it).
    await resealAllSecrets(prisma, new SecretBox(box.current, [next]));
  });
});

describe("the operator CLI", () => {
  // Child processes: about 2–5 s each on a loaded machine.
  vi.setConfig({ testTimeout: 120_000 });
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let drop: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    dataDir = path.join(mkdtempSync(path.join(tmpdir(), "ocs-audit-")), "data");
    ({ env, drop } = await childEnvWithDatabase({ DATA_DIR: dataDir }));
  });
  afterAll(async () => {
    await drop();
    rmSync(path.dirname(dataDir), { recursive: true, force: true });
  });

  it("ocs audit --merchant <id> --json prints { entries } newest first; ocs secrets rotate-key re-encrypts and replaces the key file", async () => {
    const created = await runCli(["merchants", "create", "--name", "CLI Shop", "--json"], env);
    expect(created.code, created.stderr).toBe(0);
    const merchantId = JSON.parse(created.stdout).merchant.id;
    const audit = await runCli(["audit", "--merchant", merchantId, "--json"], env);
    expect(audit.code, audit.stderr).toBe(0);
    const { entries: listed } = JSON.parse(audit.stdout);
    expect(listed).toHaveLength(2);
    expect(listed[0]).toEqual({
      at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      actor: { kind: "CLI", id: null, label: "ocs merchants create" },
      action: "api_key.created",
      target: expect.stringMatching(/^[0-9a-f-]{36}$/),
      address: null,
    });
    const unknown = await runCli(["audit", "--merchant", "00000000-0000-0000-0000-000000000000"], env);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/not found/);

    const newKey = randomBytes(32).toString("base64");
    const rotated = await runCli(["secrets", "rotate-key", "--new-key", newKey, "--json"], env);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(JSON.parse(rotated.stdout)).toMatchObject({ sealed: 0, keyId: secretKey(Buffer.from(newKey, "base64")).id });
    // No SECRETS_KEY here: the generated DATA_DIR/secrets.key is the key, and the rotation replaces it.
    const file = path.join(path.resolve(dataDir), "secrets.key");
    expect(readFileSync(file, "utf8").trim()).toBe(newKey);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const refused = await runCli(["secrets", "rotate-key", "--new-key", "c2hvcnQ="], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/32 bytes/);
  });
});
