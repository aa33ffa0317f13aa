import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { orderInput } from "../support/fixtures.ts";
import { launchChromium } from "../support/browser.ts";
import { ConsoleSession } from "../support/console-pages.ts";
import { eventually } from "../support/webhooks.ts";

/** SPEC §12 in the console (built by npm run build:console): the settings' SMS fallback and an order's SMS steps. */
vi.setConfig({ testTimeout: 60_000 });

const ADMIN = { email: "owner@sms-shop.example", password: "correct horse battery staple" };
const VIEWER = { email: "viewer@sms-shop.example", password: "viewer password 12345" };

let server: TestServer;
let shop: TestMerchant;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer();
  shop = await server.merchant("SMS Shop");
  await server.app.services.users.create(shop.id, ADMIN.email, "admin", ADMIN.password);
  await server.app.services.users.create(shop.id, VIEWER.email, "viewer", VIEWER.password);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("SMS fallback in the console", () => {
  it("the settings switch stores the codes; the order detail shows the page link and the SMS steps", async () => {
    const admin = await ConsoleSession.open(browser, server.baseUrl);
    await admin.goto("/settings");
    await admin.signIn(ADMIN.email, ADMIN.password);
    await admin.page.getByTestId("policy-form").waitFor();
    await admin.page.getByLabel(/Send an SMS with the confirmation page/).check();
    await admin.page.getByLabel("WhatsApp error codes").fill("131026, 131049");
    await admin.page.getByRole("button", { name: "Save" }).click();
    await admin.page.getByText("Saved.").waitFor();
    expect((await shop.test.get("/api/v1/confirmation-policy")).body.smsFallback).toEqual({ errorCodes: [131026, 131049] });
    await admin.page.getByLabel("WhatsApp error codes").fill("131026, abc");
    await admin.page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => admin.page.locator('.field-error[data-field="smsFallback.errorCodes"]').textContent()).not.toBe("");
    await admin.screenshot("settings-sms");

    const created = await shop.test.post("/api/v1/orders", orderInput());
    await shop.test.post(`/api/v1/test/orders/${created.body.id}/delivery`, { status: "failed", errorCode: 131026 });
    await eventually(async () => (await shop.test.get(`/api/v1/orders/${created.body.id}/timeline`)).body.data.length, (n) => n >= 4);
    await shop.test.post(`/api/v1/test/orders/${created.body.id}/sms-delivery`, { status: "undelivered", errorCode: 30003 });
    await admin.goto(`/orders/${created.body.id}`);
    await admin.orderDetail().waitFor();
    await expect.poll(() => admin.timelineKinds()).toEqual(["created", "message_sent", "message_failed", "sms_sent", "sms_failed"]);
    expect(await admin.page.locator('[data-testid="timeline"] li[data-kind="sms_sent"] .timeline-kind').textContent()).toBe("SMS sent");
    // Twilio's report is the SMS provider's, not WhatsApp's.
    const failedStep = await admin.page.locator('[data-testid="timeline"] li[data-kind="sms_failed"]').textContent();
    expect(failedStep).toContain("· SMS ·");
    expect(failedStep).not.toContain("WhatsApp");
    expect(await admin.page.getByTestId("sms-error").textContent()).toContain("30003 Unreachable destination handset");
    const link = (await shop.test.get(`/api/v1/orders/${created.body.id}/confirmation-link`)).body.url;
    expect(await admin.page.getByTestId("confirmation-url").getAttribute("href")).toBe(link);
    await admin.screenshot("order-sms");
    await admin.page.context().close();
  });

  it("a viewer sees no confirmation page link", async () => {
    const created = await shop.test.post("/api/v1/orders", orderInput());
    const viewer = await ConsoleSession.open(browser, server.baseUrl);
    await viewer.goto(`/orders/${created.body.id}`);
    await viewer.signIn(VIEWER.email, VIEWER.password);
    await viewer.orderDetail().waitFor();
    expect(await viewer.page.getByTestId("confirmation-url").count()).toBe(0);
    await viewer.page.context().close();
  });
});
