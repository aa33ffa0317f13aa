import type { Logger } from "pino";
import type { Config } from "./config.ts";
import { createApp } from "./app.ts";

/**
 * `npm start` / `ocs serve`: migrate, serve, and on a brand-new database create the demo merchant whose
 * test key is printed once. SIGINT/SIGTERM close everything in order.
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

  if (!(await app.services.merchantService.hasMerchants())) {
    const demo = await app.services.merchantService.createMerchant("Demo Shop");
    const demoUser = await app.services.users.create(demo.merchant.id, DEMO_USER_EMAIL, "admin");
    printDemoBanner(base, demo.merchant.id, demo.keys.test, { email: demoUser.user.email, password: demoUser.generatedPassword! });
  } else {
    console.log(`\n  Order Confirmation Service on ${base}  (console: ${base}/console, API docs: ${base}/docs, simulator: ${base}/simulator)\n`);
  }
}

function publicBaseUrl(address: string, host: string): string {
  return host === "0.0.0.0" || host === "::" ? address.replace(/\/\/[^:/]+|\/\/\[[^\]]+\]/, "//localhost") : address;
}

/** The console user of the demo merchant, created on the first start with a generated password (printed once). */
export const DEMO_USER_EMAIL = "demo@example.com";

function printDemoBanner(base: string, merchantId: string, testKey: string, user: { email: string; password: string }): void {
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
  console.log(lines.join("\n"));
}
