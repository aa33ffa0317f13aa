import type { FastifyPluginAsync } from "fastify";
import type { Logger } from "pino";
import type { AppServices } from "../../app-services.ts";
import type { Config } from "../../config.ts";
import type { Database } from "../../db/database.ts";
import { shopifyRoutes } from "../../http/routes/shopify.routes.ts";
import { ShopifyConnector } from "../../providers/shopify/shopify.connector.ts";
import { startStoreMaintenance } from "../../workers/store-maintenance.ts";
import { StoreIntakeWorker } from "../../workers/store-intake.worker.ts";
import { StoreWritebackWorker } from "../../workers/store-writeback.worker.ts";
import type { OrderEventBus } from "../orders/order-events.bus.ts";
import type { OrderService } from "../orders/order.service.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { Connectors } from "./store.service.ts";
import { NO_AUDIT, StoreService, type StoreAuditSink } from "./store.service.ts";
import { StoreInstallRepository } from "./store-install.repository.ts";
import { StoreRepository } from "./store.repository.ts";

/**
 * The store connectors' part of the composition root (kept here so app.ts grows by a few lines): the registry of
 * platform connectors (each built only when its app credentials are configured), the service, its two workers and
 * its routes.
 */
export function buildStores(deps: {
  config: Config;
  database: Database;
  secrets: SecretBox;
  orderService: OrderService;
  bus: OrderEventBus;
  logger: Logger;
  /** AUDIT HOOK (SPEC §14, issue 19): pass the audit log here to record `store.connected` / `store.disconnected`. */
  audit?: StoreAuditSink;
}) {
  const { config, database, logger } = deps;
  const repository = new StoreRepository(database.prisma, database.pool);
  const installs = new StoreInstallRepository(database.prisma);
  const shopifyApp = config.stores.shopify;
  const shopify =
    shopifyApp.clientId && shopifyApp.clientSecret
      ? new ShopifyConnector({
          clientId: shopifyApp.clientId,
          clientSecret: shopifyApp.clientSecret,
          shopOrigin: shopifyApp.shopOrigin,
          apiVersion: shopifyApp.apiVersion,
          scopes: shopifyApp.scopes,
          timeoutMs: config.stores.timeoutMs,
        })
      : null;
  // WooCommerce and Salla register here the same way (issue: store connectors, part 2).
  const connectors: Connectors = { ...(shopify ? { shopify } : {}) };
  const service = new StoreService(repository, deps.orderService, deps.secrets, connectors, logger.child({ component: "stores" }), deps.audit ?? NO_AUDIT);
  const intake = new StoreIntakeWorker({ stores: repository, service, logger });
  const writeback = new StoreWritebackWorker(
    { stores: repository, service, bus: deps.bus, logger },
    { retryScheduleMs: config.webhooks.retryScheduleMs, timeoutMs: config.stores.timeoutMs },
  );
  let maintenance: { stop(): void } | null = null;
  return {
    service,
    intake,
    writeback,
    /** Routes need the finished AppServices; app.ts passes them through `routesFor`. */
    routesFor(services: AppServices): FastifyPluginAsync[] {
      return [shopifyRoutes(services, installs, shopify)];
    },
    start() {
      intake.start();
      writeback.start();
      maintenance = startStoreMaintenance(repository, installs, logger);
    },
    async stop() {
      maintenance?.stop();
      await intake.stop();
      await writeback.stop();
    },
  };
}
