import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { launchChromium } from "../support/browser.ts";
import { signIn } from "../support/console.ts";
import { ConsoleSession } from "../support/console-pages.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";

/**
 * The console's Security page (SPEC §14): the audit log for admins, filtered by action and by actor, in English and
 * Arabic at desktop and phone widths (screenshots in test-artifacts/console/security-*.png); viewers do not get it.
 */
vi.setConfig({ testTimeout: 90_000 });

const ADMIN = { email: "owner@security-shop.example", password: "correct horse battery staple" };
const VIEWER = { email: "viewer@security-shop.example", password: "viewer password 12345" };

let server: TestServer;
let shop: TestMerchant;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer();
  shop = await server.merchant("Security Shop");
  await server.app.services.users.create(shop.id, ADMIN.email, "admin", ADMIN.password);
  await server.app.services.users.create(shop.id, VIEWER.email, "viewer", VIEWER.password);
  // Some history: failed sign-ins (wrong password), a rotated endpoint secret by the test key.
  for (let i = 0; i < 2; i++) expect((await signIn(server.baseUrl, VIEWER.email, "not the password")).status).toBe(401);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("the Security page", () => {
  it("lists the merchant's audit log and filters it by action and by actor", async () => {
    const admin = await ConsoleSession.open(browser, server.baseUrl);
    await admin.goto("/security");
    await admin.signIn(ADMIN.email, ADMIN.password);
    await admin.nav("Security").click();
    const table = admin.page.getByTestId("audit-table");
    await table.locator('tr[data-action="sign_in.succeeded"]').first().waitFor();
    const actions = () => table.locator("tbody tr").evaluateAll((rows: any[]) => rows.map((row) => row.getAttribute("data-action")));
    // Newest first: this sign-in, the two failures, the users and the merchant's keys (CLI).
    expect((await actions())[0]).toBe("sign_in.succeeded");
    expect(await actions()).toEqual(expect.arrayContaining(["sign_in.failed", "user.created", "api_key.created"]));
    await expect.poll(() => table.locator('tr[data-action="sign_in.failed"]').count()).toBe(2);

    await admin.page.getByTestId("audit-action").selectOption("sign_in.failed");
    await expect.poll(async () => [...new Set(await actions())]).toEqual(["sign_in.failed"]);
    expect(await table.locator("tbody tr").first().textContent()).toContain(VIEWER.email);

    await admin.page.getByTestId("audit-action").selectOption("");
    await admin.page.getByTestId("audit-actor").selectOption({ label: "Operator CLI" });
    await expect.poll(async () => [...new Set(await actions())].sort()).toEqual(["api_key.created", "user.created"]);
    expect(admin.errors).toEqual([]);
    await admin.close();
  });

  it("is not offered to a viewer, and refuses one who opens it", async () => {
    const viewer = await ConsoleSession.open(browser, server.baseUrl);
    await viewer.goto("/orders");
    await viewer.signIn(VIEWER.email, VIEWER.password);
    await viewer.page.getByTestId("signed-in-as").waitFor();
    expect(await viewer.nav("Security").count()).toBe(0);
    // Typed or bookmarked, the page is not shown: the role's own desk (the follow-up queue) opens instead, and the
    // server would refuse auditLog anyway (FORBIDDEN, tested over GraphQL).
    await viewer.goto("/security");
    await viewer.page.waitForURL(/\/follow-ups$/);
    expect(await viewer.page.getByTestId("audit-table").count()).toBe(0);
    await viewer.close();
  });

  it("reads in English and Arabic at desktop and phone widths (screenshots)", async () => {
    for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
      const session = await ConsoleSession.open(browser, server.baseUrl, viewport);
      for (const language of ["en", "ar"]) {
        await session.context.addInitScript((chosen) => (globalThis as any).localStorage.setItem("ocs.console.language", chosen), language);
        await session.goto("/security");
        await session.page.locator(`html[lang="${language}"]`).waitFor({ state: "attached" });
        // Either the sign-in form or the signed-in header, once the app has asked the server (not before).
        const signedIn = session.page.getByTestId("signed-in-as");
        await signedIn.or(session.page.getByLabel(/E-mail|البريد/)).first().waitFor();
        if (!(await signedIn.count())) await session.signIn(ADMIN.email, ADMIN.password);
        await session.page.getByTestId("audit-table").locator("tbody tr").first().waitFor();
        expect(await session.page.locator("html").getAttribute("dir")).toBe(language === "ar" ? "rtl" : "ltr");
        const overflow = await session.page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);
        expect(overflow, `security ${language} ${viewport.width}px`).toBeLessThanOrEqual(0);
        const { png } = await session.screenshot("security");
        expect(png.length).toBeGreaterThan(5_000);
      }
      expect(session.errors).toEqual([]);
      await session.close();
    }
  });

  it("/docs still renders under its new CSP (frame-ancestors 'none', scripts from itself and hashed inline code only), with no CSP errors", async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    await page.goto(`${server.baseUrl}/docs`);
    await page.locator(".swagger-ui .info .title").waitFor();
    expect(await page.locator(".swagger-ui .info .title").textContent()).toContain("Order Confirmation Service");
    await page.locator(".swagger-ui .opblock").first().waitFor();
    expect(errors).toEqual([]);
    await page.close();
  });
});
