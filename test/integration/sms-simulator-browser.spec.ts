import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { orderInput } from "../support/fixtures.ts";
import { launchChromium } from "../support/browser.ts";

/**
 * The walk-through in Chromium: a merchant turns SMS fallback on, creates a test order, marks its WhatsApp
 * message failed (131026) on the /simulator page, sees the SMS with its link on the simulated phone, opens the
 * link, approves on the page, and the order is confirmed with the usual events.
 */
vi.setConfig({ testTimeout: 60_000 });
const SCREENSHOTS = join(process.cwd(), "test-artifacts", "confirmation-page");

let server: TestServer;
let shop: TestMerchant;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  browser = await launchChromium();
  server = await startTestServer();
  shop = await server.merchant("Dates Shop");
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("SMS fallback on the simulated phone", () => {
  it("failed with 131026 → SMS with a working link → Approve on the page → confirmed", async () => {
    expect((await shop.test.put("/api/v1/confirmation-policy", { smsFallback: { errorCodes: [131026] } })).status).toBe(200);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${server.baseUrl}/simulator`);
    await page.fill("#api-key", shop.keys.test);
    await page.click('#key-form button[type="submit"]');
    await page.locator('#connection[data-state="live"]').waitFor();

    const created = await shop.test.post("/api/v1/orders", orderInput({ customerPhone: "966500000777" }));
    expect(created.status).toBe(201);
    const message = page.locator(`.message[data-order-id="${created.body.id}"]`);
    await message.waitFor();
    await message.locator('[data-delivery="failed"]').click();
    const link = message.locator(".bubble.sms a");
    await link.waitFor();
    const href = await link.getAttribute("href");
    const expected = (await shop.test.get(`/api/v1/orders/${created.body.id}/confirmation-link`)).body.url;
    expect(href).toBe(expected);
    expect((await shop.test.get(`/api/v1/orders/${created.body.id}`)).body.status).toBe("pending");
    await page.screenshot({ path: join(SCREENSHOTS, "simulator-sms.png"), fullPage: true });

    const customer = await context.newPage();
    await customer.goto(href!.replace("localhost", "127.0.0.1"));
    await customer.click("button.approve");
    await customer.locator(".status-confirmed").waitFor();
    expect((await shop.test.get(`/api/v1/orders/${created.body.id}`)).body).toMatchObject({ status: "confirmed", customerAction: "approved" });
    expect((await server.outbox(created.body.id)).map((event) => event.type)).toEqual(["order.created", "order.confirmed"]);
    // The simulator shows the answer live.
    await page.locator(`.message[data-order-id="${created.body.id}"][data-status="confirmed"]`).waitFor();
    await context.close();
  });
});
