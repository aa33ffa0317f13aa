import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Logger } from "pino";
import type { Config } from "./config.ts";
import { createApp } from "./app.ts";
import { cliSource } from "./domain/audit/audit-log.ts";

/**
 * `npm start` / `ocs serve`: migrate, serve, and on a brand-new database create the demo merchant whose
 * test key is shown once (SPEC §14: not with NODE_ENV=production unless DEMO=true; the credentials go to the
 * terminal, never into a log stream). SIGINT/SIGTERM close everything in order.
 */
export async function serve(config: Config, logger: Logger): Promise<void> {
  // Installed before the database opens: a signal during start-up (initdb, migrations) still closes it cleanly.
  let app: Awaited<ReturnType<typeof createApp>> | null = null;
  let stopRequested: string | null = null;
  let closing = false;
  const shutdown = async (signal: string) => {
    if (!app) {
      stopRequested = signal;
      return;
    }
    if (closing) return; // a second Ctrl-C while closing must not cut the database's close short
    closing = true;
    logger.info({ signal }, "shutting down");
    const force = setTimeout(() => process.exit(1), 10_000).unref();
    await app.close();
    clearTimeout(force);
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  app = await createApp(config, { logger });
  if (stopRequested) return shutdown(stopRequested);

  let address: string;
  try {
    address = await app.http.listen({ port: config.http.port, host: config.http.host });
  } catch (error) {
    // Port taken or not allowed: release the database (and its lock) before reporting.
    await app.close();
    throw error;
  }
  const base = publicBaseUrl(address, config.http.host);
  logger.info({ address, database: app.services.database.embedded ? "embedded" : "postgresql" }, "listening");

  const empty = !(await app.services.merchantService.hasMerchants());
  if (empty && config.production && !config.demo) {
    logger.info("production: no demo merchant is created on an empty database (DEMO=true would); create one with `ocs merchants create`");
    console.log(`\n  Order Confirmation Service on ${base}  (no merchant yet: npx ocs merchants create --name <name>)\n`);
  } else if (empty) {
    const source = cliSource("first start");
    const demo = await app.services.merchantService.createMerchant("Demo Shop", source);
    const demoUser = await app.services.users.create(demo.merchant.id, DEMO_USER_EMAIL, "admin", undefined, source);
    const banner = demoBanner(base, demo.merchant.id, demo.keys.test, { email: demoUser.user.email, password: demoUser.generatedPassword! });
    showCredentials(banner, config, logger);
  } else {
    console.log(`\n  Order Confirmation Service on ${base}  (console: ${base}/console, API docs: ${base}/docs, simulator: ${base}/simulator)\n`);
  }
}

function publicBaseUrl(address: string, host: string): string {
  return host === "0.0.0.0" || host === "::" ? address.replace(/\/\/[^:/]+|\/\/\[[^\]]+\]/, "//localhost") : address;
}

/** The console user of the demo merchant, created on the first start with a generated password (printed once). */
export const DEMO_USER_EMAIL = "demo@example.com";

/** Where the first start's credentials go when stdout is not a terminal (a log collector would keep them). */
export const FIRST_START_FILE = "first-start.txt";

/**
 * The credentials reach a person, never a log stream: on a terminal they are printed; otherwise (stdout piped to
 * a log collector, a container's log) they are written to DATA_DIR/first-start.txt (mode 0600) and only its path
 * is logged.
 */
function showCredentials(banner: string, config: Config, logger: Logger): void {
  if (process.stdout.isTTY) {
    console.log(banner);
    return;
  }
  const file = path.resolve(config.dataDir, FIRST_START_FILE);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${banner}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  logger.warn({ firstStartFile: file }, "first start: the demo merchant's test key and console password were written to this file (mode 0600), not to the log; read it, then delete it");
}

function demoBanner(base: string, merchantId: string, testKey: string, user: { email: string; password: string }): string {
  const lines = [
    "",
    "  Order Confirmation Service is ready (first start: a demo merchant was created)",
    "",
    `  Demo merchant:  ${merchantId}`,
    `  Test API key:   ${testKey}`,
    "                  (shown once; test keys send to the built-in WhatsApp simulator)",
    `  Console user:   ${user.email}`,
    `  Password:       ${user.password}`,
    "                  (shown once; sign in at the console below)",
    "",
    `  Console:        ${base}/console`,
    `  API docs:       ${base}/docs`,
    `  OpenAPI:        ${base}/api/v1/openapi.json`,
    `  Simulator:      ${base}/simulator`,
    `  GraphQL:        ${base}/graphql (subscriptions: ${base.replace(/^http/, "ws")}/graphql)`,
    "",
    "  Try it:",
    `    export OCS_KEY=${testKey}`,
    `    curl -s ${base}/api/v1/orders -H "X-API-Key: $OCS_KEY" -H 'Content-Type: application/json' \\`,
    `      -d '{"externalOrderId":"ORD-1","customerName":"Layla","customerPhone":"966501234567","subtotal":100,"shippingCost":10,"totalCost":110,"currency":"SAR","items":[{"productName":"Tea","quantity":2,"unitPrice":50,"totalPrice":100}]}'`,
    "",
  ];
  return lines.join("\n");
}
