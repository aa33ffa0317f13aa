import pino from "pino";
import { loadConfig, type Config } from "../../src/config.ts";
import { createApp, type CreateAppOptions, type RunningApp } from "../../src/app.ts";
import { createTestDatabase } from "./database.ts";
import { ApiClient } from "./api.ts";

export interface TestServer {
  baseUrl: string;
  app: RunningApp;
  config: Config;
  /** A client with no key; use `merchant()` for an authenticated one. */
  api: ApiClient;
  /** A new merchant with its live and test keys, and clients for both. */
  merchant(name?: string): Promise<TestMerchant>;
  /** The outbox rows of one order, in commit order. */
  outbox(orderId: string): Promise<{ id: string; type: string; payload: any; createdAt: Date }[]>;
  close(): Promise<void>;
}

export interface TestMerchant {
  id: string;
  keys: { live: string; test: string };
  test: ApiClient;
  live: ApiClient;
}

/** Boots the real service (own database, real HTTP on a random loopback port). */
export async function startTestServer(
  env: Record<string, string> = {},
  /** A `logger` here replaces the silent default (tests that read the log pass their own). */
  options: Partial<CreateAppOptions> = {},
): Promise<TestServer> {
  const database = await createTestDatabase();
  const config = loadConfig({ HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent", ...env });
  config.database = database.target;
  const app = await createApp(config, { logger: pino({ level: config.logLevel }), ...options });
  const address = await app.http.listen({ port: 0, host: "127.0.0.1" });
  const api = new ApiClient(address);
  return {
    baseUrl: address,
    app,
    config,
    api,
    async merchant(name = "Test Shop") {
      const created = await app.services.merchantService.createMerchant(name);
      return {
        id: created.merchant.id,
        keys: created.keys,
        test: api.withKey(created.keys.test),
        live: api.withKey(created.keys.live),
      };
    },
    outbox(orderId) {
      return app.services.database.prisma.orderEvent.findMany({ where: { orderId }, orderBy: { sequence: "asc" } });
    },
    async close() {
      await app.close();
      await database.drop();
    },
  };
}
