import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { launchChromium } from "../support/browser.ts";
import { ConsoleSession } from "../support/console-pages.ts";
import { FakeShopify, shopifyOrder } from "../support/fake-shopify.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { eventually } from "../support/webhooks.ts";

/**
 * The console's Stores page in Chromium against the fake Shopify: connect by shop name (the whole OAuth round
 * trip through the fake's authorize page), status, settings with userErrors, live activity, disconnect; English
 * and Arabic (RTL), desktop and phone. Screenshots land in test-artifacts/console/.
 */
vi.setConfig({ testTimeout: 90_000 });

const ADMIN = { email: "owner@stores-shop.example", password: "correct horse battery staple" };
const VIEWER = { email: "viewer@stores-shop.example", password: "viewer password 12345" };
const CLIENT_ID = "console-app";
const CLIENT_SECRET = "console-app-secret-0123456789";
const SHOP = "console-demo.myshopify.com";

let server: TestServer;
let merchant: TestMerchant;
let browser: Browser;
let fake: FakeShopify;

beforeAll(async () => {
  fake = await new FakeShopify({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }).start();
  server = await startTestServer({
    COOKIE_SECURE: "false",
    SHOPIFY_CLIENT_ID: CLIENT_ID,
    SHOPIFY_CLIENT_SECRET: CLIENT_SECRET,
    SHOPIFY_SHOP_ORIGIN: fake.shopOrigin,
  });
  merchant = await server.merchant("Stores Shop");
  await server.app.services.users.create(merchant.id, ADMIN.email, "admin", ADMIN.password);
  await server.app.services.users.create(merchant.id, VIEWER.email, "viewer", VIEWER.password);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await fake?.stop();
});

/**
 * Without PUBLIC_BASE_URL, Shopify is sent back to http://localhost:<port>: the browser uses that origin too, so its
 * session cookie goes with the callback (as with a real PUBLIC_BASE_URL).
 */
const consoleOrigin = () => server.baseUrl.replace("//127.0.0.1:", "//localhost:");

describe("the Stores page", () => {
  it("connects a Shopify shop, shows live activity, saves settings with userErrors, disconnects", async () => {
    const admin = await ConsoleSession.open(browser, consoleOrigin());
    const { page } = admin;
    await admin.goto("/stores");
    await admin.signIn(ADMIN.email, ADMIN.password);
    await admin.nav("Stores").click();
    await page.getByRole("heading", { name: "Stores", level: 1 }).waitFor();
    await page.getByText("No store connected yet.").waitFor();
    await admin.screenshot("stores-empty");

    // A bad name is refused in the page; a good one goes through Shopify and comes back connected.
    await page.getByLabel("Shop name").fill("not a shop!");
    await page.getByRole("button", { name: "Connect with Shopify" }).click();
    await page.getByText("Enter your store's name as in my-store.myshopify.com.").waitFor();
    await page.getByLabel("Shop name").fill("console-demo");
    await page.getByRole("button", { name: "Connect with Shopify" }).click();
    await page.getByText("Your store is connected.").waitFor().catch(async (error) => {
      throw new Error(`${error}; at ${page.url()}: ${(await page.content()).slice(0, 500)}`);
    });
    const card = page.locator(".store", { hasText: SHOP });
    await expect(card.getByTestId("store-status").textContent()).resolves.toBe("Connected");
    expect(fake.shop(SHOP).subscriptions.map((sub) => sub.topic).sort()).toEqual(["APP_UNINSTALLED", "ORDERS_CREATE"]);

    // Orders placed in the store appear in the activity by themselves.
    const order = shopifyOrder();
    await fake.sendOrder(`${server.baseUrl}/webhooks/shopify`, SHOP, order);
    const prepaid = shopifyOrder({ payment_gateway_names: ["shopify_payments"] });
    await fake.sendOrder(`${server.baseUrl}/webhooks/shopify`, SHOP, prepaid);
    await card.locator('[data-kind="order_created"]').waitFor({ timeout: 20_000 });
    await card.locator('[data-kind="order_skipped"]', { hasText: "not cash on delivery" }).waitFor({ timeout: 20_000 });

    // A tag with a comma is refused next to its field; a valid change is saved.
    await card.getByLabel("Tag when confirmed").fill("bad,tag");
    await card.getByRole("button", { name: "Save settings" }).click();
    await card.getByText("must be at most 40 characters, without commas").waitFor();
    await card.getByLabel("Tag when confirmed").fill("whatsapp-confirmed");
    await card.getByLabel("Cancel the store order when the customer cancels").check();
    await card.getByRole("button", { name: "Save settings" }).click();
    await card.getByText("Saved.").waitFor();
    const [stored] = await server.app.services.stores.list({ merchantId: merchant.id, mode: "test" });
    expect(stored.settings).toMatchObject({ tagConfirmed: "whatsapp-confirmed", cancelOnCustomerCancel: true });
    await admin.screenshot("stores");

    // The customer confirms: the write-back shows in the activity.
    const created = await eventually(() => server.app.services.database.prisma.order.findFirst({ where: { externalOrderId: `shopify:${order.id}` } }), (found) => found?.sendState === "accepted");
    await server.app.services.orderService.applyCustomerAction(created!.id, "approve");
    await card.locator('[data-kind="writeback_succeeded"]').waitFor({ timeout: 20_000 });
    expect(fake.order(SHOP, order.id).tags).toEqual(["whatsapp-confirmed"]);

    // Arabic, right to left, desktop and phone.
    await page.locator(".header button[lang=\"ar\"]").click();
    await page.locator('html[dir="rtl"]').waitFor();
    await page.getByRole("heading", { name: "المتاجر", level: 1 }).waitFor();
    await admin.screenshot("stores");
    await page.setViewportSize({ width: 390, height: 844 });
    await admin.screenshot("stores");
    const overflow = await page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") as number;
    expect(overflow).toBeLessThanOrEqual(1);
    await page.setViewportSize({ width: 1280, height: 900 });

    // Disconnect, after confirming.
    await card.getByRole("button", { name: "إلغاء الربط" }).click();
    await admin.confirmDialog().getByRole("button", { name: "إلغاء الربط" }).click();
    await expect.poll(() => card.getAttribute("data-status")).toBe("DISCONNECTED");
    expect(admin.errors).toEqual([]);
    await admin.close();
  });

  it("shows viewers the stores without the connect form or changes", async () => {
    const viewer = await ConsoleSession.open(browser, server.baseUrl, { width: 390, height: 844 });
    const { page } = viewer;
    await viewer.goto("/stores");
    await viewer.signIn(VIEWER.email, VIEWER.password);
    await page.getByRole("heading", { name: "Stores", level: 1 }).waitFor();
    await page.getByText("Your role may see the stores but not change them.").waitFor();
    expect(await page.getByRole("button", { name: "Connect with Shopify" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Save settings" }).count()).toBe(0);
    await viewer.screenshot("stores-viewer");
    await viewer.close();
  });
});
