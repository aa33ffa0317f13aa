import { writeFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { orderInput } from "../support/fixtures.ts";
import { launchChromium } from "../support/browser.ts";

/**
 * SPEC §5.4, the /simulator page in a real headless Chromium driven by playwright-core, launched like every
 * browser test (test/support/browser.ts; npm test installs one first when there is none); without one this file
 * fails, it is never skipped.
 */

vi.setConfig({ testTimeout: 60_000 });
// The page.evaluate callbacks run in the browser; this project's types have no DOM lib, hence `globalThis as any`.

let server: TestServer;
let shop: TestMerchant;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  server = await startTestServer({ CONFIRMATION_MIN_DELAY: "1s" });
  shop = await server.merchant("Browser Shop");
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(10_000);
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  page.on("console", (message) => {
    if (message.type() === "error") pageErrors.push(message.text());
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const message = (orderId: string) => page.locator(`.message[data-order-id="${orderId}"]`);

async function place(overrides: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const response = await shop.test.post("/api/v1/orders", orderInput(overrides), { headers });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

describe("the /simulator page", () => {
  it("is a public HTML page with no inline script allowed", async () => {
    const response = await fetch(`${server.baseUrl}/simulator`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(await response.text()).toContain('<script src="/simulator/simulator.js"');
    for (const asset of ["/simulator/simulator.js", "/simulator/simulator.css"]) {
      expect((await fetch(`${server.baseUrl}${asset}`)).status).toBe(200);
    }
  });

  it("shows a message live when an order is created, and Approve confirms the order", async () => {
    await page.goto(`${server.baseUrl}/simulator`);
    expect(await page.locator("h1").textContent()).toBe("WhatsApp simulator");
    await page.fill("#api-key", shop.keys.test);
    await page.click('#key-form button[type="submit"]');
    await page.locator('#connection[data-state="live"]').waitFor();
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem("ocs.simulator.key"))).toBe(shop.keys.test);
    await page.locator("#empty").waitFor();

    // Created through the API while the page is open: it appears without a reload.
    const created = await place({ customerPhone: "966500000001", customerName: "Layla Hassan" });
    const bubble = message(created.id);
    await bubble.waitFor();
    expect(await page.locator('.phone[data-phone="966500000001"] .phone-number').textContent()).toBe("+966500000001");
    expect(await bubble.locator(".text").textContent()).toContain(created.externalOrderId);
    expect(await bubble.locator(".bubble.incoming").getAttribute("dir")).toBe("ltr");
    expect(await bubble.locator(".badge").textContent()).toBe("pending");

    await bubble.locator('button[data-action="approve"]').click();
    await bubble.locator('.badge[data-status="confirmed"]').waitFor();
    expect(await bubble.locator('button[data-action="approve"]').isDisabled()).toBe(true);
    expect(await bubble.locator(".answer .answer-text").textContent()).toBe("Approve");
    const stored = await shop.test.get(`/api/v1/orders/${created.id}`);
    expect(stored.body).toMatchObject({ status: "confirmed", customerAction: "approved", deliveryStatus: "read" });
    // A late "failed" report changes nothing once the customer has answered (failed wins only while pending).
    await bubble.locator('button[data-delivery="failed"]').click();
    await expect.poll(() => bubble.locator(".order-detail").textContent()).toBe("customer: approved · delivery: read");
    expect(await bubble.locator(".badge").textContent()).toBe("confirmed");
  });

  it("reports delivery statuses, and follows changes made elsewhere (a merchant cancel)", async () => {
    const created = await place({ customerPhone: "966500000002" });
    const bubble = message(created.id);
    await bubble.waitFor();
    await bubble.locator('button[data-delivery="sent"]').click();
    await bubble.locator('.ticks[data-delivery="sent"]').waitFor();
    await bubble.locator('button[data-delivery="delivered"]').click();
    await bubble.locator('.ticks[data-delivery="delivered"]').waitFor();
    expect((await shop.test.get(`/api/v1/orders/${created.id}`)).body.deliveryStatus).toBe("delivered");

    expect((await shop.test.delete(`/api/v1/orders/${created.id}`)).status).toBe(200);
    await bubble.locator('.badge[data-status="canceled"]').waitFor();
    expect(await bubble.locator('button[data-action="cancel"]').isDisabled()).toBe(true);
  });

  it("renders an Arabic message right to left with Arabic buttons", async () => {
    const created = await place({ customerPhone: "966500000003", customerName: "ليلى حسن" }, { "accept-language": "ar" });
    const bubble = message(created.id);
    await bubble.waitFor();
    const incoming = bubble.locator(".bubble.incoming");
    expect(await incoming.getAttribute("dir")).toBe("rtl");
    expect(await incoming.getAttribute("lang")).toBe("ar");
    expect(await incoming.evaluate((element) => (globalThis as any).getComputedStyle(element).direction)).toBe("rtl");
    expect(await bubble.locator(".text").textContent()).toMatch(/[\u0600-\u06FF]/);
    expect(await bubble.locator('button[data-action="approve"]').textContent()).toMatch(/[\u0600-\u06FF]/);
    // The operator's controls stay left to right.
    expect(await bubble.locator(".order-panel").evaluate((element) => (globalThis as any).getComputedStyle(element).direction)).toBe("ltr");

    await bubble.locator('button[data-action="cancel"]').click();
    await bubble.locator('.badge[data-status="canceled"]').waitFor();
    expect((await shop.test.get(`/api/v1/orders/${created.id}`)).body).toMatchObject({ status: "canceled", customerAction: "canceled" });
  });

  it("keeps its state across a reload (key in sessionStorage) and takes a meaningful screenshot", async () => {
    await page.reload();
    await page.locator('#connection[data-state="live"]').waitFor();
    expect(await page.locator(".phone").count()).toBe(3);
    expect(await page.locator(".message").count()).toBe(3);
    expect(await page.locator('.badge[data-status="confirmed"]').count()).toBe(1);
    expect(await page.locator('.badge[data-status="canceled"]').count()).toBe(2);
    // The newest phone comes first.
    expect(await page.locator(".phone").first().getAttribute("data-phone")).toBe("966500000003");

    const png = await page.screenshot({ fullPage: true });
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.length).toBeGreaterThan(10_000);
    // SIMULATOR_SCREENSHOT=/tmp/simulator.png keeps it for a look.
    if (process.env.SIMULATOR_SCREENSHOT) writeFileSync(process.env.SIMULATOR_SCREENSHOT, png);
    expect(pageErrors).toEqual([]);
  });

  it("shows a reminder live in the chat, and Approve on the reminder confirms the order", async () => {
    expect((await shop.test.put("/api/v1/confirmation-policy", { reminders: ["1s"] })).status).toBe(200);
    const created = await place({ customerPhone: "966500000004" });
    await message(created.id).first().waitFor();
    const reminder = page.locator(`.bubble.reminder[data-order-id="${created.id}"]`);
    await reminder.waitFor({ timeout: 10_000 });
    expect(await reminder.locator(".reminder-label").textContent()).toBe("Reminder");
    expect(await reminder.locator(".text").textContent()).toContain(created.externalOrderId);
    await reminder.locator('button[data-action="approve"]').click();
    const first = page.locator(`.message[data-order-id="${created.id}"]`);
    await first.locator('.badge[data-status="confirmed"]').waitFor();
    expect(await reminder.locator('button[data-action="approve"]').isDisabled()).toBe(true);
    expect(await first.locator(".bubble.incoming:not(.reminder) button[data-action=\"cancel\"]").isDisabled()).toBe(true);
    expect((await shop.test.get(`/api/v1/orders/${created.id}`)).body).toMatchObject({ status: "confirmed", customerAction: "approved" });
    // A reload shows the first message, its reminder, then the customer's answer, in that order.
    await page.reload();
    await page.locator('#connection[data-state="live"]').waitFor();
    expect(await first.locator(".bubble").evaluateAll((nodes) => nodes.map((node: any) => node.className))).toEqual([
      "bubble incoming",
      "bubble incoming reminder",
      "bubble outgoing answer",
    ]);
    if (process.env.SIMULATOR_SCREENSHOT) writeFileSync(process.env.SIMULATOR_SCREENSHOT.replace(/\.png$/, "-reminder.png"), await page.screenshot({ fullPage: true }));
    expect(pageErrors).toEqual([]);
    expect((await shop.test.put("/api/v1/confirmation-policy", {})).status).toBe(200);
  });

  it("refuses a live key and says a test-mode key is needed, showing nothing", async () => {
    const other = await browser.newPage();
    await other.goto(`${server.baseUrl}/simulator`);
    await other.fill("#api-key", shop.keys.live);
    await other.click('#key-form button[type="submit"]');
    await other.locator('#connection[data-state="error"]').waitFor();
    expect(await other.locator("#notice").textContent()).toContain("test-mode key");
    expect(await other.locator(".message").count()).toBe(0);
    expect(await other.evaluate(() => (globalThis as any).sessionStorage.getItem("ocs.simulator.key"))).toBeNull();
    await other.close();
  });
});
