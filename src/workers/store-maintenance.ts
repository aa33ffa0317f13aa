import type { Logger } from "pino";
import type { StoreInstallRepository } from "../domain/stores/store-install.repository.ts";
import type { StoreRepository } from "../domain/stores/store.repository.ts";

const EVERY_MS = 10 * 60 * 1000;
/** Dedupe records of deliveries outlive Shopify's 48 hours of retries by a day. */
const DELIVERY_RETENTION_MS = 3 * 24 * 60 * 60 * 1000;

/** Bounds the store tables: expired installs, old delivery dedupe records, activity beyond its cap per connection. */
export function startStoreMaintenance(stores: StoreRepository, installs: StoreInstallRepository, logger: Logger): { stop(): void } {
  const run = async () => {
    try {
      await installs.purgeExpired(new Date());
      await stores.purgeDeliveries(new Date(Date.now() - DELIVERY_RETENTION_MS));
      await stores.trimActivity();
    } catch (error) {
      logger.warn({ err: error }, "store maintenance failed");
    }
  };
  const timer = setInterval(() => void run(), EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
