import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiClient } from "../support/api.ts";
import { orderInput } from "../support/fixtures.ts";
import { childEnvWithDatabase, freePort, killStrays, startServerProcess, type ServerProcess } from "../support/processes.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { createEndpoint, eventually } from "../support/webhooks.ts";

/**
 * At-least-once across crashes (SPEC §4): the service runs as a child process (`npm start`) on PGlite's DATA_DIR
 * or on PostgreSQL, is killed while a receiver holds a delivery's request, and restarted on the same data. The
 * event arrives again with the same webhook-id. A clean stop (SIGTERM) hands the attempt back at once instead
 * of waiting for its lease to run out.
 */
vi.setConfig({ testTimeout: 120_000 });

const READY = /Test API key:\s+(ek_test_[0-9A-Za-z]+)/;
const BANNER = /Order Confirmation Service (is ready|on )/;
// Lease = timeout + 10 s margin = 20 s: long enough to tell a released lease from an expired one.
const TIMEOUT_MS = 10_000;

let dataDir: string;
let env: NodeJS.ProcessEnv;
let api: ApiClient;
let receiver: WebhookReceiver;
let drop: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  dataDir = path.join(mkdtempSync(path.join(tmpdir(), "ocs-webhook-crash-")), "data");
  const port = await freePort();
  ({ env, drop } = await childEnvWithDatabase({
    DATA_DIR: dataDir,
    PORT: String(port),
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_RETRY_SCHEDULE: "200ms",
    LOG_LEVEL: "warn",
  }));
  api = new ApiClient(`http://127.0.0.1:${port}`);
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  killStrays();
  await receiver?.close();
  await drop();
  rmSync(path.dirname(dataDir), { recursive: true, force: true });
});

describe("webhook delivery across process restarts", () => {
  let server: ServerProcess;
  let shop: ApiClient;

  it("after kill -9 mid-delivery, the restarted service delivers the event again with the same webhook-id", async () => {
    server = startServerProcess(env);
    const [, key] = await server.waitForFirstStart(READY);
    shop = api.withKey(key);
    const endpoint = await createEndpoint(shop, { url: receiver.url() });
    receiver.secret = endpoint.secret;
    receiver.respond((_request, index) => (index === 0 ? { hang: true } : { status: 200 }));

    const created = await shop.post("/api/v1/orders", orderInput());
    expect(created.status).toBe(201);
    const [held] = await receiver.waitFor(1);
    expect(held.verified).toBe(true);
    const killed = await server.stop("SIGKILL");
    expect(killed.signal).toBe("SIGKILL");

    server = startServerProcess(env);
    await server.waitFor(BANNER);
    // The killed attempt's lease runs out (timeout + margin), then the attempt is made again.
    const [, again] = await receiver.waitFor(2, undefined, 45_000);
    expect(again.headers["webhook-id"]).toBe(held.headers["webhook-id"]);
    expect(again.rawBody).toBe(held.rawBody);
    expect(again.verified).toBe(true);
    expect(again.body.data.id).toBe(created.body.id);

    const log = await eventually(
      () => shop.get(`/api/v1/webhook-deliveries?orderId=${created.body.id}`),
      (response) => response.body.data?.[0]?.status === "succeeded",
    );
    // The killed attempt left no record (it never finished); the one that counted did.
    expect(log.body.data[0].attempts).toMatchObject([{ statusCode: 200, error: null }]);
    expect(log.body.data[0].eventId).toBe(held.headers["webhook-id"]);
  });

  it("after SIGTERM mid-delivery, the attempt is handed back and the next start makes it at once", async () => {
    const before = receiver.requests.length;
    receiver.respond((_request, index) => (index === before ? { hang: true } : { status: 200 }));
    const created = await shop.post("/api/v1/orders", orderInput());
    expect(created.status).toBe(201);
    const held = (await receiver.waitFor(before + 1)).at(-1)!;
    const stopped = await server.stop("SIGTERM");
    expect(stopped.code).toBe(0);

    server = startServerProcess(env);
    await server.waitFor(BANNER);
    const startedAt = Date.now();
    const again = (await receiver.waitFor(before + 2, undefined, 30_000)).at(-1)!;
    expect(again.headers["webhook-id"]).toBe(held.headers["webhook-id"]);
    // Well before the 20 s lease could have run out.
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    await server.stop("SIGTERM");
  });
});
