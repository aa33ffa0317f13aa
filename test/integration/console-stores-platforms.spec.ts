import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { launchChromium } from "../support/browser.ts";
import { ConsoleSession } from "../support/console-pages.ts";
import { FakeSalla } from "../support/fake-salla.ts";
import { FakeWooCommerce } from "../support/fake-woocommerce.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";

/**
 * The Stores page with WooCommerce and Salla, in Chromium against the fakes: connect a WooCommerce store with its
 * REST key (a refused key explained next to its field), get a Salla link code and see the store appear once the
 * merchant enters it on Salla, activity of both; English and Arabic (RTL), desktop and phone. Screenshots land in
 * test-artifacts/console/.
 */
vi.setConfig({ testTimeout: 90_000 });

const ADMIN = { email: "owner@platforms-shop.example", password: "correct horse battery staple" };

let server: TestServer;
let merchant: TestMerchant;
let browser: Browser;
let woo: FakeWooCommerce;
let salla: FakeSalla;

beforeAll(async () => {
  woo = await FakeWooCommerce.start();
  salla = await FakeSalla.start();
  server = await startTestServer({
    COOKIE_SECURE: "false",
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    SALLA_CLIENT_ID: salla.clientId,
    SALLA_CLIENT_SECRET: salla.clientSecret,
    SALLA_WEBHOOK_SECRET: salla.webhookSecret,
    SALLA_API_URL: salla.apiUrl,
    SALLA_AUTH_URL: salla.authUrl,
  });
  merchant = await server.merchant("Platforms Shop");
  await server.app.services.users.create(merchant.id, ADMIN.email, "admin", ADMIN.password);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await woo?.close();
  await salla?.close();
});

describe("the Stores page with WooCommerce and Salla", () => {
  it("connects a WooCommerce store and links a Salla store, in English and Arabic", async () => {
    const admin = await ConsoleSession.open(browser, server.baseUrl);
    const { page } = admin;
    await admin.goto("/stores");
    await admin.signIn(ADMIN.email, ADMIN.password);
    await page.getByRole("heading", { name: "Stores", level: 1 }).waitFor();
    const wooForm = page.getByTestId("connect-woocommerce");

    // A refused key is explained next to its field; nothing is connected.
    await wooForm.getByLabel("Store address").fill(woo.url);
    await wooForm.getByLabel("Consumer key").fill(woo.consumerKey);
    await wooForm.getByLabel("Consumer secret").fill("cs_0000000000000000wrong");
    await wooForm.getByRole("button", { name: "Connect WooCommerce" }).click();
    await wooForm.getByText("was refused by the store").waitFor();
    expect(woo.webhooks.size).toBe(0);

    await wooForm.getByLabel("Consumer secret").fill(woo.consumerSecret);
    await wooForm.getByRole("button", { name: "Connect WooCommerce" }).click();
    await wooForm.getByText("WooCommerce store connected.").waitFor();
    const wooCard = page.locator(".store", { hasText: new URL(woo.url).host });
    await expect(wooCard.getByTestId("store-status").textContent()).resolves.toBe("Connected");
    await wooCard.getByText("WooCommerce ·").waitFor();
    await wooCard.getByText("each result is written as an order note").waitFor();
    expect(await wooCard.getByLabel("Hold fulfillment until the customer confirms").count()).toBe(0);
    // The secret is not kept in the form.
    expect(await wooForm.getByLabel("Consumer secret").inputValue()).toBe("");

    // An order placed in the store shows in the activity by itself.
    await woo.deliverOrder(woo.order());
    await wooCard.locator('[data-kind="order_created"]').waitFor({ timeout: 20_000 });
    await wooCard.locator('[data-kind="webhook_created"]').waitFor();

    // Salla: a link code, entered by the merchant on Salla, links the store.
    const sallaCard = page.getByTestId("connect-salla");
    await sallaCard.getByRole("button", { name: "Get a link code" }).click();
    const code = (await sallaCard.getByTestId("salla-link-code").textContent())!;
    expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    const webhookUrl = `${server.baseUrl}/webhooks/salla`;
    await salla.deliver(webhookUrl, salla.event("app.store.authorize", 555001, salla.install(555001)));
    await salla.deliver(webhookUrl, salla.event("app.settings.updated", 555001, { settings: { link_code: code } }));
    const linked = page.locator(".store", { hasText: "555001" });
    await linked.getByText("Salla ·").waitFor({ timeout: 20_000 });
    await expect(linked.getByTestId("store-status").textContent()).resolves.toBe("Connected");
    await salla.deliver(webhookUrl, salla.event("order.created", 555001, salla.orderData({ payment_method: "bank" })));
    await linked.locator('[data-kind="order_skipped"]', { hasText: "not cash on delivery" }).waitFor({ timeout: 20_000 });
    await admin.screenshot("stores-platforms");

    // Arabic, right to left, desktop and phone.
    await page.locator('.header button[lang="ar"]').click();
    await page.locator('html[dir="rtl"]').waitFor();
    await page.getByRole("heading", { name: "ربط متجر WooCommerce" }).waitFor();
    await page.getByRole("heading", { name: "ربط متجر سلة" }).waitFor();
    await linked.getByText("سلة ·").waitFor();
    await admin.screenshot("stores-platforms");
    await page.setViewportSize({ width: 390, height: 844 });
    await admin.screenshot("stores-platforms");
    const overflow = await page.evaluate(() => {
      const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
      return root.scrollWidth - root.clientWidth;
    });
    expect(overflow).toBeLessThanOrEqual(1);
    expect(admin.errors).toEqual([]);
    await admin.close();
  });
});
