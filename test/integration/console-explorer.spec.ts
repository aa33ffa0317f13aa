import type { Browser, Page, WebSocket } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestServer, type TestMerchant, type TestServer } from "../support/server.ts";
import { orderInput } from "../support/fixtures.ts";
import { launchChromium } from "../support/browser.ts";
import { ConsoleSession } from "../support/console-pages.ts";

/**
 * The console's API explorer (/console/explorer: GraphiQL served by the service, signed in by the session) in a real
 * Chromium against the real server and database; the document rule it runs under with trusted documents on; and a
 * session that ends while the console is open. Screenshots land in test-artifacts/console/ with the other pages'.
 */
vi.setConfig({ testTimeout: 60_000 });

const ADMIN = { email: "owner@explorer-shop.example", password: "explorer password 12345" };
const VIEWER = { email: "viewer@explorer-shop.example", password: "viewer password 12345" };

let server: TestServer;
let shop: TestMerchant;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer();
  shop = await server.merchant("Explorer Shop");
  await server.app.services.users.create(shop.id, ADMIN.email, "admin", ADMIN.password);
  await server.app.services.users.create(shop.id, VIEWER.email, "viewer", VIEWER.password);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function signedIn(target: TestServer, user: { email: string; password: string }, viewport?: { width: number; height: number }) {
  const session = await ConsoleSession.open(browser, target.baseUrl, viewport);
  await session.goto("/sign-in");
  await session.signIn(user.email, user.password);
  await session.page.getByTestId("signed-in-as").waitFor();
  return session;
}

/** The POST /graphql answers the page receives, parsed. */
function graphqlAnswers(page: Page): any[] {
  const answers: any[] = [];
  page.on("response", async (response) => {
    if (response.url().endsWith("/graphql") && response.request().method() === "POST") {
      answers.push({ status: response.status(), request: response.request().postDataJSON(), body: await response.json().catch(() => null) });
    }
  });
  return answers;
}

describe("the explorer's page is served", () => {
  it("with the console's CSP, relaxed for the explorer only by inline styles and same-origin workers", async () => {
    const explorer = await fetch(`${server.baseUrl}/console/explorer`);
    expect(explorer.status).toBe(200);
    const csp = explorer.headers.get("content-security-policy") ?? "";
    const directives = Object.fromEntries(csp.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1).join(" ")]));
    expect(directives["script-src"]).toBe("'self'");
    expect(directives["style-src"]).toBe("'self' 'unsafe-inline'");
    expect(directives["worker-src"]).toBe("'self'");
    expect(directives["default-src"]).toBe("'none'");
    expect(directives["frame-ancestors"]).toBe("'none'");
    expect(csp).not.toMatch(/unsafe-eval|blob:|data: *;.*script/);
    for (const path of ["/console/orders", "/console/explorer-not", "/console/keys?explorer"]) {
      const other = (await fetch(`${server.baseUrl}${path}`)).headers.get("content-security-policy") ?? "";
      expect(other, path).not.toContain("unsafe-inline");
      expect(other, path).not.toContain("worker-src");
    }
  });

  it("keeps GraphiQL and Monaco out of the entry bundle: the explorer is a lazily loaded chunk with its workers", async () => {
    const html = await (await fetch(`${server.baseUrl}/console`)).text();
    const entry = await (await fetch(`${server.baseUrl}${html.match(/src="(\/console\/assets\/[^"]+\.js)"/)![1]}`)).text();
    expect(entry).not.toContain("graphiql-container");
    expect(entry).not.toContain("monaco-editor-");
    expect(entry).not.toContain(".worker-");
    const chunk = entry.match(/ExplorerPage-[\w-]+\.js/)![0];
    const explorer = await (await fetch(`${server.baseUrl}/console/assets/${chunk}`)).text();
    expect(explorer).toContain("graphiql-container");
    expect(explorer).toMatch(/graphql\.worker-[\w-]+\.js/);
    const worker = await fetch(`${server.baseUrl}/console/assets/${explorer.match(/graphql\.worker-[\w-]+\.js/)![0]}`);
    expect(worker.status).toBe(200);
    expect(worker.headers.get("content-type")).toMatch(/^text\/javascript/);
  });

  it("sends a browser opening /graphql to the explorer; API clients keep /graphql (GET and POST)", async () => {
    const page = await fetch(`${server.baseUrl}/graphql`, { headers: { accept: "text/html,application/xhtml+xml" }, redirect: "manual" });
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toBe("/console/explorer");
    const get = await fetch(`${server.baseUrl}/graphql?query=${encodeURIComponent("{ viewer { mode } }")}`, {
      headers: { accept: "text/html,application/json", "x-api-key": shop.keys.test, "apollo-require-preflight": "1" },
      redirect: "manual",
    });
    expect(get.status).toBe(200);
    expect(((await get.json()) as any).data.viewer.mode).toBe("TEST");
    const post = await server.api.withKey(shop.keys.test).post("/graphql", { query: "{ viewer { mode } }" });
    expect(post.status).toBe(200);
    expect(post.body.data.viewer.mode).toBe("TEST");
    // No page for other clients (Apollo's CDN landing page is gone in every environment).
    const json = await fetch(`${server.baseUrl}/graphql`, { headers: { accept: "application/json" }, redirect: "manual" });
    expect(json.status).toBe(400);
  });
});

describe("the explorer in Chromium", () => {
  it("is in the navigation; an admin runs the default query and a typed one, with no CSP violation", async () => {
    await shop.test.post("/api/v1/orders", orderInput({ externalOrderId: "EXPLORE-1", customerName: "Noura Saleh" }));
    const session = await signedIn(server, ADMIN);
    const { page } = session;
    const workers: string[] = [];
    page.on("worker", (worker) => workers.push(worker.url()));
    const answers = graphqlAnswers(page);
    const violations: string[] = [];
    await page.exposeFunction("reportViolation", (text: string) => violations.push(text));
    await page.addInitScript(() =>
      (globalThis as any).document.addEventListener("securitypolicyviolation", (event: any) =>
        (globalThis as any).reportViolation(`${event.violatedDirective} ${event.blockedURI}`),
      ),
    );

    await session.nav("API explorer").click();
    await page.waitForURL(/\/console\/explorer$/);
    const explorer = session.explorer();
    await explorer.ready();
    expect(await page.getByTestId("explorer-rule").textContent()).toMatch(/same depth and cost limits/);
    await explorer.run();
    await expect.poll(() => explorer.response()).toContain("Explorer Shop");
    expect(await explorer.response()).toContain("EXPLORE-1");
    const first = answers.at(-1);
    expect(first.status).toBe(200);
    expect(first.body.data.viewer.user.email).toBe(ADMIN.email);

    await explorer.write("{ viewer { mode merchant { id } } }");
    await explorer.run();
    await expect.poll(() => answers.at(-1)?.request?.query).toBe("{ viewer { mode merchant { id } } }");
    await expect.poll(() => explorer.response()).toContain(shop.id);
    expect(answers.at(-1).body.data.viewer.mode).toBe("TEST");
    // The editor's language services ran in the build's own worker files.
    expect(workers.some((url) => /\/console\/assets\/graphql\.worker-[\w-]+\.js$/.test(url))).toBe(true);
    await session.screenshot("explorer");
    expect(violations).toEqual([]);
    expect(session.errors).toEqual([]);

    // The page's CSP still refuses inline script.
    const ran = await page.evaluate(() => {
      const document = (globalThis as any).document;
      const script = document.createElement("script");
      script.textContent = "globalThis.inlineRan = true";
      document.head.append(script);
      return (globalThis as any).inlineRan === true;
    });
    expect(ran).toBe(false);
    await expect.poll(() => violations.filter((v) => v.startsWith("script-src"))).toHaveLength(1);

    // Leaving the explorer is a full page load: the next page runs under the strict CSP again.
    const [document] = await Promise.all([
      page.waitForResponse((response) => response.request().resourceType() === "document"),
      session.nav("Orders").click(),
    ]);
    expect(document.url()).toMatch(/\/console\/orders$/);
    expect(await document.headerValue("content-security-policy")).not.toContain("unsafe-inline");
    await session.rowFor("EXPLORE-1").waitFor();
    await session.close();
  });

  it("runs a subscription live over the session's websocket", async () => {
    const session = await signedIn(server, ADMIN);
    await session.goto("/explorer");
    const explorer = session.explorer();
    await explorer.ready();
    await explorer.write("subscription { orderStatusChanged { event order { externalOrderId } } }");
    await explorer.run();
    await session.page.getByRole("button", { name: /^Stop query/ }).waitFor();
    // The subscription is registered once the socket is up; place orders until one arrives (the first may precede it).
    await expect
      .poll(
        async () => {
          await shop.test.post("/api/v1/orders", orderInput({ externalOrderId: `LIVE-${Date.now()}` }));
          return explorer.response();
        },
        { timeout: 10_000, interval: 300 },
      )
      .toMatch(/"order\.created"[\s\S]*LIVE-\d+/);
    expect(session.errors).toEqual([]);
    await session.close();
  });

  it("lets a viewer run queries and refuses a mutation cleanly (403 FORBIDDEN in the response), in Arabic chrome", async () => {
    const session = await ConsoleSession.open(browser, server.baseUrl);
    await session.context.addInitScript(() => (globalThis as any).localStorage.setItem("ocs.console.language", "ar"));
    await session.goto("/sign-in");
    await session.signIn(VIEWER.email, VIEWER.password);
    await session.page.getByTestId("signed-in-as").waitFor();
    const answers = graphqlAnswers(session.page);
    await session.goto("/explorer");
    // index.html ships ltr; the app sets rtl once it has rendered.
    await session.page.locator('html[dir="rtl"]').waitFor({ state: "attached" });
    expect(await session.page.locator(".explorer-frame").getAttribute("dir")).toBe("ltr");
    const explorer = session.explorer();
    await explorer.ready();
    expect(await session.page.getByRole("heading", { level: 1 }).textContent()).toBe("مستكشف API");
    await explorer.write("{ viewer { user { role } } }");
    await explorer.run();
    await expect.poll(() => explorer.response()).toContain("VIEWER");

    await explorer.write('mutation { cancelOrder(id: "00000000-0000-0000-0000-000000000000") { userErrors { code } } }');
    await explorer.run();
    await expect.poll(() => explorer.response()).toContain("FORBIDDEN");
    const overflow = await session.page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    // At 1280 px the navigation keeps one line in Arabic, beside a viewer's long e-mail and role (cut with an ellipsis).
    const navTops = await session.nav(/./).evaluateAll((links: any[]) => links.map((link) => Math.round(link.getBoundingClientRect().top)));
    expect(navTops.length).toBe(8);
    expect(new Set(navTops).size).toBe(1);
    // The answers are collected asynchronously (each body is read in another round trip to the browser).
    await expect.poll(() => answers.at(-1)?.status).toBe(403);
    const refused = answers.at(-1);
    expect(refused.body.data ?? null).toBeNull();
    await session.screenshot("explorer");
    // The browser logs the 403 as a failed request; nothing else went wrong.
    expect(session.errors.filter((e) => !/status of 403/.test(e))).toEqual([]);
    await session.close();
  });

  it("fits a phone, and reaches the editor and the run button by keyboard (screenshot en phone)", async () => {
    const session = await signedIn(server, ADMIN, { width: 390, height: 844 });
    const { page } = session;
    await session.goto("/explorer");
    await session.explorer().ready();
    const overflow = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await session.screenshot("explorer");
    // The response pane is below the editors, as wide as the page allows.
    const response = await page.locator(".graphiql-response").boundingBox();
    expect(response!.width).toBeGreaterThan(200);
    // From the page's top, Tab reaches the query editor (Monaco's textarea) and, past it, the run button.
    await page.locator("body").click({ position: { x: 1, y: 1 } });
    const focused = () => page.evaluate(() => {
      const active = (globalThis as any).document.activeElement;
      return `${active?.tagName}|${active?.getAttribute("aria-label") ?? ""}|${active?.closest(".graphiql-query-editor") ? "query-editor" : ""}`;
    });
    const seen: string[] = [];
    for (let i = 0; i < 40 && !seen.some((f) => f.endsWith("query-editor")); i++) {
      await page.keyboard.press("Tab");
      seen.push(await focused());
    }
    expect(seen.some((f) => f.endsWith("query-editor"))).toBe(true);
    // Ctrl+M: Tab moves focus out of the editor instead of indenting (Monaco's documented accessibility toggle).
    await page.keyboard.press("Control+M");
    const after: string[] = [];
    for (let i = 0; i < 10 && !after.some((f) => f.includes("Execute query")); i++) {
      await page.keyboard.press("Tab");
      after.push(await focused());
    }
    expect(after.some((f) => f.includes("Execute query"))).toBe(true);
    await page.keyboard.press("Enter");
    await expect.poll(() => session.explorer().response()).toMatch(/Explorer\s+Shop/);
    expect(session.errors).toEqual([]);
    await session.close();
  });
});

describe("with trusted documents on (CONSOLE_TRUSTED_DOCUMENTS=true, the production default)", () => {
  let strict: TestServer;
  let strictShop: TestMerchant;
  const cookies: Record<string, string> = {};

  beforeAll(async () => {
    strict = await startTestServer({ CONSOLE_TRUSTED_DOCUMENTS: "true" });
    strictShop = await strict.merchant("Strict Shop");
    await strict.app.services.users.create(strictShop.id, ADMIN.email, "admin", ADMIN.password);
    await strict.app.services.users.create(strictShop.id, VIEWER.email, "viewer", VIEWER.password);
    for (const [role, user] of Object.entries({ admin: ADMIN, viewer: VIEWER })) {
      const response = await fetch(`${strict.baseUrl}/api/v1/session`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(user),
      });
      expect(response.status).toBe(200);
      cookies[role] = response.headers.get("set-cookie")!.split(";")[0];
    }
  });
  afterAll(async () => {
    await strict?.close();
  });

  const graphql = async (query: string, headers: Record<string, string>) => {
    const response = await fetch(`${strict.baseUrl}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ query }),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const EXPLORER = { "x-ocs-explorer": "1" };
  // Four full pages of 100 orders with their items: about 4 × 400, above the cost limit of 1,000.
  const COSTLY = `{ ${["a", "b", "c", "d"].map((alias) => `${alias}: orders(first: 100) { edges { node { id items { productName } } } }`).join(" ")} }`;

  it("accepts an admin's own documents from the explorer, within the same cost limit as an API key", async () => {
    const own = await graphql("{ viewer { user { role } } }", { cookie: cookies.admin, ...EXPLORER });
    expect(own.status).toBe(200);
    expect(own.body.data.viewer.user.role).toBe("ADMIN");
    const withoutHeader = await graphql("{ viewer { user { role } } }", { cookie: cookies.admin });
    expect(withoutHeader.status).toBe(400);
    expect(withoutHeader.body.errors[0].extensions.code).toBe("PERSISTED_QUERY_NOT_SUPPORTED");
    const costly = await graphql(COSTLY, { cookie: cookies.admin, ...EXPLORER });
    const costlyWithKey = await graphql(COSTLY, { "x-api-key": strictShop.keys.test });
    for (const answer of [costly, costlyWithKey]) {
      expect(answer.status).toBe(400);
      expect(answer.body.errors[0].message).toMatch(/^The query costs \d+, more than the limit of 1000/);
      expect(answer.body.errors[0].extensions).toMatchObject({ cost: 1600, maxCost: 1000 });
      expect(answer.body.data).toBeUndefined();
    }
  });

  it("refuses a viewer's own documents, even from the explorer, with a message that says why (en/ar)", async () => {
    const refused = await graphql("{ viewer { mode } }", { cookie: cookies.viewer, ...EXPLORER });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].extensions.code).toBe("PERSISTED_QUERY_NOT_SUPPORTED");
    expect(refused.body.errors[0].message).toMatch(/only admins may run their own queries/);
    expect(refused.body.data).toBeUndefined();
    const arabic = await graphql("{ viewer { mode } }", { cookie: cookies.viewer, ...EXPLORER, "accept-language": "ar" });
    expect(arabic.body.errors[0].message).toMatch(/[\u0600-\u06FF]/);
  });

  it("runs an admin's query in the explorer in Chromium", async () => {
    const session = await signedIn(strict, ADMIN);
    await session.goto("/explorer");
    const explorer = session.explorer();
    await explorer.ready();
    await explorer.write("{ viewer { merchant { name } } }");
    await explorer.run();
    await expect.poll(() => explorer.response()).toContain("Strict Shop");
    expect(session.errors).toEqual([]);
    await session.close();
  });
});

describe("a session that ends while the console is open", () => {
  /** Every websocket the page opens, to check that none is left open once the session ended. */
  function sockets(page: Page): WebSocket[] {
    const opened: WebSocket[] = [];
    page.on("websocket", (socket) => opened.push(socket));
    return opened;
  }

  it("revoked server-side: the next navigation shows sign-in with 'your session has ended', the live socket is closed, and signing in returns", async () => {
    const session = await ConsoleSession.open(browser, server.baseUrl);
    const { page } = session;
    const opened = sockets(page);
    await session.goto("/sign-in");
    await session.signIn(ADMIN.email, ADMIN.password);
    await page.locator('[data-testid="live-state"][data-state="live"]').waitFor();
    expect(opened.filter((socket) => !socket.isClosed())).toHaveLength(1);

    const token = (await session.context.cookies()).find((cookie) => cookie.name === "__Host-ocs_session")!.value;
    expect(await server.app.services.sessions.signOut(token)).toBe(true);

    // The server's re-check of live sockets (every 30 s) may find the session ended first: the console then shows
    // sign-in by itself, for the page it was on, and the link is gone before the click lands. The same outcome.
    const clicked = session.nav("API keys").click().catch(() => "the page had already left the orders");
    await page.waitForURL(/\/console\/sign-in\?next=%2F(keys|orders)$/);
    await clicked;
    const next = decodeURIComponent(new URL(page.url()).searchParams.get("next")!);
    // The URL changes before the sign-in page has rendered: wait for the message rather than read it at once.
    await page.getByText("Your session has ended. Sign in again to continue.").waitFor();
    await expect.poll(() => opened.every((socket) => socket.isClosed())).toBe(true);
    const socketsWhenEnded = opened.length;
    await session.screenshot("session-ended");

    await session.signIn(ADMIN.email, ADMIN.password);
    await page.waitForURL(new RegExp(`/console${next}$`));
    await (next === "/keys" ? page.getByTestId("keys-table") : page.getByRole("heading", { name: "Orders" })).waitFor();
    // Still closed: the sign-in page opened no socket of its own.
    expect(opened.slice(0, socketsWhenEnded).every((socket) => socket.isClosed())).toBe(true);
    expect(session.errors).toEqual([]);
    await session.close();
  });

  it("expired in the database while in the explorer: running a query shows sign-in, then the explorer again", async () => {
    const session = await signedIn(server, ADMIN);
    const { page } = session;
    await session.goto("/explorer");
    const explorer = session.explorer();
    await explorer.ready();
    const expired = await server.app.services.database.prisma.session.updateMany({
      where: { user: { email: ADMIN.email } },
      data: { expiresAt: new Date(Date.now() - 1_000) },
    });
    expect(expired.count).toBeGreaterThan(0);
    // The query finds the session ended. The server's re-check of live sockets (every 30 s) may find it first and the
    // console then shows sign-in by itself, taking the button away before the click lands: the same outcome.
    const clicked = explorer.run().catch(() => "the page had already left the explorer");
    await page.waitForURL(/\/console\/sign-in\?next=%2Fexplorer$/);
    await clicked;
    await page.getByText("Your session has ended. Sign in again to continue.").waitFor();
    await session.signIn(ADMIN.email, ADMIN.password);
    await page.waitForURL(/\/console\/explorer$/);
    await session.explorer().ready();
    await session.close();
  });

  it("ended while idle: the server's re-check closes the live socket (4403) and the console shows sign-in by itself", async () => {
    const quick = await startTestServer({}, { subscriptions: { recheckKeysEveryMs: 300 } });
    try {
      const merchant = await quick.merchant("Quick Shop");
      await quick.app.services.users.create(merchant.id, ADMIN.email, "admin", ADMIN.password);
      const session = await ConsoleSession.open(browser, quick.baseUrl);
      const { page } = session;
      const opened = sockets(page);
      await session.goto("/sign-in");
      await session.signIn(ADMIN.email, ADMIN.password);
      await page.locator('[data-testid="live-state"][data-state="live"]').waitFor();
      const token = (await session.context.cookies()).find((cookie) => cookie.name === "__Host-ocs_session")!.value;
      await quick.app.services.sessions.signOut(token);
      await page.waitForURL(/\/console\/sign-in\?next=%2Forders$/);
      await page.getByText("Your session has ended. Sign in again to continue.").waitFor();
      await expect.poll(() => opened.every((socket) => socket.isClosed())).toBe(true);
      // No reconnection attempts after the refusal.
      // graphql-ws would retry after 1.3–4 s: wait past that.
      const count = opened.length;
      await page.waitForTimeout(4_500);
      expect(opened.length).toBe(count);
      await session.close();
    } finally {
      await quick.close();
    }
  });
});
