import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiClient } from "../support/api.ts";
import { FakeWhatsApp, reply } from "../support/fake-whatsapp.ts";
import { orderInput } from "../support/fixtures.ts";
import { TEST_APP_SECRET } from "../support/meta-callbacks.ts";
import { childEnvWithDatabase, freePort, killStrays, runCli, startServerProcess, type ServerProcess } from "../support/processes.ts";
import { eventually } from "../support/webhooks.ts";

/**
 * Durable scheduling (SPEC §9) across kill -9: the service runs as a child process, is killed while a batch of
 * due reminders is being sent, and restarted on the same data. Every reminder is then sent, none reaches a
 * customer twice: a reminder whose send was cut off mid-request is recorded as failed (it may have arrived),
 * never sent again; the others are sent once after the restart.
 */
vi.setConfig({ testTimeout: 120_000 });

const READY = /Demo merchant:\s+([0-9a-f-]{36})[\s\S]*Test API key:\s+(ek_test_[0-9A-Za-z]+)/;
const BANNER = /Order Confirmation Service (is ready|on )/;
const ORDERS = 60;

let fake: FakeWhatsApp;
let dataDir: string;
let env: NodeJS.ProcessEnv;
let api: ApiClient;
let drop: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  fake = await FakeWhatsApp.start();
  dataDir = path.join(mkdtempSync(path.join(tmpdir(), "ocs-reminder-crash-")), "data");
  const port = await freePort();
  ({ env, drop } = await childEnvWithDatabase({
    DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: "warn",
    CONFIRMATION_MIN_DELAY: "1s",
    WHATSAPP_MAX_SENDS_PER_SECOND: "25",
    WHATSAPP_API_URL: fake.apiUrl,
    WHATSAPP_PHONE_NUMBER_ID: "271828182845904",
    WHATSAPP_ACCESS_TOKEN: "EAAG-test-token",
    WHATSAPP_APP_SECRET: TEST_APP_SECRET,
    WHATSAPP_TIMEOUT_MS: "1000",
    // The test polls every order's timeline until all are settled.
    RATE_LIMIT_MAX: "100000",
  }));
  api = new ApiClient(`http://127.0.0.1:${port}`);
});

afterAll(async () => {
  killStrays();
  await fake?.close();
  await drop();
  rmSync(path.dirname(dataDir), { recursive: true, force: true });
});

describe("reminders across kill -9", () => {
  let server: ServerProcess;

  it("sends every due reminder after the restart, and none twice", async () => {
    server = startServerProcess(env);
    const [, merchantId] = await server.waitForFirstStart(READY);
    const created = await runCli(["keys", "create", "--merchant", merchantId, "--mode", "live", "--json"], env);
    expect(created.code).toBe(0);
    const shop = api.withKey(JSON.parse(created.stdout).apiKey);
    expect((await shop.put("/api/v1/confirmation-policy", { reminders: ["1s"] })).status).toBe(200);

    const phones = Array.from({ length: ORDERS }, (_, index) => `4477009003${String(index).padStart(2, "0")}`);
    // Reminders take 150 ms at the provider: several are in flight when the process dies.
    for (const phone of phones) fake.forRecipient(`+${phone}`, reply.success(), reply.delay(150));
    const orders: string[] = [];
    for (const phone of phones) {
      const response = await shop.post("/api/v1/orders", orderInput({ customerPhone: phone }));
      expect(response.status).toBe(201);
      orders.push(response.body.id);
    }
    const reminders = () => fake.requests.filter((request) => request.body?.template?.name === "order_confirmation_reminder");
    await eventually(async () => reminders().length, (count) => count >= 10, 20_000);
    const killed = await server.stop("SIGKILL");
    expect(killed.signal).toBe("SIGKILL");
    const beforeRestart = reminders().length;
    expect(beforeRestart).toBeLessThan(ORDERS);

    server = startServerProcess(env);
    await server.waitFor(BANNER);
    // Claims and interrupted sends of the dead process are recovered once their leases run out.
    const finished = await eventually(
      async () => Promise.all(orders.map(async (id) => (await shop.get(`/api/v1/orders/${id}/timeline`)).body.data as { kind: string; detail: any }[])),
      (timelines) => timelines.every((steps) => steps.some((step) => step.kind === "reminder_sent" || step.kind === "reminder_failed")),
      60_000,
    );
    let sent = 0;
    let interrupted = 0;
    for (const [index, steps] of finished.entries()) {
      const received = fake.requestsTo(`+${phones[index]}`).filter((request) => request.body.template.name === "order_confirmation_reminder");
      const outcome = steps.filter((step) => step.kind === "reminder_sent" || step.kind === "reminder_failed");
      expect(outcome).toHaveLength(1);
      if (outcome[0].kind === "reminder_sent") {
        sent++;
        expect(received).toHaveLength(1);
      } else {
        interrupted++;
        expect(outcome[0].detail).toMatchObject({ reason: "send interrupted" });
        expect(received.length).toBeLessThanOrEqual(1);
      }
    }
    // Only sends under way at the kill (at most one instance's concurrency) can be lost to the crash.
    expect(interrupted).toBeLessThanOrEqual(16);
    expect(sent + interrupted).toBe(ORDERS);
    expect(sent).toBeGreaterThan(beforeRestart - interrupted);
    await server.stop("SIGTERM");
  });
});
