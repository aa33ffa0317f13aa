import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";

/**
 * Page objects for the merchant console (/console): what a merchant sees and does, by role and label, so the
 * tests read as the user's steps and wait for what the user would see (no sleeps).
 */
export const CONSOLE_SCREENSHOTS = join(process.cwd(), "test-artifacts", "console");

export class ConsoleSession {
  readonly errors: string[] = [];

  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
    readonly baseUrl: string,
  ) {
    page.setDefaultTimeout(10_000);
    page.on("pageerror", (error) => this.errors.push(String(error)));
    page.on("console", (message) => {
      // A refused sign-in or a 401 before sign-in is the browser logging a failed request, not a page error.
      if (message.type() === "error" && !/status of 40[13]/.test(message.text())) this.errors.push(message.text());
    });
  }

  static async open(browser: Browser, baseUrl: string, viewport = { width: 1280, height: 900 }): Promise<ConsoleSession> {
    const context = await browser.newContext({ viewport, locale: "en-GB", timezoneId: "Asia/Riyadh" });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl });
    return new ConsoleSession(context, await context.newPage(), baseUrl);
  }

  goto(path: string) {
    return this.page.goto(`${this.baseUrl}/console${path}`);
  }

  async signIn(email: string, password: string) {
    await this.page.getByLabel(/E-mail|البريد/).fill(email);
    await this.page.getByLabel(/Password|كلمة المرور/).fill(password);
    await this.page.locator('button[type="submit"]').click();
  }

  signInError() {
    return this.page.locator("#sign-in-error");
  }

  nav(name: string | RegExp) {
    return this.page.getByRole("navigation", { name: /Main|الرئيسية/ }).getByRole("link", { name });
  }

  rowFor(externalOrderId: string) {
    return this.page.locator(`tr[data-external-id="${externalOrderId}"]`);
  }

  orderDetail() {
    return this.page.getByTestId("order-detail");
  }

  timelineKinds() {
    return this.page.locator('[data-testid="timeline"] li').evaluateAll((items: any[]) => items.map((item) => item.getAttribute("data-kind") as string));
  }

  secretDialog() {
    return this.page.getByTestId("secret-dialog");
  }

  confirmDialog() {
    return this.page.getByTestId("confirm-dialog");
  }

  /** The API explorer (GraphiQL): its query editor, run button and response pane. */
  explorer() {
    const page = this.page;
    const root = page.getByTestId("explorer");
    return {
      root,
      /** The editor is ready once Monaco has rendered the default query (its workers and styles loaded). */
      async ready() {
        await root.locator(".graphiql-query-editor .monaco-editor .view-lines").waitFor();
        await root.locator(".graphiql-query-editor .view-line").first().waitFor();
      },
      /** Replaces the query by typing it, as a person would (Monaco closes brackets; typing `}` steps over them). */
      async write(query: string) {
        await root.locator(".graphiql-query-editor .monaco-editor").click();
        await page.keyboard.press("ControlOrMeta+A");
        await page.keyboard.press("Delete");
        await page.keyboard.type(query);
        await page.keyboard.press("Escape"); // closes the completion list, if open
      },
      run() {
        return root.getByRole("button", { name: /^Execute query/ }).click();
      },
      /** The response pane's text (Monaco renders spaces as no-break spaces). */
      async response(): Promise<string> {
        const text = await root.locator(".graphiql-response .view-lines").textContent();
        return (text ?? "").replace(/\u00a0/g, " ");
      },
    };
  }

  async screenshot(name: string) {
    mkdirSync(CONSOLE_SCREENSHOTS, { recursive: true });
    const language = (await this.page.locator("html").getAttribute("lang")) ?? "en";
    const width = this.page.viewportSize()?.width ?? 0;
    const file = join(CONSOLE_SCREENSHOTS, `${name}-${language}-${width < 700 ? "phone" : "desktop"}.png`);
    const png = await this.page.screenshot({ fullPage: true, path: file });
    return { file, png };
  }

  close() {
    return this.context.close();
  }
}
