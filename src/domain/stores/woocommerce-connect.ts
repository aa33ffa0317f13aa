import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import { z } from "zod";
import { problemFromIssue } from "../../i18n/zod-issues.ts";
import { checkStoreUrl } from "../../providers/woocommerce/store-url.ts";
import type { WooCommerceClient } from "../../providers/woocommerce/woocommerce-client.ts";
import { ValidationError, type FieldProblem } from "../errors.ts";
import type { MerchantScope } from "../orders/order.repository.ts";
import type { PublicUrls } from "../public-urls.ts";
import type { UrlGuardOptions } from "../webhooks/url-guard.ts";
import type { StoreActor, StoreConnectionView, StoreService } from "./store.service.ts";

/**
 * Connecting a WooCommerce store (SPEC §13, `connectWooCommerceStore`): the URL is made canonical and passed
 * through the SSRF guard (https required unless private URLs are allowed), the key is checked against the store's
 * `/wp-json/wc/v3/`, the connection is stored with a generated webhook secret (sealed with the key), and only then
 * is the store's `order.created` webhook created, because WooCommerce pings the delivery URL while creating it.
 * A webhook the store would not create undoes the connection, so a connection listed as ACTIVE always has one.
 */
export const connectWooCommerceInput = z.object({
  url: z.string().max(500),
  consumerKey: z.string().trim().regex(/^ck_[A-Za-z0-9]{10,100}$/, { error: "i18n:format.woocommerce_key" }),
  consumerSecret: z.string().trim().regex(/^cs_[A-Za-z0-9]{10,100}$/, { error: "i18n:format.woocommerce_secret" }),
});

export type ConnectWooCommerceInput = z.infer<typeof connectWooCommerceInput>;

const URL_PROBLEM_KEYS = {
  format: "field.store.url",
  https_required: "field.store.https_required",
  credentials: "field.store.credentials_in_url",
  private_address: "field.store.private_address",
} as const;

export class WooCommerceConnect {
  constructor(
    private readonly stores: StoreService,
    private readonly client: WooCommerceClient,
    private readonly publicUrls: PublicUrls,
    private readonly guard: UrlGuardOptions,
    private readonly logger: Logger,
  ) {}

  async connect(scope: MerchantScope, input: unknown, actor: StoreActor): Promise<StoreConnectionView> {
    const parsed = connectWooCommerceInput.safeParse(input);
    if (!parsed.success) throw new ValidationError(parsed.error.issues.map((issue) => problemFromIssue(issue, "input")));
    const { consumerKey, consumerSecret } = parsed.data;
    const url = await checkStoreUrl(parsed.data.url, this.guard);
    if (!url.ok) throw invalid("url", URL_PROBLEM_KEYS[url.problem]);

    const credentials = { storeUrl: url.url, consumerKey, consumerSecret };
    const check = await this.client.checkCredentials(credentials);
    if (!check.ok) {
      if (check.problem === "bad_credentials") throw invalid("consumerKey", "field.store.bad_credentials");
      throw invalid("url", check.problem === "unreachable" ? "field.store.unreachable" : "field.store.not_woocommerce", { detail: check.detail });
    }

    const webhookSecret = randomBytes(32).toString("base64url");
    const connection = await this.stores.connect(
      scope,
      "woocommerce",
      url.shop,
      { accessToken: consumerSecret, consumerKey, storeUrl: url.url, webhookSecret, webhookId: null },
      actor,
    );
    if (!connection) throw invalid("url", "field.store.already_connected");

    const created = await this.client.createOrderWebhook(credentials, {
      name: "Order confirmation (WhatsApp COD)",
      deliveryUrl: this.publicUrls.to(`/webhooks/woocommerce/${connection.id}`),
      secret: webhookSecret,
    });
    if (!created.ok) {
      this.logger.warn({ connectionId: connection.id, status: created.status }, "woocommerce webhook creation failed");
      await this.stores.disconnect(scope, connection.id, actor);
      throw invalid("url", "field.store.webhook_failed", { detail: created.detail });
    }
    await this.stores.updateCredentials(connection.id, (current) => ({ ...current, webhookId: created.value.webhookId }));
    await this.stores.activity(connection.id, "webhook_created", null, null, { webhookId: created.value.webhookId });
    return connection;
  }
}

function invalid(field: string, key: string, params?: Record<string, string>): ValidationError {
  const problem: FieldProblem = { field: `input.${field}`, key, ...(params ? { params } : {}) };
  return new ValidationError([problem]);
}
