import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiClient } from "../support/api.ts";
import { orderInput } from "../support/fixtures.ts";
import { childEnvWithDatabase, freePort, killStrays, startServerProcess } from "../support/processes.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { createEndpoint, eventually } from "../support/webhooks.ts";

/**
 * At least once when the process dies in the middle of a burst (as webhook-crash.spec.ts, with many deliveries
 * at once): attempts in flight, deliveries claimed ahead and not started, and outcomes queued for the next
 * batched write are all lost with the process. Their leases run out, and the restarted service delivers every
 * event, a repeated one with the same webhook-id and body.
 */
vi.setConfig({ testTimeout: 120_000 });

const READY = /Test API key:\s+(ek_test_[0-9A-Za-z]+)/;
const BANNER = /Order Confirmation Service (is ready|on )/;
const ORDERS = 30;

let dataDir: string;
let env: NodeJS.ProcessEnv;
let api: ApiClient;
let receiver: WebhookReceiver;
let drop: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  dataDir = path.join(mkdtempSync(path.join(tmpdir(), "ocs-webhook-crash-batch-")), "data");
  const port = await freePort();
  ({ env, drop } = await childEnvWithDatabase({
    DATA_DIR: dataDir,
    PORT: String(port),
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    // Lease = timeout + 10 s margin.
    WEBHOOK_TIMEOUT_MS: "2000",
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

describe("kill -9 in the middle of a burst of deliveries", () => {
  it("loses no event: every one arrives after the restart, repeats with the same webhook-id and body", async () => {
    let server = startServerProcess(env);
    const [, key] = await server.waitForFirstStart(READY);
    const shop = api.withKey(key);
    receiver.secret = (await createEndpoint(shop, { url: receiver.url(), events: ["order.created"] })).secret;
    // Slow enough that attempts are in flight and outcomes queued when the process dies.
    receiver.respond(() => ({ status: 200, delayMs: 40 }));

    const created = await Promise.all(Array.from({ length: ORDERS }, () => shop.post("/api/v1/orders", orderInput())));
    expect(created.map((response) => response.status)).toEqual(Array(ORDERS).fill(201));
    await receiver.waitFor(5);
    expect((await server.stop("SIGKILL")).signal).toBe("SIGKILL");
    const beforeRestart = receiver.requests.length;

    server = startServerProcess(env);
    await server.waitFor(BANNER);
    const log = await eventually(
      () => shop.get(`/api/v1/webhook-deliveries?status=succeeded&limit=100`),
      (response) => response.body.data?.length === ORDERS,
      60_000,
    );
    await server.stop("SIGTERM");

    const orderIds = new Set(created.map((response) => response.body.id));
    expect(new Set(log.body.data.map((delivery: any) => delivery.orderId))).toEqual(orderIds);
    expect(new Set(receiver.requests.map((request) => request.body.data.id))).toEqual(orderIds);
    expect(receiver.requests.every((request) => request.verified === true)).toBe(true);
    // The kill came before most deliveries were made: the restarted service made them.
    expect(beforeRestart).toBeLessThan(ORDERS);
    const byId = new Map<string, string[]>();
    for (const request of receiver.requests) {
      byId.set(request.headers["webhook-id"], [...(byId.get(request.headers["webhook-id"]) ?? []), request.rawBody]);
    }
    expect(byId.size).toBe(ORDERS);
    for (const bodies of byId.values()) expect(new Set(bodies).size).toBe(1);
    for (const delivery of log.body.data) expect(byId.has(delivery.eventId)).toBe(true);
  });
});
