import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { orderInput } from "../support/fixtures.ts";
import { launchChromium } from "../support/browser.ts";

/**
 * SPEC §12, the confirmation page in a real Chromium with JavaScript switched off (the page must not need it):
 * both languages, a 320 px phone, the keyboard, a double submit. Screenshots go to test-artifacts/confirmation-page.
 */

vi.setConfig({ testTimeout: 60_000 });
const SCREENSHOTS = join(process.cwd(), "test-artifacts", "confirmation-page");

let server: TestServer;
let shop: TestMerchant;
let browser: Browser;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  browser = await launchChromium();
  server = await startTestServer();
  shop = await server.merchant("متجر التمور · Dates Shop");
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function openPage(width: number, locale = "en-US"): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 720 }, javaScriptEnabled: false, locale });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on("console", (message) => {
    // A CSP violation is reported on the console: the page must not cause any.
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("requestfailed", (request) => problems.push(`failed ${request.url()}`));
  return page;
}

async function place(overrides: Record<string, unknown> = {}) {
  const created = await shop.test.post("/api/v1/orders", orderInput(overrides));
  expect(created.status, created.text).toBe(201);
  const link = await shop.test.get(`/api/v1/orders/${created.body.id}/confirmation-link`);
  // The browser reaches the server at the address it listens on.
  return { order: created.body, url: (link.body.url as string).replace("localhost", "127.0.0.1") };
}
const statusOf = async (id: string) => (await shop.test.get(`/api/v1/orders/${id}`)).body.status;
const eventTypes = async (id: string) => (await server.outbox(id)).map((event) => event.type);

/** Nothing sticks out sideways: the page is readable without horizontal scrolling. */
async function expectNoHorizontalScroll(page: Page) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => {
    const root = (globalThis as any).document.documentElement;
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth };
  });
  expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
}

describe("the confirmation page in Chromium", () => {
  it("English at 320 px: readable, styled, and Approve confirms the order", async () => {
    const { order, url } = await place({
      customerAddress: "Building 7, Apartment 12, Prince Mohammed bin Abdulaziz Road, Al Olaya District, Riyadh 12211",
      items: [
        { productName: "Premium Ajwa dates gift box with an extraordinarily long product name", variantName: "1 kg", quantity: 2, unitPrice: 50, totalPrice: 100 },
        { productName: "Arabic coffee", quantity: 1, unitPrice: 49.99, totalPrice: 49.99 },
      ],
    });
    const page = await openPage(320);
    await page.goto(url);
    expect(await page.locator("h1").textContent()).toBe("Confirm your order");
    expect(await page.locator("html").getAttribute("dir")).toBe("ltr");
    // The stylesheet applied (same origin, allowed by the CSP): the approve button is green and tall enough to tap.
    const button = page.locator("button.approve");
    const box = await button.boundingBox();
    expect(box!.height).toBeGreaterThanOrEqual(44);
    expect(box!.width).toBeLessThanOrEqual(320);
    expect(await button.evaluate((element) => (globalThis as any).getComputedStyle(element).backgroundColor)).toBe("rgb(19, 115, 51)");
    await expectNoHorizontalScroll(page);
    await page.screenshot({ path: join(SCREENSHOTS, "en-phone-pending.png"), fullPage: true });

    await button.click();
    await page.waitForURL(/\?lang=en$/);
    expect(await page.locator(".status").textContent()).toBe("Thank you, your order is confirmed.");
    // No longer asks to confirm: the heading names the order, the status says what happened.
    expect(await page.locator("h1").textContent()).toBe("Your order");
    expect(await page.locator("button").count()).toBe(0);
    await page.screenshot({ path: join(SCREENSHOTS, "en-phone-confirmed.png"), fullPage: true });
    expect(await statusOf(order.id)).toBe("confirmed");
    expect(problems).toEqual([]);
  });

  it("Arabic from the browser's language, right to left at 320 px; the switch goes to English and back", async () => {
    const { order, url } = await place();
    const page = await openPage(320, "ar-EG");
    await page.goto(url);
    expect(await page.locator("html").getAttribute("dir")).toBe("rtl");
    expect(await page.locator("h1").textContent()).toBe("تأكيد طلبك");
    await expectNoHorizontalScroll(page);
    // Right to left: the approve button's text starts at the right.
    expect(await page.locator("button.approve").evaluate((element) => (globalThis as any).getComputedStyle(element).direction)).toBe("rtl");
    await page.screenshot({ path: join(SCREENSHOTS, "ar-phone-pending.png"), fullPage: true });

    await page.click('nav.language a[hreflang="en"]');
    expect(await page.locator("html").getAttribute("dir")).toBe("ltr");
    expect(page.url()).toMatch(/\?lang=en$/);
    await page.click('nav.language a[hreflang="ar"]');
    expect(await page.locator("html").getAttribute("dir")).toBe("rtl");
    await page.click("button.cancel");
    await page.waitForURL(/\?lang=ar$/);
    expect(await page.locator(".status").textContent()).toBe("تم إلغاء هذا الطلب.");
    await page.screenshot({ path: join(SCREENSHOTS, "ar-phone-canceled.png"), fullPage: true });
    expect(await statusOf(order.id)).toBe("canceled");
  });

  it("works from the keyboard alone (desktop width)", async () => {
    const { order, url } = await place();
    const page = await openPage(1280);
    await page.goto(url);
    await page.screenshot({ path: join(SCREENSHOTS, "en-desktop-pending.png"), fullPage: true });
    // Tab through the language link to the buttons; Enter on Approve.
    const focused: string[] = [];
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press("Tab");
      focused.push(await page.evaluate(() => (globalThis as any).document.activeElement?.className ?? ""));
      if (focused.at(-1) === "approve") break;
    }
    expect(focused.at(-1)).toBe("approve");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\?lang=en$/);
    expect(await statusOf(order.id)).toBe("confirmed");
    expect(await page.locator(".status").textContent()).toContain("confirmed");
  });

  it("a double submit (two quick clicks) gives one answer and one event", async () => {
    const { order, url } = await place();
    const page = await openPage(390);
    await page.goto(url);
    await page.locator("button.approve").dblclick();
    await page.waitForURL(/\?lang=en$/);
    await page.locator(".status").waitFor();
    expect(await statusOf(order.id)).toBe("confirmed");
    expect(await eventTypes(order.id)).toEqual(["order.created", "order.confirmed"]);
    const answers = (await shop.test.get(`/api/v1/orders/${order.id}/timeline`)).body.data.filter((entry: any) => entry.kind === "approved");
    expect(answers).toHaveLength(1);
  });

  it("an unknown link shows the 404 page in Arabic, right to left", async () => {
    const page = await openPage(320, "ar");
    const response = await page.goto(`${server.baseUrl}/c/${"A".repeat(43)}`);
    expect(response!.status()).toBe(404);
    expect(await page.locator("html").getAttribute("dir")).toBe("rtl");
    expect(await page.locator("h1").textContent()).toBe("الصفحة غير موجودة");
    await page.screenshot({ path: join(SCREENSHOTS, "ar-phone-404.png"), fullPage: true });
  });
});
