import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiClient } from "../support/api.ts";
import { signIn } from "../support/console.ts";
import { FakeShopify, shopifyOrder } from "../support/fake-shopify.ts";
import { childEnvWithDatabase, freePort, killStrays, startServerProcess, type ServerProcess } from "../support/processes.ts";
import { installShop } from "../support/shopify-install.ts";
import type { TestServer } from "../support/server.ts";
import { eventually } from "../support/webhooks.ts";

/**
 * The write-back outbox across kill -9 (SPEC §13, the guarantees of §4): the service runs as a child process,
 * is killed while Shopify holds its tagsAdd request (the tag is already applied in the store), and restarted on
 * the same data. The write-back's lease runs out, it is made again, and the store ends with the tag once.
 */
vi.setConfig({ testTimeout: 180_000 });

const READY = /Test API key:\s+(ek_test_[0-9A-Za-z]+)/;
const PASSWORD = /Password:\s+(\S+)/;
const CLIENT_ID = "crash-app";
const CLIENT_SECRET = "crash-app-secret-0123456789";
const shop = "crash-test.myshopify.com";

let dataDir: string;
let env: NodeJS.ProcessEnv;
let base: string;
let fake: FakeShopify;
let drop: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  fake = await new FakeShopify({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }).start();
  dataDir = path.join(mkdtempSync(path.join(tmpdir(), "ocs-store-crash-")), "data");
  const port = await freePort();
  ({ env, drop } = await childEnvWithDatabase({
    DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: "warn",
    COOKIE_SECURE: "false",
    SHOPIFY_CLIENT_ID: CLIENT_ID,
    SHOPIFY_CLIENT_SECRET: CLIENT_SECRET,
    SHOPIFY_SHOP_ORIGIN: fake.shopOrigin,
    // Lease = 6 × 2 s + 10 s.
    STORE_TIMEOUT_MS: "2000",
    WEBHOOK_RETRY_SCHEDULE: "200ms,200ms",
  }));
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  killStrays();
  await fake?.stop();
  await drop();
  rmSync(path.dirname(dataDir), { recursive: true, force: true });
});

describe("store write-back across kill -9", () => {
  let server: ServerProcess;

  it("makes the write-back again after a crash mid-call, and the store sees its effect once", async () => {
    server = startServerProcess(env);
    const [, key] = await server.waitFor(READY);
    const [, password] = await server.waitFor(PASSWORD);
    const api = new ApiClient(base).withKey(key);
    const session = await signIn(base, "demo@example.com", password);
    expect(session.status).toBe(200);
    const steps = await installShop({ baseUrl: base } as TestServer, fake, { cookie: session.cookie! }, shop, "test");
    expect(steps.callback?.status).toBe(302);

    const order = shopifyOrder();
    expect((await fake.sendOrder(`${base}/webhooks/shopify`, shop, order)).status).toBe(200);
    const found = await eventually(
      () => api.get(`/api/v1/orders?search=${encodeURIComponent(`shopify:${order.id}`)}`),
      (response) => response.status === 200 && response.body.data?.length === 1,
    );
    const orderId = found.body.data[0].id;

    // Shopify applies the tag but holds its answer; the service dies waiting for it.
    fake.failures.push({ kind: "delay", ms: 120_000 });
    const tapped = await api.post(`/api/v1/test/orders/${orderId}/customer-action`, { action: "approve" });
    expect(tapped.status).toBe(200);
    await eventually(async () => fake.order(shop, order.id).tags, (tags) => tags.includes("cod-confirmed"));
    const killed = await server.stop("SIGKILL");
    expect(killed.signal).toBe("SIGKILL");

    server = startServerProcess(env);
    await server.waitFor(/Order Confirmation Service (is ready|on )/);
    // After the lease runs out, the write-back is made again and recorded.
    await eventually(
      async () => fake.callsOf("TagsAdd", shop).filter((call) => call.variables.id.endsWith(order.id)).length,
      (count) => count >= 2,
      60_000,
    );
    expect(fake.order(shop, order.id).tags).toEqual(["cod-confirmed"]);
    const session2 = await signIn(base, "demo@example.com", password);
    const activity = await eventually(
      async () => {
        const response = await fetch(`${base}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json", cookie: session2.cookie! },
          body: JSON.stringify({ query: "{ storeConnections { activity(first: 50) { kind orderId } } }" }),
        });
        return ((await response.json()) as any).data.storeConnections[0].activity as { kind: string; orderId: string }[];
      },
      (entries) => entries.some((entry) => entry.kind === "writeback_succeeded" && entry.orderId === orderId),
      30_000,
    );
    expect(activity.filter((entry) => entry.kind === "writeback_succeeded" && entry.orderId === orderId)).toHaveLength(1);
    await server.stop();
  });
});
