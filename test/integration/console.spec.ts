import type { Duplex } from "node:stream";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { orderInput } from "../support/fixtures.ts";
import { launchChromium } from "../support/browser.ts";
import { ConsoleSession } from "../support/console-pages.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

/**
 * The merchant console (/console) in a real headless Chromium against the real server and database: sign-in,
 * the live orders table, the order detail's live timeline, keys, webhooks, the policy form, Arabic, viewers.
 * Screenshots of every page (en/ar, desktop/phone) land in test-artifacts/console/.
 */
vi.setConfig({ testTimeout: 60_000 });

const ADMIN = { email: "owner@console-shop.example", password: "correct horse battery staple" };
const VIEWER = { email: "viewer@console-shop.example", password: "viewer password 12345" };

let server: TestServer;
let shop: TestMerchant;
let browser: Browser;
let admin: ConsoleSession;
let receiver: WebhookReceiver;

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: "true", WEBHOOK_RETRY_SCHEDULE: "300ms", CONFIRMATION_MIN_DELAY: "1s" });
  shop = await server.merchant("Console Shop");
  await server.app.services.users.create(shop.id, ADMIN.email, "admin", ADMIN.password);
  await server.app.services.users.create(shop.id, VIEWER.email, "viewer", VIEWER.password);
  receiver = await startWebhookReceiver();
  browser = await launchChromium();
  admin = await ConsoleSession.open(browser, server.baseUrl);
});

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await server?.close();
});

async function place(overrides: Record<string, unknown> = {}) {
  const response = await shop.test.post("/api/v1/orders", orderInput(overrides));
  expect(response.status, response.text).toBe(201);
  return response.body as { id: string; externalOrderId: string };
}

describe("the console is served by the service", () => {
  it("answers index.html for /console and its client routes, with a strict CSP and no caching", async () => {
    for (const path of ["/console", "/console/orders", "/console/orders/some-id?x=1"]) {
      const response = await fetch(`${server.baseUrl}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      expect(response.headers.get("cache-control")).toBe("no-cache");
      const csp = response.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toMatch(/connect-src 'self' ws:\/\/127\.0\.0\.1:\d+ wss:/);
      const html = await response.text();
      expect(html).not.toMatch(/<script>(?!<)/); // no inline script
      expect(html).toMatch(/<script type="module" crossorigin src="\/console\/assets\/index-[\w-]+\.js"><\/script>/);
    }
  });

  it("serves hashed assets as immutable, and 404 for an unknown asset", async () => {
    const html = await (await fetch(`${server.baseUrl}/console`)).text();
    const script = html.match(/src="(\/console\/assets\/[^"]+\.js)"/)![1];
    const response = await fetch(`${server.baseUrl}${script}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await fetch(`${server.baseUrl}/console/assets/nope-123.js`)).status).toBe(404);
  });

  it("keeps the chart library out of the entry bundle: the analytics page and recharts are one lazily loaded chunk", async () => {
    const html = await (await fetch(`${server.baseUrl}/console`)).text();
    const entry = await (await fetch(`${server.baseUrl}${html.match(/src="(\/console\/assets\/[^"]+\.js)"/)![1]}`)).text();
    expect(entry).not.toContain("recharts-");
    const chunk = entry.match(/AnalyticsPage-[\w-]+\.js/)![0];
    const analytics = await fetch(`${server.baseUrl}/console/assets/${chunk}`);
    expect(analytics.status).toBe(200);
    expect(await analytics.text()).toContain("recharts-");
  });
});

describe("the merchant console in Chromium", () => {
  it("refuses a wrong password with the service's message, then signs in and lands on the orders", async () => {
    const { page } = admin;
    await admin.goto("/orders");
    await page.waitForURL(/\/console\/sign-in\?next=%2Forders/);
    await admin.screenshot("sign-in");
    await admin.signIn(ADMIN.email, "not the password at all");
    await expect.poll(() => admin.signInError().textContent()).toMatch(/e-mail or password/i);
    expect(page.url()).toContain("/sign-in");

    await admin.signIn(ADMIN.email, ADMIN.password);
    await page.waitForURL(/\/console\/orders$/);
    await page.getByRole("heading", { name: "Orders" }).waitFor();
    expect(await page.getByTestId("signed-in-as").textContent()).toContain(ADMIN.email);
    await page.getByTestId("orders-empty").waitFor();
    await page.locator('[data-testid="live-state"][data-state="live"]').waitFor();
    // "Live" is the socket's acknowledgement; the subscription itself is registered once the server has checked the
    // session: the next test's order must not come before it.
    await expect.poll(() => server.app.services.liveEvents.size).toBeGreaterThan(0);
    // The cookie is the session's, HttpOnly: page scripts cannot read it.
    expect(await page.evaluate(() => (globalThis as any).document.cookie)).toBe("");
  });

  it("shows an order created over REST live, and the simulator's Approve changes its row without a reload", async () => {
    const { page } = admin;
    const created = await place({ customerName: "Layla Hassan", totalCost: 110, currency: "SAR" });
    const row = admin.rowFor(created.externalOrderId);
    await row.waitFor();
    expect(await row.getAttribute("data-status")).toBe("PENDING");
    expect(await row.textContent()).toContain("Layla Hassan");

    const tap = await shop.test.post(`/api/v1/test/orders/${created.id}/customer-action`, { action: "approve" });
    expect(tap.status, tap.text).toBe(200);
    await page.locator(`tr[data-external-id="${created.externalOrderId}"][data-status="CONFIRMED"]`).waitFor();
    expect(await row.getAttribute("class")).toContain("flash");
    expect(await page.locator("tbody tr").count()).toBe(1);
    expect(admin.errors).toEqual([]);
  });

  it("reads the table again when the live socket comes back, so an order created while it was down shows", async () => {
    const upgraded: Duplex[] = [];
    const onUpgrade = (_request: unknown, socket: Duplex) => upgraded.push(socket);
    // A merchant of its own, so the other tests' tables stay as they expect.
    const own = await server.merchant("Reconnect Shop");
    const user = { email: "reconnect@example.com", password: ADMIN.password };
    await server.app.services.users.create(own.id, user.email, "admin", user.password);
    server.app.http.server.on("upgrade", onUpgrade);
    const session = await ConsoleSession.open(browser, server.baseUrl);
    try {
      await session.goto("/sign-in");
      await session.signIn(user.email, user.password);
      const liveState = (state: string) => session.page.locator(`[data-testid="live-state"][data-state="${state}"]`);
      await liveState("live").waitFor();
      expect(upgraded.length).toBeGreaterThan(0);
      // The network drops the socket (no close frame): the console shows it is reconnecting.
      for (const socket of upgraded) socket.destroy();
      await liveState("reconnecting").waitFor();
      const created = await own.test.post("/api/v1/orders", orderInput({ externalOrderId: "WHILE-DOWN", customerName: "Missed Event" }));
      expect(created.status, created.text).toBe(201);
      // graphql-ws waits a second or more before it reconnects; then the page reads its orders again.
      await liveState("live").waitFor({ timeout: 20_000 });
      await session.rowFor("WHILE-DOWN").waitFor();
      expect(session.errors).toEqual([]);
    } finally {
      server.app.http.server.off("upgrade", onUpgrade);
      await session.close();
    }
  });

  it("keeps filters in the URL and pages with Next / Previous", async () => {
    const { page } = admin;
    for (let i = 0; i < 21; i++) await place({ externalOrderId: `PAGE-${String(i).padStart(2, "0")}` });
    await admin.goto("/orders");
    await admin.rowFor("PAGE-20").waitFor();
    expect(await page.locator("tbody tr").count()).toBe(20);
    await page.getByRole("button", { name: "Next" }).click();
    await page.waitForURL(/after=/);
    await page.locator("tbody tr").first().waitFor();
    await expect.poll(() => page.locator("tbody tr").count()).toBe(2); // PAGE-00 and the approved order
    await admin.rowFor("PAGE-00").waitFor();
    await page.getByRole("button", { name: "Previous" }).click();
    await admin.rowFor("PAGE-20").waitFor();
    expect(page.url()).not.toContain("after=");

    await page.getByLabel("Status").selectOption("CONFIRMED");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/status=CONFIRMED/);
    await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
    await page.reload();
    await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
    expect(await page.locator("tbody tr").getAttribute("data-status")).toBe("CONFIRMED");
    await page.getByRole("button", { name: "Clear" }).click();
    await admin.rowFor("PAGE-20").waitFor();

    // The search box is the API's prefix search (order id, phone or customer name), kept in the URL too.
    const search = page.getByRole("searchbox", { name: "Search" });
    await search.fill("PAGE-1");
    await search.press("Enter");
    await page.waitForURL(/q=PAGE-1/);
    await expect.poll(() => page.locator("tbody tr").count()).toBe(10);
    const ids = await page.locator("tbody tr").evaluateAll((rows: any[]) => rows.map((row) => row.getAttribute("data-external-id") as string));
    expect(ids.every((id) => id.startsWith("PAGE-1"))).toBe(true);
    await page.reload();
    await expect.poll(() => page.locator("tbody tr").count()).toBe(10);
    expect(await search.inputValue()).toBe("PAGE-1");
    const named = await place({ customerName: "Zainab Qureshi", customerPhone: "971501112233" });
    await search.fill("zainab q");
    await search.press("Enter");
    await page.waitForURL(/q=zainab/);
    await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
    expect(await page.locator("tbody tr").getAttribute("data-external-id")).toBe(named.externalOrderId);
    await search.fill("+9715011");
    await search.press("Enter");
    await page.waitForURL(/q=%2B9715011/);
    await expect.poll(() => page.locator("tbody tr").getAttribute("data-external-id")).toBe(named.externalOrderId);
    expect(await page.locator("tbody tr").count()).toBe(1);
    await page.getByRole("button", { name: "Clear" }).click();
    await admin.rowFor("PAGE-20").waitFor();
  });

  it("shows an order's items, totals and timeline, updates them live on Approve, and cancels a pending order", async () => {
    const { page } = admin;
    const created = await place({ customerName: "Omar" });
    await admin.rowFor(created.externalOrderId).getByRole("link").click();
    await admin.orderDetail().waitFor();
    expect(await page.getByTestId("order-total").textContent()).toMatch(/164\.99/);
    await expect.poll(() => admin.timelineKinds()).toEqual(["created", "message_sent"]);
    await admin.screenshot("order-detail");

    await shop.test.post(`/api/v1/test/orders/${created.id}/customer-action`, { action: "approve" });
    await page.locator('[data-testid="order-detail"][data-status="CONFIRMED"]').waitFor();
    await expect.poll(() => admin.timelineKinds()).toContain("approved");
    expect(await page.getByRole("button", { name: "Cancel order" }).count()).toBe(0);

    const pending = await place();
    await admin.goto(`/orders/${pending.id}`);
    await page.getByRole("button", { name: "Cancel order" }).click();
    await admin.confirmDialog().getByRole("button", { name: "Cancel order" }).click();
    await page.locator('[data-testid="order-detail"][data-status="CANCELED"]').waitFor();
    expect((await shop.test.get(`/api/v1/orders/${pending.id}`)).body.status).toBe("canceled");
    await expect.poll(() => admin.timelineKinds()).toContain("canceled");
  });

  it("creates an API key shown once, which works over REST, then revokes it and REST answers 401", async () => {
    const { page } = admin;
    await admin.nav("API keys").click();
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    await page.getByTestId("create-key").click();
    const dialog = admin.secretDialog();
    await dialog.waitFor();
    const key = (await dialog.locator("#secret-value").textContent())!;
    expect(key).toMatch(/^ek_test_/);
    expect(await dialog.textContent()).toContain("you will not see it again");
    await dialog.getByRole("button", { name: "Copy" }).click();
    await dialog.getByRole("button", { name: "Copied" }).waitFor();
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(key);
    await admin.screenshot("api-key-created");
    await dialog.getByRole("button", { name: "Close" }).click();

    const withKey = server.api.withKey(key);
    expect((await withKey.get("/api/v1/orders")).status).toBe(200);
    const row = page.locator(`tr[data-key-prefix="${key.slice(0, 12)}"]`);
    await row.waitFor();
    await row.getByRole("button", { name: "Revoke" }).click();
    await admin.confirmDialog().getByRole("button", { name: "Revoke" }).click();
    await page.locator(`tr[data-key-prefix="${key.slice(0, 12)}"][data-revoked="true"]`).waitFor();
    expect((await withKey.get("/api/v1/orders")).status).toBe(401);
    await admin.screenshot("api-keys");
  });

  it("creates a webhook endpoint (secret once), shows a failing delivery, and redelivers it once the receiver recovers", async () => {
    const { page } = admin;
    receiver.respond(() => ({ status: 500 }));
    await admin.nav("Webhooks").click();
    await page.getByLabel("URL").fill(receiver.url("/console-hooks"));
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const dialog = admin.secretDialog();
    await dialog.waitFor();
    const secret = (await dialog.locator("#secret-value").textContent())!;
    expect(secret).toMatch(/^whsec_/);
    receiver.secret = secret;
    await dialog.getByRole("button", { name: "Close" }).click();
    await page.locator(`[data-testid="endpoints"] li[data-enabled="true"]`).waitFor();

    const created = await place();
    await receiver.waitFor(2, (request) => request.body?.data?.id === created.id);
    await admin.goto(`/orders/${created.id}`);
    const delivery = page.locator('[data-testid="deliveries"] li[data-status="DEAD"]');
    await delivery.waitFor();
    expect(await delivery.textContent()).toContain("HTTP 500");

    receiver.respond(() => ({ status: 204 }));
    await delivery.getByRole("button", { name: "Redeliver" }).click();
    await page.locator('[data-testid="deliveries"] li[data-status="SUCCEEDED"]').waitFor();
    expect(receiver.requests.filter((request) => request.body?.data?.id === created.id)).toHaveLength(3);

    await admin.nav("Webhooks").click();
    await page.locator('section[aria-labelledby="deliveries-title"] li[data-status="SUCCEEDED"]').first().waitFor();
    await admin.screenshot("webhooks");
    await page.getByRole("button", { name: "Disable" }).click();
    await page.locator(`[data-testid="endpoints"] li[data-enabled="false"]`).waitFor();
    await page.getByRole("button", { name: "Enable" }).click();
    await page.locator(`[data-testid="endpoints"] li[data-enabled="true"]`).waitFor();
  });

  it("saves the confirmation policy and shows a refused field's error next to it", async () => {
    const { page } = admin;
    await admin.nav("Settings").click();
    await page.getByTestId("policy-form").waitFor();
    await page.getByLabel("Reminder 1").fill("banana");
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.locator('.field-error[data-field="reminders.0"]').textContent()).not.toBe("");
    await page.getByLabel("Reminder 1").fill("2h");
    await page.getByLabel(/^Expire after/).fill("1d");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Saved.").waitFor();
    expect((await shop.test.get("/api/v1/confirmation-policy")).body).toMatchObject({ reminders: ["2h"], expireAfter: "1d" });
    await admin.screenshot("settings");
  });

  it("switches to Arabic, right to left, and keeps it across a reload", async () => {
    const { page } = admin;
    await admin.nav("Orders").click();
    await page.getByRole("button", { name: "العربية" }).click();
    await page.getByRole("heading", { name: "الطلبات" }).waitFor();
    expect(await page.locator("html").getAttribute("dir")).toBe("rtl");
    expect(await page.locator("html").getAttribute("lang")).toBe("ar");
    expect(await page.locator("main").evaluate((element) => (globalThis as any).getComputedStyle(element).direction)).toBe("rtl");
    await page.reload();
    await page.getByRole("heading", { name: "الطلبات" }).waitFor();
    expect(await page.locator("html").getAttribute("dir")).toBe("rtl");
    await page.getByRole("button", { name: "English" }).click();
    await page.getByRole("heading", { name: "Orders" }).waitFor();
    expect(await page.locator("html").getAttribute("dir")).toBe("ltr");
  });

  it("switches to live mode: no test orders, and the header says so", async () => {
    const { page } = admin;
    await page.getByRole("button", { name: "Live", exact: true }).click();
    await page.getByText("Live mode: real customers").waitFor();
    await page.getByTestId("orders-empty").waitFor();
    await page.locator('[data-testid="live-state"][data-state="live"]').waitFor();
    // A live order appears live in live mode.
    const live = await shop.live.post("/api/v1/orders", orderInput({ externalOrderId: "LIVE-1" }));
    expect([201, 502, 503]).toContain(live.status);
    await page.getByRole("button", { name: "Test", exact: true }).click();
    await admin.rowFor("PAGE-20").waitFor();
  });

  it("shows a viewer everything but secrets, with no buttons that would fail", async () => {
    const viewer = await ConsoleSession.open(browser, server.baseUrl);
    const { page } = viewer;
    const subscribed = server.app.services.liveEvents.size;
    await viewer.goto("/sign-in");
    await viewer.signIn(VIEWER.email, VIEWER.password);
    await page.waitForURL(/\/orders$/);
    await viewer.rowFor("PAGE-20").waitFor();
    // The new order reaches the list through the live subscription: placed before it is up, it would be missed.
    await page.locator('[data-testid="live-state"][data-state="live"]').waitFor();
    await expect.poll(() => server.app.services.liveEvents.size).toBeGreaterThan(subscribed);
    const pending = await place();
    await viewer.rowFor(pending.externalOrderId).getByRole("link").click();
    await viewer.orderDetail().waitFor();
    expect(await page.getByRole("button", { name: "Cancel order" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Redeliver" }).count()).toBe(0);

    await viewer.nav("API keys").click();
    await page.locator("tr[data-key-prefix]").first().waitFor();
    expect(await page.getByTestId("create-key").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Revoke" }).count()).toBe(0);
    await viewer.nav("Webhooks").click();
    await page.locator('[data-testid="endpoints"] li').first().waitFor();
    expect(await page.getByTestId("create-endpoint").count()).toBe(0);
    expect(await page.getByRole("button", { name: /Rotate|Delete|Disable/ }).count()).toBe(0);
    await viewer.nav("Settings").click();
    await page.getByText("Your role may read the policy").waitFor();
    expect(await page.getByRole("button", { name: "Save" }).count()).toBe(0);
    const html = await page.content();
    expect(html).not.toMatch(/whsec_|ek_test_[A-Za-z0-9]{20}/);
    expect(viewer.errors).toEqual([]);
    await viewer.close();
  });

  it("works from the keyboard: a dialog takes focus, Escape closes it and focus returns to its button", async () => {
    const { page } = admin;
    await admin.goto("/keys");
    const create = page.getByTestId("create-key");
    await create.focus();
    await page.keyboard.press("Enter");
    const dialog = admin.secretDialog();
    await dialog.waitFor();
    // The first action of the dialog has focus; the page behind it is inert.
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe("Copy");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute("data-testid"))).toBe("create-key");
    // The mode switch and the language switch are buttons in the tab order.
    await page.getByRole("button", { name: "Live", exact: true }).focus();
    await page.keyboard.press("Enter");
    await page.getByText("Live mode: real customers").waitFor();
    await page.getByRole("button", { name: "Test", exact: true }).focus();
    await page.keyboard.press("Enter");
    await page.getByText("Live mode: real customers").waitFor({ state: "detached" });
  });

  it("renders every page in English and Arabic at desktop and phone widths (screenshots in test-artifacts/console/)", async () => {
    const detail = await place({ customerName: "ليلى حسن", customerAddress: "شارع الملك فهد، الرياض" });
    await shop.test.post(`/api/v1/test/orders/${detail.id}/customer-action`, { action: "approve" });
    const pages = [
      { name: "orders", path: "/orders", ready: "orders-table" },
      { name: "order-detail", path: `/orders/${detail.id}`, ready: "timeline" },
      { name: "api-keys", path: "/keys", ready: "keys-table" },
      { name: "webhooks", path: "/webhooks", ready: "endpoints" },
      { name: "settings", path: "/settings", ready: "policy-form" },
    ];
    for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
      const session = await ConsoleSession.open(browser, server.baseUrl, viewport);
      for (const language of ["en", "ar"]) {
        await session.context.addInitScript((chosen) => (globalThis as any).localStorage.setItem("ocs.console.language", chosen), language);
        await session.goto("/sign-in");
        await session.page.locator(`html[lang="${language}"]`).waitFor({ state: "attached" });
        const { png } = await session.screenshot("sign-in");
        expect(png.length).toBeGreaterThan(5_000);
        // Either the sign-in form or the signed-in header, once the app has asked the server (not before).
        const signedIn = session.page.getByTestId("signed-in-as");
        await signedIn.or(session.page.getByLabel(/E-mail|البريد/)).first().waitFor();
        if (!(await signedIn.count())) await session.signIn(ADMIN.email, ADMIN.password);
        await session.page.getByTestId("signed-in-as").waitFor();
        for (const entry of pages) {
          await session.goto(entry.path);
          await session.page.getByTestId(entry.ready).waitFor();
          await session.page.locator('[data-testid="live-state"][data-state="live"], [data-testid="order-detail"], [data-testid="keys-table"], [data-testid="endpoints"], [data-testid="policy-form"]').first().waitFor();
          expect(await session.page.locator("html").getAttribute("dir")).toBe(language === "ar" ? "rtl" : "ltr");
          // Readable at this width: nothing but wide tables (which scroll in their own box) overflows the page.
          const overflow = await session.page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);
          expect(overflow, `${entry.name} ${language} ${viewport.width}px`).toBeLessThanOrEqual(0);
          await session.screenshot(entry.name);
        }
      }
      expect(session.errors).toEqual([]);
      await session.close();
    }
  });

  it("signs out: the session ends and the console asks to sign in again", async () => {
    const { page } = admin;
    await admin.goto("/orders");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/sign-in$/).catch((e) => { throw new Error(`at ${page.url()}: ${e}`); });
    await admin.goto("/keys");
    await page.waitForURL(/\/sign-in\?next=%2Fkeys/);
    await admin.signIn(ADMIN.email, ADMIN.password);
    await page.waitForURL(/\/console\/keys$/);
  });
});

describe("the analytics page", () => {
  const OWNER = { email: "owner@analytics-shop.example", password: "analytics password 12345" };
  let analyticsShop: TestMerchant;

  beforeAll(async () => {
    analyticsShop = await server.merchant("Analytics Shop");
    await server.app.services.users.create(analyticsShop.id, OWNER.email, "admin", OWNER.password);
  });

  const STATS_QUERY = `query Stats($from: DateTime!, $to: DateTime!, $timeZone: String!, $interval: StatsInterval!) {
    orderStats(from: $from, to: $to, timeZone: $timeZone, interval: $interval) {
      totals { created confirmed canceled failed expired pending answered confirmationRate answerRate
        timeToAnswerP50Seconds timeToAnswerP90Seconds failuresByErrorCode { errorCode count meaning } }
      buckets { start created confirmationRate }
    }
  }`;

  /** The API's orderStats for the range the page shows (read from the page), over GraphQL with the test key. */
  async function apiStats(session: ConsoleSession, interval: "DAY" | "HOUR") {
    const section = session.page.getByTestId("analytics");
    const variables = {
      from: await section.getAttribute("data-from"),
      to: await section.getAttribute("data-to"),
      timeZone: await section.getAttribute("data-time-zone"),
      interval,
    };
    const response = await fetch(`${server.baseUrl}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": analyticsShop.keys.test },
      body: JSON.stringify({ query: STATS_QUERY, variables }),
    });
    const body = (await response.json()) as any;
    expect(body.errors).toBeUndefined();
    return body.data.orderStats as { totals: Record<string, any>; buckets: unknown[] };
  }

  /** Every figure the page shows equals the API's (the raw value in data-value, the text through Intl). */
  async function expectFiguresToMatch(session: ConsoleSession, totals: Record<string, any>) {
    const pairs: [string, string][] = [
      ["created", "created"],
      ["confirmed", "confirmed"],
      ["canceled", "canceled"],
      ["failed", "failed"],
      ["expired", "expired"],
      ["pending", "pending"],
      ["confirmation-rate", "confirmationRate"],
      ["answer-rate", "answerRate"],
      ["p50", "timeToAnswerP50Seconds"],
      ["p90", "timeToAnswerP90Seconds"],
    ];
    for (const [testId, field] of pairs) {
      const shown = await session.page.getByTestId(`figure-${testId}`).getAttribute("data-value");
      expect(shown, testId).toBe(totals[field] === null ? "" : String(totals[field]));
    }
  }

  it("says what to do when the range has no orders, then shows the seeded figures equal to the API's orderStats", async () => {
    const session = await ConsoleSession.open(browser, server.baseUrl);
    const { page } = session;
    await session.goto("/sign-in");
    await session.signIn(OWNER.email, OWNER.password);
    await page.getByTestId("signed-in-as").waitFor();
    await session.nav("Analytics").click();
    await page.getByRole("heading", { name: "Analytics" }).waitFor();
    await page.getByTestId("analytics-empty").waitFor();
    expect(await page.getByTestId("analytics-empty").textContent()).toMatch(/API key/);
    // The default range is the last 7 local days of the browser's zone (Asia/Riyadh, UTC+3, no DST), shown.
    expect(await page.getByTestId("analytics-time-zone").textContent()).toContain("Asia/Riyadh");
    const today = new Date(Date.now() + 3 * 3600_000).toISOString().slice(0, 10);
    const firstDay = new Date(Date.parse(`${today}T00:00:00Z`) - 6 * 86_400_000).toISOString().slice(0, 10);
    expect(await page.getByTestId("analytics").getAttribute("data-from")).toBe(new Date(`${firstDay}T00:00:00+03:00`).toISOString());
    expect(await page.getByTestId("analytics").getAttribute("data-to")).toBe(new Date(Date.parse(`${today}T00:00:00+03:00`) + 86_400_000).toISOString());

    // Six orders: three approved, one canceled by the customer, one failed with 131026, one still pending.
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await analyticsShop.test.post("/api/v1/orders", orderInput({ externalOrderId: `STATS-${i}` }));
      expect(response.status, response.text).toBe(201);
      ids.push(response.body.id);
    }
    for (const id of ids.slice(0, 3)) expect((await analyticsShop.test.post(`/api/v1/test/orders/${id}/customer-action`, { action: "approve" })).status).toBe(200);
    expect((await analyticsShop.test.post(`/api/v1/test/orders/${ids[3]}/customer-action`, { action: "cancel" })).status).toBe(200);
    const failed = await analyticsShop.test.post(`/api/v1/test/orders/${ids[4]}/delivery`, { status: "failed", errorCode: 131026 });
    expect(failed.status, failed.text).toBe(200);

    await page.reload();
    await page.getByTestId("figures").waitFor();
    const api = await apiStats(session, "DAY");
    expect(api.totals).toMatchObject({ created: 6, confirmed: 3, canceled: 1, failed: 1, pending: 1, answered: 4, confirmationRate: 0.75 });
    expect(api.buckets).toHaveLength(7);
    await expectFiguresToMatch(session, api.totals);
    expect(await page.getByTestId("figure-created").locator("dd").textContent()).toBe("6");
    expect(await page.getByTestId("figure-confirmation-rate").locator("dd").textContent()).toBe("75%");
    expect(await page.getByTestId("figure-answer-rate").locator("dd").textContent()).toBe("66.7%");
    const failure = page.locator('[data-testid="failures"] tr[data-error-code="131026"]');
    expect(await failure.getAttribute("data-count")).toBe("1");
    expect((await failure.locator("td").nth(1).textContent())!.length).toBeGreaterThan(5);
    expect(await page.locator('[data-testid="funnel"] [role="img"]').getAttribute("aria-label")).toMatch(/Created: 6 .*Answered: 4 .*Confirmed: 3 /);
    await page.locator('[data-testid="rate-over-time"] .recharts-line-dot').first().waitFor();
    await page.locator('[data-testid="time-to-answer"] .recharts-bar-rectangle').first().waitFor();
    await session.screenshot("analytics");
    expect(session.errors).toEqual([]);

    // From the keyboard: another range, interval and time zone (free text; a wrong name is refused in place).
    // Each control is labelled (its accessible name starts with the label).
    expect(await page.getByRole("combobox", { name: /^Range/ }).getAttribute("name")).toBe("range");
    await page.locator(`select[name="range"]`).focus();
    await page.locator(`select[name="range"]`).selectOption("30d");
    await page.locator(`select[name="interval"]`).selectOption("hour");
    await page.locator(`input[name="timeZone"]`).fill("Mars/Olympus");
    await page.locator(`input[name="timeZone"]`).press("Enter");
    await expect.poll(() => page.locator("#analytics-time-zone-error").textContent()).toMatch(/time zone/);
    expect(page.url()).not.toContain("range=30d");
    await page.locator(`input[name="timeZone"]`).fill("Asia/Dubai");
    await page.getByRole("button", { name: "Apply" }).focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(/range=30d&interval=hour&tz=Asia%2FDubai/);
    await page.locator('[data-testid="analytics"][data-time-zone="Asia/Dubai"]').waitFor();
    await page.getByTestId("figures").waitFor();
    const hourly = await apiStats(session, "HOUR");
    expect(hourly.buckets).toHaveLength(30 * 24);
    await expectFiguresToMatch(session, hourly.totals);
    await page.reload();
    await page.locator('[data-testid="analytics"][data-time-zone="Asia/Dubai"]').waitFor();
    expect(await page.locator(`select[name="interval"]`).inputValue()).toBe("hour");
    await session.close();
  });

  it("reads right to left in Arabic (the charts' axes mirror) and fits a phone (screenshots en/ar, desktop/phone)", async () => {
    for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
      const session = await ConsoleSession.open(browser, server.baseUrl, viewport);
      const { page } = session;
      await session.goto("/sign-in");
      await session.signIn(OWNER.email, OWNER.password);
      await page.getByTestId("signed-in-as").waitFor();
      await session.goto("/analytics");
      await page.getByTestId("figures").waitFor();
      for (const language of ["en", "ar"]) {
        if (language === "ar") {
          await page.getByRole("button", { name: "العربية" }).click();
          await page.getByRole("heading", { name: "التحليلات" }).waitFor();
          expect(await page.locator("html").getAttribute("dir")).toBe("rtl");
          expect(await page.getByTestId("analytics-time-zone").textContent()).toContain("Asia/Riyadh");
          await expectFiguresToMatch(session, (await apiStats(session, "DAY")).totals);
        }
        await page.locator('[data-testid="funnel"] .recharts-bar-rectangle').first().waitFor();
        await session.screenshot("analytics");
        // The funnel's labels sit before its bars in reading order (left in English, right in Arabic), beside them.
        const label = (await page.locator('[data-testid="funnel"] .recharts-yAxis-tick-labels text').first().boundingBox())!;
        const bar = (await page.locator('[data-testid="funnel"] .recharts-bar-rectangle').first().boundingBox())!;
        if (language === "ar") expect(label.x).toBeGreaterThanOrEqual(bar.x + bar.width);
        else expect(label.x + label.width).toBeLessThanOrEqual(bar.x);
        const overflow = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);
        expect(overflow, `analytics ${language} ${viewport.width}px`).toBeLessThanOrEqual(0);
      }
      await page.getByRole("button", { name: "English" }).click();
      expect(session.errors).toEqual([]);
      await session.close();
    }
  });
});

describe("trusted documents (CONSOLE_TRUSTED_DOCUMENTS=true, the production default)", () => {
  let strict: TestServer;
  let strictShop: TestMerchant;
  let cookie: string;

  beforeAll(async () => {
    strict = await startTestServer({ CONSOLE_TRUSTED_DOCUMENTS: "true" });
    strictShop = await strict.merchant("Strict Shop");
    await strict.app.services.users.create(strictShop.id, ADMIN.email, "admin", ADMIN.password);
    const signedIn = await fetch(`${strict.baseUrl}/api/v1/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(ADMIN),
    });
    expect(signedIn.status).toBe(200);
    cookie = signedIn.headers.get("set-cookie")!.split(";")[0];
  });
  afterAll(async () => {
    await strict?.close();
  });

  const graphql = (body: unknown, headers: Record<string, string>) =>
    fetch(`${strict.baseUrl}/graphql`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

  it("runs the console (which sends only the hashes of its build's documents)", async () => {
    const session = await ConsoleSession.open(browser, strict.baseUrl);
    const bodies: any[] = [];
    session.page.on("request", (request) => {
      if (request.url().endsWith("/graphql") && request.method() === "POST") bodies.push(request.postDataJSON());
    });
    await session.goto("/sign-in");
    await session.signIn(ADMIN.email, ADMIN.password);
    await session.page.getByTestId("orders-empty").waitFor();
    // The order is created once the live subscription is up, as a merchant would see it (not before it subscribed).
    await session.page.locator('[data-testid="live-state"][data-state="live"]').waitFor();
    await expect.poll(() => strict.app.services.liveEvents.size).toBeGreaterThan(0);
    const created = await strictShop.test.post("/api/v1/orders", orderInput());
    await session.rowFor(created.body.externalOrderId).waitFor();
    await session.nav("API keys").click();
    await session.page.getByTestId("create-key").click();
    await session.secretDialog().waitFor();
    expect(session.errors).toEqual([]);
    expect(bodies.length).toBeGreaterThan(3);
    for (const body of bodies) {
      expect(body.query).toBeUndefined();
      expect(body.extensions.persistedQuery.sha256Hash).toMatch(/^[0-9a-f]{64}$/);
    }
    await session.close();
  });

  it("refuses any other document from a session, and an unknown hash; API keys still send any document", async () => {
    const own = await graphql({ query: "{ viewer { mode } }" }, { cookie });
    expect(own.status).toBe(400);
    expect(((await own.json()) as any).errors[0].extensions.code).toBe("PERSISTED_QUERY_NOT_SUPPORTED");
    const unknown = await graphql({ extensions: { persistedQuery: { version: 1, sha256Hash: "0".repeat(64) } } }, { cookie, "accept-language": "ar" });
    expect(unknown.status).toBe(400);
    const body = (await unknown.json()) as any;
    expect(body.errors[0].extensions.code).toBe("PERSISTED_QUERY_NOT_FOUND");
    expect(body.errors[0].message).toMatch(/[\u0600-\u06FF]/);
    const withKey = await graphql({ query: "{ viewer { mode } }" }, { "x-api-key": strictShop.keys.test });
    expect(withKey.status).toBe(200);
    expect(((await withKey.json()) as any).data.viewer.mode).toBe("TEST");
  });
});

describe("sign-in throttling in the console", () => {
  let throttled: TestServer;
  afterAll(async () => {
    await throttled?.close();
  });

  it("shows the service's 429 message (in Arabic when Arabic is chosen) after too many failures", async () => {
    throttled = await startTestServer({ SIGN_IN_RATE_LIMIT_MAX: "2" });
    const merchant = await throttled.merchant("Throttled Shop");
    await throttled.app.services.users.create(merchant.id, ADMIN.email, "admin", ADMIN.password);
    const session = await ConsoleSession.open(browser, throttled.baseUrl);
    await session.context.addInitScript(() => (globalThis as any).localStorage.setItem("ocs.console.language", "ar"));
    await session.goto("/sign-in");
    for (let attempt = 0; attempt < 3; attempt++) {
      await session.signIn(ADMIN.email, `wrong password ${attempt}`);
      await expect.poll(() => session.signInError().textContent()).toMatch(/[\u0600-\u06FF]/);
      await session.signInError().waitFor();
    }
    await session.signIn(ADMIN.email, ADMIN.password);
    await expect.poll(() => session.signInError().getAttribute("data-status")).toBe("429");
    expect(await session.signInError().textContent()).toMatch(/[\u0600-\u06FF]/);
    expect(session.page.url()).toContain("/sign-in");
    await session.close();
  });
});
