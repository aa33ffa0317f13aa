import { readFileSync } from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { launchChromium } from "../support/browser.ts";
import { ConsoleSession } from "../support/console-pages.ts";
import { orderInput } from "../support/fixtures.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { createEndpoint } from "../support/webhooks.ts";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";

/**
 * SPEC §15 in the console, in a real Chromium: an agent signs in, sees the unanswered orders, calls one (tel: and
 * wa.me links), records "approved by phone" with a note (the merchant's webhook gets order.confirmed), watches the
 * queue change live, and opts in to notifications; the admin's getting-started checklist and Export CSV (a real
 * download, Arabic intact). English and Arabic, desktop and phone widths, by keyboard; screenshots in
 * test-artifacts/console/.
 */
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

const AGENT = { email: "agent@desk-shop.example", password: "agent password 12345" };
const ADMIN = { email: "owner@desk-shop.example", password: "owner password 12345" };

let server: TestServer;
let shop: TestMerchant;
let browser: Browser;
let receiver: WebhookReceiver;

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: "true", WEBHOOK_RETRY_SCHEDULE: "300ms" });
  shop = await server.merchant("Desk Shop");
  await server.app.services.users.create(shop.id, AGENT.email, "agent", AGENT.password);
  await server.app.services.users.create(shop.id, ADMIN.email, "admin", ADMIN.password);
  receiver = await startWebhookReceiver();
  const endpoint = await createEndpoint(shop.test, { url: receiver.url() });
  receiver.secret = endpoint.secret;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await server?.close();
});

/** An order placed through the API, then made `hours` old (its confirmation was sent that long ago). */
async function waiting(overrides: Record<string, unknown>, hours: number) {
  const response = await shop.test.post("/api/v1/orders", orderInput(overrides));
  expect(response.status, response.text).toBe(201);
  await server.app.services.database.pool.query("UPDATE orders SET created_at = now() - make_interval(hours => $2) WHERE id = $1", [response.body.id, hours]);
  return response.body as { id: string; externalOrderId: string; customerPhone: string };
}

/** Records every browser notification the page creates (the real API would show it outside the page). */
async function recordNotifications(session: ConsoleSession) {
  await session.context.addInitScript(() => {
    const shown: { title: string; body?: string }[] = [];
    (globalThis as any).__notifications = shown;
    class RecordedNotification {
      static permission = "default";
      static async requestPermission() {
        RecordedNotification.permission = "granted";
        return "granted";
      }
      onclick: unknown = null;
      constructor(title: string, options: { body?: string } = {}) {
        shown.push({ title, body: options.body });
      }
    }
    (globalThis as any).Notification = RecordedNotification;
  });
}

describe("the Follow-up page (agent)", () => {
  it("signs an agent in to the queue, calls a customer, records 'approved by phone', and the webhook gets order.confirmed", async () => {
    const first = await waiting({ externalOrderId: "FU-1001", customerName: "Sara Ali", customerPhone: "966501112233" }, 5);
    const second = await waiting({ externalOrderId: "FU-1002", customerName: "محمد أحمد", customerPhone: "201001234567" }, 3);
    await shop.test.post("/api/v1/orders", orderInput({ externalOrderId: "FU-fresh" })); // sent just now: not yet due

    const agent = await ConsoleSession.open(browser, server.baseUrl);
    await recordNotifications(agent);
    const { page } = agent;
    await agent.goto("/");
    await page.waitForURL(/\/sign-in/);
    await agent.signIn(AGENT.email, AGENT.password);
    await page.waitForURL(/\/console\/follow-ups$/);
    await page.locator('[data-testid="live-state"][data-state="live"]').waitFor();
    expect(await page.getByTestId("signed-in-as").textContent()).toContain("agent");
    const nav = await page.getByRole("navigation", { name: "Main" }).getByRole("link").allTextContents();
    expect(nav).toEqual(["Follow-up", "Orders", "Analytics"]);

    const queue = page.getByTestId("follow-up-queue");
    await queue.locator(`[data-external-id="FU-1002"]`).waitFor();
    expect(await queue.locator("li").evaluateAll((items) => items.map((item) => item.getAttribute("data-external-id")))).toEqual(["FU-1002", "FU-1001"]);
    expect(await page.getByTestId("follow-up-count").textContent()).toBe("2 in the queue");
    const item = queue.locator(`[data-external-id="FU-1001"]`);
    expect(await item.getByTestId("call-link").getAttribute("href")).toBe("tel:+966501112233");
    expect(await item.getByTestId("whatsapp-link").getAttribute("href")).toBe("https://wa.me/966501112233");
    expect(await item.getByTestId("whatsapp-link").getAttribute("rel")).toBe("noopener noreferrer");

    // Opt in to notifications (the browser asks once, from the click).
    await page.getByTestId("notify-toggle").click();
    await expect.poll(() => page.getByTestId("notify-toggle").getAttribute("aria-pressed")).toBe("true");
    await agent.screenshot("follow-ups");

    // By keyboard: focus the order's link, open it, choose the answer, type the note, submit.
    await item.locator(".queue-main").focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(new RegExp(`/follow-ups/${first.id}$`));
    const panel = page.getByTestId("follow-up-order");
    await panel.getByRole("heading", { name: /Sara Ali/ }).waitFor();
    await panel.getByLabel("Confirmed the order").focus();
    await page.keyboard.press("Space");
    await panel.getByLabel("How").selectOption("PHONE");
    await panel.getByLabel("Note (optional)").fill("Called at 14:05: wants delivery after 6 pm");
    expect(await panel.getByText("458 characters left").count()).toBe(1);
    await agent.screenshot("follow-up-order");
    await panel.getByRole("button", { name: "Record answer" }).press("Enter");
    await page.getByTestId("answer-saved").waitFor();
    expect(await page.getByTestId("answer-saved").textContent()).toBe("Recorded: the order is Confirmed.");
    await panel.locator('[data-kind="approved"]').waitFor();
    expect(await panel.locator('[data-kind="approved"]').textContent()).toContain(AGENT.email);
    expect(await panel.locator('[data-kind="approved"]').textContent()).toContain("wants delivery after 6 pm");
    await queue.locator(`[data-external-id="FU-1001"]`).waitFor({ state: "detached" });

    const [confirmed] = await receiver.waitFor(1, (request) => request.body?.event === "order.confirmed" && request.body.data.id === first.id);
    expect(confirmed.verified).toBe(true);
    const [answer] = (await shop.test.get(`/api/v1/orders/${first.id}/timeline`)).body.data.filter((step: any) => step.kind === "approved");
    expect(answer).toMatchObject({ source: "merchant", detail: { via: "phone", by: AGENT.email, note: "Called at 14:05: wants delivery after 6 pm" } });

    // Live: the other customer taps Approve on WhatsApp (the simulator): the order leaves the queue without a reload.
    expect((await shop.test.post(`/api/v1/test/orders/${second.id}/customer-action`, { action: "approve" })).status).toBe(200);
    await queue.locator(`[data-external-id="FU-1002"]`).waitFor({ state: "detached" });
    await page.getByTestId("follow-ups-empty").waitFor();

    // A new order falls due: the next read of the queue notifies (the agent opted in).
    await waiting({ externalOrderId: "FU-1003", customerName: "Omar" }, 4);
    await page.getByRole("button", { name: "Refresh" }).click();
    await queue.locator(`[data-external-id="FU-1003"]`).waitFor();
    await expect.poll(() => page.evaluate(() => (globalThis as any).__notifications)).toEqual([
      { title: "1 new order(s) to follow up", body: "Omar (FU-1003) is waiting for a call." },
    ]);

    // A customer asks a question (SPEC §11 needs reply): the order joins the queue at once, with a notification, and
    // the conversation is beside it; the agent's reply reaches the customer and takes the order out of the queue.
    const asking = (await shop.test.post("/api/v1/orders", orderInput({ externalOrderId: "FU-ASK", customerName: "Huda" }))).body;
    expect((await shop.test.post(`/api/v1/test/orders/${asking.id}/customer-message`, { text: "هل يمكن الدفع بالبطاقة؟" })).status).toBeLessThan(300);
    await queue.locator(`[data-external-id="FU-ASK"]`).waitFor();
    await expect.poll(async () => (await page.evaluate(() => (globalThis as any).__notifications)).length).toBe(2);
    await queue.locator(`[data-external-id="FU-ASK"] .queue-main`).click();
    const conversation = page.getByTestId("follow-up-order").getByTestId("conversation");
    await conversation.getByText("هل يمكن الدفع بالبطاقة؟").waitFor();
    await conversation.locator("textarea").fill("Yes, the courier has a card reader.");
    await conversation.getByRole("button", { name: /Send/ }).click();
    await conversation.getByText("Yes, the courier has a card reader.").waitFor();
    await queue.locator(`[data-external-id="FU-ASK"]`).waitFor({ state: "detached" });
    await agent.screenshot("follow-up-conversation");

    // Pages an agent may not use lead back to the desk; the order page shows no deliveries and no cancel.
    await agent.goto("/keys");
    await page.waitForURL(/\/console\/follow-ups$/);
    await agent.goto(`/orders/${first.id}`);
    await page.getByTestId("timeline").waitFor();
    expect(await page.getByRole("heading", { name: "Webhook deliveries" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Cancel order" }).count()).toBe(0);
    expect(agent.errors).toEqual([]);
    await agent.close();
  });

  it("renders in English and Arabic at desktop and phone widths without overflow", async () => {
    const arabic = await waiting({ externalOrderId: "FU-2001", customerName: "ليلى حسن", customerAddress: "شارع الملك فهد، الرياض" }, 6);
    for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
      const session = await ConsoleSession.open(browser, server.baseUrl, viewport);
      await session.goto("/sign-in");
      await session.signIn(AGENT.email, AGENT.password);
      await session.page.waitForURL(/\/console\/follow-ups$/);
      for (const language of ["en", "ar"]) {
        await session.context.addInitScript((chosen) => (globalThis as any).localStorage.setItem("ocs.console.language", chosen), language);
        await session.goto("/follow-ups");
        await session.page.locator(`html[lang="${language}"]`).waitFor({ state: "attached" });
        await session.page.locator(`[data-external-id="FU-2001"]`).waitFor();
        expect(await session.page.locator("html").getAttribute("dir")).toBe(language === "ar" ? "rtl" : "ltr");
        const overflow = () => session.page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);
        expect(await overflow(), `queue ${language} ${viewport.width}`).toBeLessThanOrEqual(0);
        await session.screenshot("follow-ups");
        await session.goto(`/follow-ups/${arabic.id}`);
        await session.page.getByTestId("answer-form").waitFor();
        expect(await overflow(), `order ${language} ${viewport.width}`).toBeLessThanOrEqual(0);
        if (viewport.width < 700) {
          // One column on a phone: the order, with a way back to the queue.
          expect(await session.page.getByTestId("follow-up-queue").isVisible()).toBe(false);
          expect(await session.page.locator(".desk-back").isVisible()).toBe(true);
        }
        await session.screenshot("follow-up-order");
      }
      expect(session.errors).toEqual([]);
      await session.close();
    }
  });
});

describe("the admin's getting-started checklist and CSV export", () => {
  it("shows the steps left from real data, and downloads the filtered orders as CSV with Arabic intact", async () => {
    const named = await shop.test.post("/api/v1/orders", orderInput({ externalOrderId: "CSV-1", customerName: "نور الهدى" }));
    await shop.test.post(`/api/v1/test/orders/${named.body.id}/customer-action`, { action: "approve" });
    for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
      const admin = await ConsoleSession.open(browser, server.baseUrl, viewport);
      await admin.goto("/sign-in");
      await admin.signIn(ADMIN.email, ADMIN.password);
      await admin.page.waitForURL(/\/console\/orders$/);
      for (const language of ["en", "ar"]) {
        await admin.context.addInitScript((chosen) => (globalThis as any).localStorage.setItem("ocs.console.language", chosen), language);
        await admin.goto("/orders");
        const card = admin.page.getByTestId("getting-started");
        await card.waitFor();
        // Tried the simulator, used a key, added a webhook: three done; no policy, store or live order yet.
        await expect
          .poll(() => card.locator("li[data-done=true]").evaluateAll((items) => items.map((item) => item.getAttribute("data-step"))))
          .toEqual(["TRY_SIMULATOR", "CREATE_KEY", "ADD_WEBHOOK"]);
        expect(await card.locator("summary").textContent()).toContain(language === "en" ? "3 left" : "متبقٍ 3");
        await admin.screenshot("orders-getting-started");
      }
      await admin.close();
    }

    const admin = await ConsoleSession.open(browser, server.baseUrl);
    await admin.goto("/orders?status=CONFIRMED&q=CSV");
    await admin.signIn(ADMIN.email, ADMIN.password);
    await admin.page.waitForURL(/\/console\/orders\?status=CONFIRMED&q=CSV/);
    const link = admin.page.getByTestId("export-csv");
    expect(await link.getAttribute("href")).toBe("/api/v1/orders/export?status=confirmed&search=CSV&mode=test");
    const [download] = await Promise.all([admin.page.waitForEvent("download"), link.click()]);
    expect(download.suggestedFilename()).toMatch(/^orders-test-\d{4}-\d{2}-\d{2}\.csv$/);
    const file = readFileSync((await download.path())!);
    expect([...file.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = file.toString("utf8").slice(1).split("\r\n");
    expect(lines[0]).toMatch(/^id,externalOrderId,status,/);
    expect(lines.slice(1, -1)).toHaveLength(1);
    expect(lines[1]).toContain(",CSV-1,confirmed,approved,read,نور الهدى,");
    expect(lines[1]).toMatch(/,whatsapp$/);

    // A policy saved in Settings (follow up after included) ticks its step.
    await admin.goto("/settings");
    await admin.page.getByLabel("Follow up after").fill("90m");
    await admin.page.getByRole("button", { name: "Save" }).click();
    await admin.page.getByText("Saved.").waitFor();
    expect((await shop.test.get("/api/v1/confirmation-policy")).body.followUpAfter).toBe("90m");
    await admin.goto("/orders");
    await expect
      .poll(() => admin.page.getByTestId("getting-started").locator("li[data-step=SET_POLICY]").getAttribute("data-done"))
      .toBe("true");
    expect(admin.errors).toEqual([]);
    await admin.close();
  });
});
