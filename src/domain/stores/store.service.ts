import type { Logger } from "pino";
import type { Prisma } from "../../generated/prisma/client.ts";
import { DuplicateExternalOrderIdError, ProviderRejectedError, ProviderUnavailableError, ValidationError } from "../errors.ts";
import { isUuid } from "../ids.ts";
import type { MerchantScope } from "../orders/order.repository.ts";
import type { OrderService } from "../orders/order.service.ts";
import type { OrderView } from "../orders/order.view.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import { problemFromIssue } from "../../i18n/zod-issues.ts";
import { normalisePhone } from "./phone.ts";
import type { StoreConnector, StoreCredentials, StoreEvent, StorePlatform } from "./store-connector.ts";
import type { ActivityRecord, ConnectionRecord, StoreRepository } from "./store.repository.ts";
import { defaultSettings, readSettings, storeSettingsInput, type StoreSettings } from "./store-settings.ts";
import { credentialsContext } from "./credentials-context.ts";
import { findInputProblem, isStorableText } from "../storable.ts";

export { credentialsContext };

/** A connection as the doors show it: never its credentials. */
export interface StoreConnectionView {
  id: string;
  platform: StorePlatform;
  shop: string;
  mode: MerchantScope["mode"];
  status: "active" | "disconnected" | "error";
  settings: StoreSettings;
  createdAt: Date;
  lastOrderAt: Date | null;
}

/**
 * Where security-relevant store changes are recorded (SPEC §14 audit log: `store.connected`, `store.disconnected`),
 * inside the change's own transaction (never a change without its entry).
 */
export interface StoreAuditSink {
  record(
    tx: Prisma.TransactionClient,
    entry: { merchantId: string; action: "store.connected" | "store.disconnected"; target: string; actor: StoreActor },
  ): Promise<void>;
}

export type StoreActor = { kind: "USER"; id: string } | { kind: "STORE"; id: string };

export const NO_AUDIT: StoreAuditSink = { record: async () => undefined };

/** Access tokens are refreshed this long before they expire. */
const REFRESH_AHEAD_MS = 5 * 60 * 1000;
/** The refresh lease outlives one token request (bounded by STORE_TIMEOUT_MS) with room. */
const REFRESH_LEASE_MS = 60_000;

export type Connectors = Partial<Record<StorePlatform, StoreConnector>>;

export interface IntakeDelivery {
  id: string;
  platform: StorePlatform;
  topic: string;
  shop: string;
  payload: string | null;
}

interface IntakeResult {
  connectionId: string;
  storeOrderId: string | null;
  orderId: string | null;
  skipped: string | null;
  kind: string;
  detail: object;
}

/** Store orders of one intake batch created at a time (each waits on the messaging provider). */
const INTAKE_CONCURRENCY = 16;

export class StoreService {
  /** In-process coalescing of refreshes (the database lease makes it one per shop across instances). */
  private readonly refreshing = new Map<string, Promise<StoreCredentials>>();

  constructor(
    private readonly stores: StoreRepository,
    private readonly orders: OrderService,
    private readonly secrets: SecretBox,
    private readonly connectors: Connectors,
    private readonly logger: Logger,
    private readonly audit: StoreAuditSink = NO_AUDIT,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  connector(platform: StorePlatform): StoreConnector | null {
    return this.connectors[platform] ?? null;
  }

  // --- the doors (GraphQL) -----------------------------------------------------------------------------------

  async list(scope: MerchantScope): Promise<StoreConnectionView[]> {
    return (await this.stores.list(scope)).map(toView);
  }

  async recentActivity(connectionId: string, first: number): Promise<ActivityRecord[]> {
    return this.stores.activity(connectionId, Math.min(Math.max(first, 0), 100));
  }

  async updateSettings(scope: MerchantScope, id: string, input: unknown): Promise<StoreConnectionView> {
    const connection = await this.inScope(scope, id);
    const parsed = storeSettingsInput.safeParse(input);
    if (!parsed.success) throw new ValidationError(parsed.error.issues.map((issue) => problemFromIssue(issue, "input")));
    const settings = { ...readSettings(connection.platform, connection.settings), ...parsed.data };
    return toView(await this.stores.updateSettings(connection.id, settings, this.clock()));
  }

  async disconnect(scope: MerchantScope, id: string, actor: StoreActor): Promise<StoreConnectionView> {
    const connection = await this.inScope(scope, id);
    if (connection.status === "disconnected") return toView(connection);
    await this.release(connection);
    const now = this.clock();
    const updated = await this.stores.disconnect(connection.id, now, async (tx) => {
      await this.stores.addActivity(connection.id, { kind: "disconnected", storeOrderId: null, orderId: null, detail: { by: actor.kind.toLowerCase() } }, now, tx);
      await this.audit.record(tx, { merchantId: connection.merchantId, action: "store.disconnected", target: connection.id, actor });
    });
    return toView(updated);
  }

  /** The connector's clean-up on the store (best effort: a store that is down does not block a disconnect). */
  private async release(connection: ConnectionRecord): Promise<void> {
    const connector = this.connector(connection.platform);
    if (!connector?.release) return;
    try {
      const credentials = this.open(connection);
      if (credentials) await connector.release(credentials);
    } catch (error) {
      this.logger.warn({ err: error, connectionId: connection.id }, "store clean-up on disconnect failed");
    }
  }

  /** A live connection with its opened credentials (webhook verification, connect flows), or null. */
  async withCredentials(connectionId: string): Promise<{ connection: StoreConnectionView; merchantId: string; credentials: StoreCredentials } | null> {
    const connection = await this.stores.find(connectionId);
    if (!connection || connection.status === "disconnected") return null;
    const credentials = this.open(connection);
    return credentials ? { connection: toView(connection), merchantId: connection.merchantId, credentials } : null;
  }

  /** A connection's platform and status, whatever its state (a disconnected one's deliveries are answered and ignored). */
  async statusOf(connectionId: string): Promise<{ platform: StorePlatform; status: ConnectionRecord["status"] } | null> {
    const connection = await this.stores.find(connectionId);
    return connection ? { platform: connection.platform, status: connection.status } : null;
  }

  /** Rewrites a live connection's sealed credentials (a WooCommerce webhook id, Salla tokens re-authorised). */
  async updateCredentials(connectionId: string, change: (current: StoreCredentials) => StoreCredentials): Promise<void> {
    const connection = await this.stores.find(connectionId);
    if (!connection || connection.status === "disconnected") return;
    const current = this.open(connection);
    if (!current) return;
    const next = change(current);
    await this.stores.storeRefreshed(connectionId, this.seal(connectionId, next), expiryOf(next), this.clock());
  }

  private async inScope(scope: MerchantScope, id: string): Promise<ConnectionRecord> {
    const connection = isUuid(id) ? await this.stores.findInScope(scope, id.toLowerCase()) : null;
    if (!connection) throw new ValidationError([{ field: "id", key: "field.format.id" }]);
    return connection;
  }

  // --- install -----------------------------------------------------------------------------------------------

  /** Who has the shop connected right now (any merchant), or null. */
  async ownerOfShop(platform: StorePlatform, shop: string): Promise<MerchantScope | null> {
    const connection = await this.stores.findActiveByShop(platform, shop);
    return connection ? { merchantId: connection.merchantId, mode: connection.mode } : null;
  }

  /** Stores the tokens of a finished install; null when the shop is live under another merchant or mode. */
  async connect(scope: MerchantScope, platform: StorePlatform, shop: string, credentials: StoreCredentials, actor: StoreActor) {
    const result = await this.stores.connect(
      scope,
      platform,
      shop,
      defaultSettings(platform),
      (id) => ({ credentials: this.seal(id, credentials), tokenExpiresAt: expiryOf(credentials) }),
      this.clock(),
      async (tx, id) => {
        await this.stores.addActivity(id, { kind: "connected", storeOrderId: null, orderId: null, detail: { shop } }, this.clock(), tx);
        await this.audit.record(tx, { merchantId: scope.merchantId, action: "store.connected", target: id, actor });
      },
    );
    if (!result) return null;
    return toView(result.connection);
  }

  // --- credentials -------------------------------------------------------------------------------------------

  private seal(connectionId: string, credentials: StoreCredentials): string {
    return this.secrets.seal(JSON.stringify(credentials), credentialsContext(connectionId));
  }

  private open(connection: ConnectionRecord): StoreCredentials | null {
    if (!connection.credentials) return null;
    return JSON.parse(this.secrets.open(connection.credentials, credentialsContext(connection.id))) as StoreCredentials;
  }

  /**
   * The connection's credentials with an access token valid for a few more minutes: refreshed first when it is
   * about to expire, by one instance at a time (the database lease; the others wait for its result).
   */
  async freshCredentials(connectionId: string): Promise<StoreCredentials | null> {
    return (await this.writebackContext(connectionId))?.credentials ?? null;
  }

  /** What a write-back needs, in one read: the connection's platform, shop, settings and fresh credentials. */
  async writebackContext(
    connectionId: string,
  ): Promise<{ platform: StorePlatform; shop: string; settings: StoreSettings; credentials: StoreCredentials } | null> {
    const connection = await this.stores.find(connectionId);
    if (!connection || connection.status === "disconnected") return null;
    const credentials = await this.freshCredentialsOf(connection);
    return credentials
      ? { platform: connection.platform, shop: connection.shop, settings: readSettings(connection.platform, connection.settings), credentials }
      : null;
  }

  private async freshCredentialsOf(connection: ConnectionRecord): Promise<StoreCredentials | null> {
    const credentials = this.open(connection);
    if (!credentials) return null;
    if (!this.connector(connection.platform) || !needsRefresh(connection.tokenExpiresAt, this.clock())) return credentials;
    return this.coalesced(connection, (record) => needsRefresh(record.tokenExpiresAt, this.clock()), null);
  }

  /**
   * The store refused `refused` (HTTP 401: the access token expired or was revoked before its stored expiry): new
   * credentials, refreshed once across instances under the same lease as scheduled refreshes. When another caller
   * or instance has already replaced that token, its credentials are used and nothing is refreshed again (the
   * refresh token is single use on Salla: presenting it twice would revoke the chain). Null when this platform's
   * tokens cannot be refreshed (WooCommerce's keys) or the connection is gone: the caller marks it for the
   * merchant. Throws what the connector's refresh throws (`retriable: false` when the store refused the refresh).
   */
  async credentialsAfterRefusal(connectionId: string, refused: string): Promise<StoreCredentials | null> {
    const pending = this.refreshing.get(connectionId);
    if (pending) {
      const renewed = await pending;
      if (renewed.accessToken !== refused) return renewed;
    }
    const connection = await this.stores.find(connectionId);
    if (!connection || connection.status === "disconnected" || !this.connector(connection.platform)) return null;
    const current = this.open(connection);
    if (!current) return null;
    if (current.accessToken !== refused) return current;
    const renewed = await this.coalesced(
      connection,
      (record, latest) => latest.accessToken === refused || needsRefresh(record.tokenExpiresAt, this.clock()),
      "token refused",
    );
    return renewed.accessToken === refused ? null : renewed;
  }

  /** One refresh of a connection at a time in this process (callers share its result). */
  private coalesced(
    connection: ConnectionRecord,
    stale: (record: ConnectionRecord, latest: StoreCredentials) => boolean,
    reason: string | null,
  ): Promise<StoreCredentials> {
    const connectionId = connection.id;
    let pending = this.refreshing.get(connectionId);
    if (!pending) {
      pending = this.refresh(connection, stale, reason).finally(() => this.refreshing.delete(connectionId));
      this.refreshing.set(connectionId, pending);
    }
    return pending;
  }

  /**
   * Refreshes the connection's token while `stale` says its stored credentials need it, by one instance at a time
   * (the database lease): whoever takes the lease reads the row again (another instance may have refreshed in
   * between) and refreshes only if it is still stale; the others wait for the new token to land.
   */
  private async refresh(
    connection: ConnectionRecord,
    stale: (record: ConnectionRecord, latest: StoreCredentials) => boolean,
    reason: string | null,
  ): Promise<StoreCredentials> {
    const connector = this.connector(connection.platform);
    if (!connector) throw new Error("no connector for the connection's platform");
    for (let waited = 0; waited < REFRESH_LEASE_MS; waited += 250) {
      if (await this.stores.takeRefreshLease(connection.id, REFRESH_LEASE_MS)) {
        const current = await this.stores.find(connection.id);
        const latest = current ? this.open(current) : null;
        if (!current || !latest) {
          await this.stores.releaseRefreshLease(connection.id);
          throw new Error("connection gone");
        }
        if (!stale(current, latest)) {
          await this.stores.releaseRefreshLease(connection.id);
          return latest;
        }
        try {
          const renewed = await connector.refresh(connection.shop, latest);
          if (!renewed) {
            await this.stores.releaseRefreshLease(connection.id);
            return latest;
          }
          const merged = { ...latest, ...renewed, refreshToken: renewed.refreshToken ?? latest.refreshToken };
          await this.stores.storeRefreshed(connection.id, this.seal(connection.id, merged), expiryOf(merged), this.clock());
          await this.stores.addActivity(
            connection.id,
            { kind: "token_refreshed", storeOrderId: null, orderId: null, detail: reason ? { reason } : {} },
            this.clock(),
          );
          return merged;
        } catch (error) {
          await this.stores.releaseRefreshLease(connection.id);
          throw error;
        }
      }
      // Someone else is refreshing: wait for the new token to land.
      await new Promise((resolve) => setTimeout(resolve, 250));
      const current = await this.stores.find(connection.id);
      const latest = current ? this.open(current) : null;
      if (current && latest && !stale(current, latest)) return latest;
    }
    throw new Error("token refresh by another instance did not finish");
  }

  /** A connection's platform, shop, status and settings (routes and workers), or null when it is gone. */
  async connection(connectionId: string): Promise<{ platform: StorePlatform; shop: string; status: string; settings: StoreSettings } | null> {
    const connection = await this.stores.find(connectionId);
    return connection
      ? { platform: connection.platform, shop: connection.shop, status: connection.status, settings: readSettings(connection.platform, connection.settings) }
      : null;
  }

  async markUnauthorized(connectionId: string, error: string): Promise<void> {
    await this.stores.markStatus(connectionId, "error", this.clock());
    await this.stores.addActivity(connectionId, { kind: "error", storeOrderId: null, orderId: null, detail: { error } }, this.clock());
  }

  // --- inbound -----------------------------------------------------------------------------------------------

  /**
   * A verified delivery, recorded once per webhook id; the intake worker processes it after the answer. A delivery
   * whose text PostgreSQL cannot store (a NUL character or a lone surrogate, raw or escaped in its JSON) is not
   * recorded: false, answered like a redelivery (SPEC §13: every verified delivery gets a 2xx), as the REST API
   * refuses such text with a 400.
   */
  receive(platform: StorePlatform, webhookId: string, topic: string, shop: string, payload: string): Promise<boolean> {
    if (hasUnstorableText(payload)) return Promise.resolve(false);
    return this.stores.receive(platform, webhookId, topic, shop, payload, this.clock());
  }

  /**
   * Processes a batch of received deliveries: one statement each for the shops' connections, the store orders'
   * claims and the outcomes, plus the create path per order (run concurrently). Safe to run again for the same
   * delivery (a crash mid-way): a store order claimed by this delivery resumes, the order's externalOrderId makes
   * the create idempotent, write-backs are unique per outcome. Returns the deliveries done; the others threw and
   * are retried later.
   */
  async processBatch(deliveries: readonly IntakeDelivery[]): Promise<{ done: { id: string; connectionId: string | null }[]; failed: { id: string; error: unknown }[] }> {
    const done: { id: string; connectionId: string | null }[] = [];
    const failed: { id: string; error: unknown }[] = [];
    const results: IntakeResult[] = [];
    const orders: { delivery: IntakeDelivery; connection: ConnectionRecord; connector: StoreConnector; storeOrderId: string; order: unknown }[] = [];
    const connections = new Map<string, ConnectionRecord>();
    for (const platform of new Set(deliveries.map((delivery) => delivery.platform))) {
      const found = await this.stores.findActiveByShops(platform, deliveries.filter((d) => d.platform === platform).map((d) => d.shop));
      for (const [shop, connection] of found) connections.set(`${platform}:${shop}`, connection);
    }
    for (const delivery of deliveries) {
      const connection = connections.get(`${delivery.platform}:${delivery.shop}`);
      const connector = this.connector(delivery.platform);
      // A platform we do not serve, or a delivery whose text was not stored: answered already, nothing to do.
      if (!connector || delivery.payload === null) {
        done.push({ id: delivery.id, connectionId: connection?.id ?? null });
        continue;
      }
      let body: unknown;
      try {
        body = JSON.parse(delivery.payload);
      } catch {
        if (connection) {
          results.push({ connectionId: connection.id, storeOrderId: null, orderId: null, skipped: null, kind: "order_skipped", detail: { reason: "invalid", detail: "body is not JSON" } });
        }
        done.push({ id: delivery.id, connectionId: connection?.id ?? null });
        continue;
      }
      const event = connector.parse(delivery.topic, body);
      if (isPrivacyRequest(event)) {
        // A privacy request applies to every connection the shop has had, live or not (Shopify sends shop/redact
        // 48 hours after an uninstall; an earlier merchant or the other mode may hold the shop's customers too).
        try {
          for (const past of await this.stores.findAllByShop(delivery.platform, delivery.shop)) await this.applyEvent(past, event);
          done.push({ id: delivery.id, connectionId: connection?.id ?? null });
        } catch (error) {
          failed.push({ id: delivery.id, error });
        }
        continue;
      }
      // A shop nobody has connected now (or disconnected): answered already, nothing else to do.
      if (!connection) {
        done.push({ id: delivery.id, connectionId: null });
        continue;
      }
      if (event.kind === "order_created") {
        orders.push({ delivery, connection, connector, storeOrderId: event.storeOrderId, order: event.order });
        continue;
      }
      try {
        await this.applyEvent(connection, event);
        done.push({ id: delivery.id, connectionId: connection.id });
      } catch (error) {
        failed.push({ id: delivery.id, error });
      }
    }
    const claims = await this.stores.claimStoreOrders(
      orders.map(({ delivery, connection, storeOrderId }) => ({
        connectionId: connection.id,
        merchantId: connection.merchantId,
        mode: connection.mode,
        storeOrderId,
        externalOrderId: `${connection.platform}:${storeOrderId}`,
        deliveryId: delivery.id,
      })),
      this.clock(),
    );
    // Each connection's settings are read once per batch (a burst of one store's orders shares them).
    const settingsByConnection = new Map<string, StoreSettings>();
    const settingsOf = (connection: ConnectionRecord) => {
      let settings = settingsByConnection.get(connection.id);
      if (!settings) settingsByConnection.set(connection.id, (settings = readSettings(connection.platform, connection.settings)));
      return settings;
    };
    let next = 0;
    const worker = async () => {
      while (next < orders.length) {
        const index = next++;
        const { delivery, connection, connector, storeOrderId, order } = orders[index];
        try {
          results.push(await this.intakeOrder(connection, settingsOf(connection), connector, storeOrderId, order, claims[index]));
          done.push({ id: delivery.id, connectionId: connection.id });
        } catch (error) {
          failed.push({ id: delivery.id, error });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(INTAKE_CONCURRENCY, orders.length) }, worker));
    await this.stores.recordIntake(results, this.clock());
    return { done, failed };
  }

  private async applyEvent(connection: ConnectionRecord, event: Exclude<StoreEvent, { kind: "order_created" }>): Promise<void> {
    switch (event.kind) {
      case "uninstalled": {
        const now = this.clock();
        await this.stores.disconnect(connection.id, now, async (tx) => {
          await this.stores.addActivity(connection.id, { kind: "disconnected", storeOrderId: null, orderId: null, detail: { by: "store", reason: "app uninstalled" } }, now, tx);
          await this.audit.record(tx, { merchantId: connection.merchantId, action: "store.disconnected", target: connection.id, actor: { kind: "STORE", id: connection.shop } });
        });
        break;
      }
      case "customer_redact": {
        const phones = event.phones.map((phone) => normalisePhone(phone, null)).filter((phone): phone is string => phone !== null);
        const count = await this.stores.redact(connection.id, event.storeOrderIds, phones);
        await this.activity(connection.id, "customer_redacted", null, null, { orders: count });
        break;
      }
      case "shop_redact": {
        const count = await this.stores.redact(connection.id, null, []);
        await this.activity(connection.id, "shop_redacted", null, null, { orders: count });
        break;
      }
      case "data_request":
        // We hold the customer's name, phone, address and order figures: the merchant answers from the console.
        await this.activity(connection.id, "data_requested", null, null, { storeOrderIds: event.storeOrderIds.slice(0, 100) });
        break;
      case "ignored":
        break;
    }
  }

  private async intakeOrder(
    connection: ConnectionRecord,
    settings: StoreSettings,
    connector: StoreConnector,
    storeOrderId: string,
    payload: unknown,
    claim: { claimed: true } | { claimed: false; orderId: string | null; skipped: string | null },
  ): Promise<IntakeResult> {
    const base = { connectionId: connection.id, storeOrderId };
    if (!claim.claimed) {
      return { ...base, orderId: claim.orderId, skipped: "duplicate", kind: "order_skipped", detail: { reason: "duplicate" } };
    }
    const mapped = connector.toOrderInput(payload, settings);
    if (!mapped.ok) {
      return { ...base, orderId: null, skipped: mapped.reason, kind: "order_skipped", detail: { reason: mapped.reason, ...(mapped.detail ? { detail: mapped.detail } : {}) } };
    }
    const scope = { merchantId: connection.merchantId, mode: connection.mode };
    const language = mapped.language ?? settings.language;
    let order: OrderView;
    try {
      order = await this.orders.create(scope, mapped.input, language, "store");
    } catch (error) {
      if (error instanceof DuplicateExternalOrderIdError) {
        // Created by an earlier run of this delivery that died before recording it.
        order = await this.orders.get(scope, error.orderId).catch(() => ({ id: error.orderId, status: "pending" }) as OrderView);
      } else if (error instanceof ProviderRejectedError || error instanceof ProviderUnavailableError) {
        order = error.order as OrderView;
      } else {
        throw error;
      }
    }
    // A send that failed at creation writes no event: its write-back ("failed") is queued here.
    if (order.status === "failed") await this.stores.enqueueWriteback(connection.id, order.id, storeOrderId, "failed");
    return { ...base, orderId: order.id, skipped: null, kind: "order_created", detail: { status: order.status } };
  }

  activity(connectionId: string, kind: string, storeOrderId: string | null, orderId: string | null, detail: object): Promise<void> {
    return this.stores.addActivity(connectionId, { kind, storeOrderId, orderId, detail }, this.clock());
  }
}


function expiryOf(credentials: StoreCredentials): Date | null {
  return credentials.accessTokenExpiresAt ? new Date(credentials.accessTokenExpiresAt) : null;
}

function needsRefresh(expiresAt: Date | null, now: Date): boolean {
  return expiresAt !== null && expiresAt.getTime() - now.getTime() < REFRESH_AHEAD_MS;
}

function toView(connection: ConnectionRecord): StoreConnectionView {
  return {
    id: connection.id,
    platform: connection.platform,
    shop: connection.shop,
    mode: connection.mode,
    status: connection.status,
    settings: readSettings(connection.platform, connection.settings),
    createdAt: connection.createdAt,
    lastOrderAt: connection.lastOrderAt,
  };
}

/** A raw NUL or lone surrogate, or one escaped in the JSON (`\u0000`, `\ud800`…) that parsing would turn into one. */
function hasUnstorableText(payload: string): boolean {
  if (!isStorableText(payload)) return true;
  if (!/\\u(?:0000|d[89a-f][0-9a-f]{2})/i.test(payload)) return false;
  try {
    return findInputProblem(JSON.parse(payload)) !== null;
  } catch {
    return false; // not JSON: the intake skips it as it does any malformed delivery
  }
}

type PrivacyRequest = Extract<StoreEvent, { kind: "customer_redact" | "shop_redact" | "data_request" }>;

function isPrivacyRequest(event: StoreEvent): event is PrivacyRequest {
  return event.kind === "customer_redact" || event.kind === "shop_redact" || event.kind === "data_request";
}
