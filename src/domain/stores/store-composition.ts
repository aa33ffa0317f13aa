import type { FastifyPluginAsync } from "fastify";
import type { Logger } from "pino";
import type { AppServices } from "../../app-services.ts";
import type { Config } from "../../config.ts";
import type { Database } from "../../db/database.ts";
import { shopifyRoutes } from "../../http/routes/shopify.routes.ts";
import { sallaRoutes } from "../../http/routes/salla.routes.ts";
import { wooCommerceRoutes } from "../../http/routes/woocommerce.routes.ts";
import { SallaClient } from "../../providers/salla/salla-client.ts";
import { SallaConnector } from "../../providers/salla/salla.connector.ts";
import { ShopifyConnector } from "../../providers/shopify/shopify.connector.ts";
import { fetchTransport, guardedTransport } from "../../providers/store-support/store-http.ts";
import { WooCommerceClient } from "../../providers/woocommerce/woocommerce-client.ts";
import { WooCommerceConnector } from "../../providers/woocommerce/woocommerce.connector.ts";
import { startStoreMaintenance } from "../../workers/store-maintenance.ts";
import { StoreIntakeWorker } from "../../workers/store-intake.worker.ts";
import { StoreWritebackWorker } from "../../workers/store-writeback.worker.ts";
import type { OrderEventBus } from "../orders/order-events.bus.ts";
import type { OrderService } from "../orders/order.service.ts";
import type { PublicUrls } from "../public-urls.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { Connectors } from "./store.service.ts";
import { NO_AUDIT, StoreService, type StoreAuditSink } from "./store.service.ts";
import { StoreInstallRepository } from "./store-install.repository.ts";
import { StoreRepository } from "./store.repository.ts";
import { SallaLinks } from "./salla-link.ts";
import { WooCommerceConnect } from "./woocommerce-connect.ts";

/**
 * The store connectors' part of the composition root (kept here so app.ts grows by a few lines): the registry of
 * platform connectors (each built only when its app credentials are configured), the service, its two workers and
 * its routes.
 */
export function buildStores(deps: {
  config: Config;
  database: Database;
  secrets: SecretBox;
  publicUrls: PublicUrls;
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
  // WooCommerce needs no app of ours: every merchant's store is reached at the URL they give, through the SSRF
  // guard (WEBHOOK_ALLOW_PRIVATE_URLS and WEBHOOK_DNS_SERVERS apply as for webhook endpoints).
  const wooCommerceClient = new WooCommerceClient(
    guardedTransport({ timeoutMs: config.stores.timeoutMs, allowPrivate: config.webhooks.allowPrivateUrls, dnsServers: config.webhooks.dnsServers }),
  );
  const woocommerce = new WooCommerceConnector(wooCommerceClient);
  const sallaApp = config.stores.salla;
  const salla =
    sallaApp.clientId && sallaApp.clientSecret && sallaApp.webhookSecret
      ? new SallaConnector(
          new SallaClient(
            { apiUrl: sallaApp.apiUrl, authUrl: sallaApp.authUrl, clientId: sallaApp.clientId, clientSecret: sallaApp.clientSecret },
            fetchTransport({ timeoutMs: config.stores.timeoutMs }),
          ),
        )
      : null;
  const connectors: Connectors = { ...(shopify ? { shopify } : {}), woocommerce, ...(salla ? { salla } : {}) };
  const service = new StoreService(repository, deps.orderService, deps.secrets, connectors, logger.child({ component: "stores" }), deps.audit ?? NO_AUDIT);
  const wooCommerce = new WooCommerceConnect(
    service,
    wooCommerceClient,
    deps.publicUrls,
    { allowPrivate: config.webhooks.allowPrivateUrls, dnsServers: config.webhooks.dnsServers },
    logger.child({ component: "woocommerce" }),
  );
  const sallaLinks = salla ? new SallaLinks(database.prisma, service, repository, deps.secrets, logger.child({ component: "salla" })) : null;
  let sallaPurge: NodeJS.Timeout | null = null;
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
    wooCommerce,
    sallaLinks,
    /** Routes need the finished AppServices; app.ts passes them through `routesFor`. */
    routesFor(services: AppServices): FastifyPluginAsync[] {
      return [shopifyRoutes(services, installs, shopify), wooCommerceRoutes(services), ...(sallaLinks ? [sallaRoutes(services, sallaLinks)] : [])];
    },
    start() {
      intake.start();
      writeback.start();
      maintenance = startStoreMaintenance(repository, installs, logger);
      if (sallaLinks) {
        sallaPurge = setInterval(() => void sallaLinks.purge().catch((error) => logger.warn({ err: error }, "salla link purge failed")), 60 * 60 * 1000);
        sallaPurge.unref();
      }
    },
    async stop() {
      maintenance?.stop();
      if (sallaPurge) clearInterval(sallaPurge);
      await intake.stop();
      await writeback.stop();
    },
  };
}
