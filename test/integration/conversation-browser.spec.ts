import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { launchChromium } from "../support/browser.ts";
import { createConsoleUser, type ConsoleUser } from "../support/console.ts";
import { CONSOLE_SCREENSHOTS, ConsoleSession } from "../support/console-pages.ts";
import { orderInput } from "../support/fixtures.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";

/**
 * SPEC §11's "done when", in a real Chromium: a merchant creates test orders, the customer types "نعم" in the
 * /simulator page (the order is confirmed) and a question on another order (the console marks it "needs reply"),
 * the merchant answers from the console's order page and the answer appears on the simulated phone. English and
 * Arabic, desktop and phone widths, screenshots saved under test-artifacts/console.
 */
vi.setConfig({ testTimeout: 90_000 });

let server: TestServer;
let shop: TestMerchant;
let browser: Browser;
let admin: ConsoleUser;
let viewer: ConsoleUser;
let phone: Page;
const phoneErrors: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  server = await startTestServer();
  shop = await server.merchant("Coffee House");
  admin = await createConsoleUser(server, shop.id);
  viewer = await createConsoleUser(server, shop.id, { role: "viewer" });
  phone = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  phone.setDefaultTimeout(15_000);
  phone.on("pageerror", (error) => phoneErrors.push(String(error)));
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function place(overrides: Record<string, unknown> = {}) {
  const response = await shop.test.post("/api/v1/orders", orderInput(overrides));
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const simulated = (orderId: string) => phone.locator(`.message[data-order-id="${orderId}"]`);

async function say(orderId: string, text: string) {
  const message = simulated(orderId);
  await message.locator(".say-input").fill(text);
  await message.locator(".say-form button[type=submit]").click();
}

async function shoot(page: Page, name: string) {
  mkdirSync(CONSOLE_SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(CONSOLE_SCREENSHOTS, `${name}.png`), fullPage: true });
}

describe("the conversation in the simulator and the console", () => {
  it("نعم confirms; a question needs a reply; the console's answer reaches the phone", async () => {
    await phone.goto(`${server.baseUrl}/simulator`);
    await phone.fill("#api-key", shop.keys.test);
    await phone.click('#key-form button[type="submit"]');
    await phone.locator('#connection[data-state="live"]').waitFor();

    const yes = await place({ customerPhone: "966500000101", customerName: "Layla Hassan" });
    const question = await place({ customerPhone: "966500000102", customerName: "Omar" });
    await simulated(yes.id).waitFor();
    await simulated(question.id).waitFor();

    await say(yes.id, "نعم");
    await simulated(yes.id).locator('.badge[data-status="confirmed"]').waitFor();
    await simulated(yes.id).locator('.bubble.conversation.outgoing .text:text("نعم")').waitFor();
    expect((await shop.test.get(`/api/v1/orders/${yes.id}`)).body.status).toBe("confirmed");

    await say(question.id, "Can you deliver tomorrow morning?");
    // The automatic reply buttons arrive on the phone (once), with working buttons.
    const automatic = simulated(question.id).locator(".bubble.conversation.kind-buttons");
    await automatic.waitFor();
    expect(await automatic.locator(".text").textContent()).toBe(`Please tap a button to confirm or cancel order ${question.externalOrderId}.`);
    expect(await automatic.locator("button[data-action]").count()).toBe(2);
    await shoot(phone, "simulator-conversation");

    const session = await ConsoleSession.open(browser, server.baseUrl);
    await session.goto("/orders");
    await session.signIn(admin.email, admin.password);
    const count = session.page.getByTestId("needs-reply-count");
    await count.waitFor();
    expect(await count.getAttribute("data-count")).toBe("1");
    await count.click();
    await session.page.locator(`tr[data-order-id="${question.id}"]`).waitFor();
    // The filtered list replaces the full one: wait for the confirmed order's row to leave before counting.
    await session.page.locator(`tr[data-order-id="${yes.id}"]`).waitFor({ state: "detached" });
    expect(await session.page.locator("tbody tr").count()).toBe(1);
    expect(await session.page.locator('input[name="needsReply"]').isChecked()).toBe(true);

    await session.page.locator(`tr[data-order-id="${question.id}"] a`).click();
    const conversation = session.page.getByTestId("conversation");
    await conversation.waitFor();
    await conversation.locator('[data-kind="TEXT"][data-sender="CUSTOMER"]').waitFor();
    expect(await conversation.locator("li").evaluateAll((items: any[]) => items.map((item) => `${item.dataset.sender}:${item.dataset.kind}`))).toEqual([
      "SERVICE:CONFIRMATION",
      "CUSTOMER:TEXT",
      "SERVICE:BUTTONS",
    ]);
    expect(await session.page.getByTestId("window-state").getAttribute("data-open")).toBe("true");
    expect(await session.page.getByTestId("window-state").textContent()).toMatch(/Window open: 2[34] h \d+ min left/);
    await session.screenshot("conversation-open");

    await session.page.getByLabel("Reply to the customer on WhatsApp").fill("Yes, tomorrow between 9 and 12 ☕");
    await session.page.getByRole("button", { name: "Send" }).click();
    await conversation.locator('[data-sender="MERCHANT"]').waitFor();
    await simulated(question.id).locator('.bubble.conversation[data-sender="merchant"] .text:text("Yes, tomorrow between 9 and 12 ☕")').waitFor();
    // Answered: the header count goes away.
    await count.waitFor({ state: "detached" });

    // A new question arrives while the page is open: shown live.
    await say(question.id, "And can I pay by card?");
    await conversation.locator('.conversation-text:text("And can I pay by card?")').waitFor();
    await shoot(phone, "simulator-merchant-reply");

    // Arabic, right to left, and the phone width.
    for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
      const arabic = await ConsoleSession.open(browser, server.baseUrl, viewport);
      await arabic.context.addInitScript(() => (globalThis as any).localStorage.setItem("ocs.console.language", "ar"));
      await arabic.goto(`/orders/${question.id}`);
      await arabic.signIn(admin.email, admin.password);
      await arabic.page.getByTestId("conversation").waitFor();
      await arabic.page.locator('[data-testid="conversation"] [data-sender="MERCHANT"]').waitFor();
      expect(await arabic.page.locator("html").getAttribute("dir")).toBe("rtl");
      expect(await arabic.page.getByTestId("window-state").textContent()).toContain("النافذة مفتوحة");
      const overflow = await arabic.page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await arabic.screenshot("conversation-open");
      expect(arabic.errors).toEqual([]);
      await arabic.close();
    }
    expect(session.errors).toEqual([]);
    await session.close();
  });

  it("the reply box says why it is closed: no customer message yet, and for viewers", async () => {
    const silent = await place({ customerPhone: "966500000103" });
    const session = await ConsoleSession.open(browser, server.baseUrl, { width: 390, height: 844 });
    await session.goto(`/orders/${silent.id}`);
    await session.signIn(admin.email, admin.password);
    const state = session.page.getByTestId("window-state");
    await state.waitFor();
    expect(await state.getAttribute("data-open")).toBe("false");
    expect(await state.textContent()).toContain("You can reply once the customer writes");
    expect(await session.page.getByRole("button", { name: "Send" }).isDisabled()).toBe(true);
    await session.screenshot("conversation-closed");
    await session.close();

    const asked = await place({ customerPhone: "966500000104" });
    expect((await shop.test.post(`/api/v1/test/orders/${asked.id}/customer-message`, { text: "hello?" })).status).toBe(200);
    const readOnly = await ConsoleSession.open(browser, server.baseUrl);
    await readOnly.goto(`/orders/${asked.id}`);
    await readOnly.signIn(viewer.email, viewer.password);
    await readOnly.page.getByTestId("window-state").waitFor();
    expect(await readOnly.page.getByTestId("window-state").textContent()).toBe("Viewers cannot reply.");
    expect(await readOnly.page.getByRole("button", { name: "Send" }).isDisabled()).toBe(true);
    await readOnly.close();
    expect(phoneErrors).toEqual([]);
  });
});
