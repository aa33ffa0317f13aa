import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiClient } from "../support/api.ts";
import { FakeWhatsApp } from "../support/fake-whatsapp.ts";
import { FakeTwilio } from "../support/fake-twilio.ts";
import { orderInput } from "../support/fixtures.ts";
import { TEST_APP_SECRET, sendCallback, statusCallback } from "../support/meta-callbacks.ts";
import { childEnvWithDatabase, freePort, killStrays, runCli, startServerProcess, type ServerProcess } from "../support/processes.ts";
import { eventually } from "../support/webhooks.ts";

/**
 * The SMS outbox across kill -9 (SPEC §12): the service runs as a child process; one Meta notification fails the
 * first message of every order with 131026, the fallback SMS are queued with the failure and sent through a
 * (slow) fake Twilio, and the process is killed while sends are under way. After a restart on the same data every
 * SMS is accounted for and none reaches a customer twice: a send cut off mid-request is recorded failed ("send
 * interrupted"; it may have arrived), never repeated; the others are sent exactly once.
 */
vi.setConfig({ testTimeout: 120_000 });

const READY = /Demo merchant:\s+([0-9a-f-]{36})[\s\S]*Test API key:\s+(ek_test_[0-9A-Za-z]+)/;
const BANNER = /Order Confirmation Service (is ready|on )/;
const ORDERS = 40;

let whatsapp: FakeWhatsApp;
let twilio: FakeTwilio;
let dataDir: string;
let env: NodeJS.ProcessEnv;
let api: ApiClient;
let drop: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  whatsapp = await FakeWhatsApp.start();
  twilio = await FakeTwilio.start();
  dataDir = path.join(mkdtempSync(path.join(tmpdir(), "ocs-sms-crash-")), "data");
  const port = await freePort();
  ({ env, drop } = await childEnvWithDatabase({
    DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: "warn",
    WHATSAPP_API_URL: whatsapp.apiUrl,
    WHATSAPP_PHONE_NUMBER_ID: "271828182845904",
    WHATSAPP_ACCESS_TOKEN: "EAAG-test-token",
    WHATSAPP_APP_SECRET: TEST_APP_SECRET,
    WHATSAPP_TIMEOUT_MS: "1000",
    RATE_LIMIT_MAX: "100000",
    ...twilio.env,
  }));
  api = new ApiClient(`http://127.0.0.1:${port}`);
});

afterAll(async () => {
  killStrays();
  await whatsapp?.close();
  await twilio?.close();
  await drop();
  rmSync(path.dirname(dataDir), { recursive: true, force: true });
});

describe("the SMS outbox across kill -9", () => {
  let server: ServerProcess;

  it("sends every fallback SMS after the restart, and none twice", async () => {
    server = startServerProcess(env);
    const [, merchantId] = await server.waitForFirstStart(READY);
    const created = await runCli(["keys", "create", "--merchant", merchantId, "--mode", "live", "--json"], env);
    expect(created.code).toBe(0);
    const shop = api.withKey(JSON.parse(created.stdout).apiKey);
    expect((await shop.put("/api/v1/confirmation-policy", { smsFallback: { errorCodes: [131026] } })).status).toBe(200);

    const phones = Array.from({ length: ORDERS }, (_, index) => `4477009004${String(index).padStart(2, "0")}`);
    const orders: { id: string; wamid: string }[] = [];
    for (const phone of phones) {
      const response = await shop.post("/api/v1/orders", orderInput({ customerPhone: phone }));
      expect(response.status).toBe(201);
      const sent = whatsapp.requestsTo(phone).at(-1)!;
      orders.push({ id: response.body.id, wamid: sent.response.messages[0].id });
    }
    // Each SMS takes 250 ms at Twilio: several are in flight when the process dies.
    twilio.delayMs = 250;
    const batch = statusCallback(orders[0].wamid, "failed", { orderId: orders[0].id });
    const template = batch.entry[0].changes[0].value.statuses[0];
    batch.entry[0].changes[0].value.statuses = orders.map((order) => ({ ...template, id: order.wamid, biz_opaque_callback_data: `order=${order.id}` }));
    expect((await sendCallback(api.baseUrl, batch)).status).toBe(200);

    await eventually(async () => twilio.requests.length, (count) => count >= 6, 30_000);
    const killed = await server.stop("SIGKILL");
    expect(killed.signal).toBe("SIGKILL");
    const beforeRestart = twilio.requests.length;
    expect(beforeRestart).toBeLessThan(ORDERS);

    server = startServerProcess(env);
    await server.waitFor(BANNER);
    const finished = await eventually(
      async () => Promise.all(orders.map(async ({ id }) => (await shop.get(`/api/v1/orders/${id}/timeline`)).body.data as { kind: string; detail: any }[])),
      (timelines) => timelines.every((steps) => steps.some((step) => step.kind === "sms_sent" || step.kind === "sms_failed")),
      90_000,
    );
    let sent = 0;
    let interrupted = 0;
    for (const [index, steps] of finished.entries()) {
      const received = twilio.requests.filter((request) => request.form.get("To") === `+${phones[index]}`);
      const outcome = steps.filter((step) => step.kind === "sms_sent" || step.kind === "sms_failed");
      expect(outcome, JSON.stringify(steps)).toHaveLength(1);
      if (outcome[0].kind === "sms_sent") {
        sent++;
        expect(received).toHaveLength(1);
      } else {
        interrupted++;
        expect(outcome[0].detail).toMatchObject({ reason: "send interrupted" });
        expect(received.length).toBeLessThanOrEqual(1);
      }
      // The order waits for its customer either way (an interrupted SMS may well have arrived).
      expect((await shop.get(`/api/v1/orders/${orders[index].id}`)).body.status).toBe("pending");
    }
    // Only sends under way at the kill (one instance's concurrency, 8) can be lost to the crash.
    expect(interrupted).toBeLessThanOrEqual(8);
    expect(sent + interrupted).toBe(ORDERS);
    expect(twilio.requests.length).toBeLessThanOrEqual(ORDERS);
    await server.stop("SIGTERM");
  });
});
