import type {
  MappedOrder,
  StoreConnector,
  StoreCredentials,
  StoreEvent,
  WritebackEffect,
  WritebackResult,
  WritebackTarget,
} from "../../domain/stores/store-connector.ts";
import type { StoreSettings } from "../../domain/stores/store-settings.ts";
import { asWritebackResult, noteForTag } from "../store-support/writeback-result.ts";
import { parseSallaEvent } from "./events.ts";
import { mapSallaOrder } from "./map-order.ts";
import type { SallaClient } from "./salla-client.ts";

/**
 * Salla on the connector framework. Deliveries are verified with the app's webhook secret and routed by the
 * envelope's `merchant` (salla.routes.ts); linking and token storage (app.store.authorize, app.settings.updated)
 * happen there too. Here: orders and uninstalls are parsed, orders mapped, and the outbox's effects become Merchant
 * API calls: a tag becomes a note in the order's history, a cancel sets the status slug `canceled` (with the note).
 * Salla has no fulfillment holds: hold and release are done with nothing to do. Access tokens expire (14 days) and
 * refresh tokens are single use: `refresh` is called under the framework's per-connection refresh lease.
 */
export class SallaConnector implements StoreConnector {
  readonly platform = "salla" as const;

  constructor(readonly client: SallaClient) {}

  parse(_topic: string, body: unknown): StoreEvent {
    const event = parseSallaEvent(body);
    switch (event.kind) {
      case "order_created": {
        const order = (event.order ?? {}) as { id?: unknown; draft?: unknown };
        if (order.draft === true) return { kind: "ignored", reason: "draft order" };
        const id = order.id;
        const storeOrderId = typeof id === "number" && Number.isSafeInteger(id) && id >= 0 ? String(id) : typeof id === "string" && /^\d{1,20}$/.test(id) ? id : null;
        return storeOrderId ? { kind: "order_created", storeOrderId, order: event.order } : { kind: "ignored", reason: "no order id" };
      }
      case "uninstalled":
        return { kind: "uninstalled" };
      default:
        return { kind: "ignored", reason: event.kind === "ignored" ? event.reason : event.kind };
    }
  }

  toOrderInput(order: unknown, settings: StoreSettings): MappedOrder {
    const mapped = mapSallaOrder(order, settings);
    if (mapped.kind === "order") return { ok: true, input: mapped.input, language: mapped.language === "ar" || mapped.language === "en" ? mapped.language : null };
    const reason = mapped.reason === "draft" ? "invalid" : mapped.reason;
    return { ok: false, reason, ...(mapped.detail ? { detail: mapped.detail } : {}) };
  }

  async writeBack(effect: WritebackEffect, target: WritebackTarget): Promise<WritebackResult> {
    const token = target.credentials.accessToken;
    if (!token) return { kind: "unauthorized", error: "the connection has no Salla token" };
    switch (effect.kind) {
      case "tag":
        return asWritebackResult(await this.client.addOrderNote(token, target.storeOrderId, noteForTag(effect.tag)));
      case "cancel":
        return asWritebackResult(
          await this.client.updateOrderStatus(
            token,
            target.storeOrderId,
            "canceled",
            effect.reason === "customer" ? "Canceled by the customer over WhatsApp" : "Not confirmed by the customer in time",
          ),
        );
      case "hold":
      case "release_hold":
        return { kind: "done" };
    }
  }

  /**
   * New tokens for the stored refresh token; the framework stores them (both: the old refresh token is dead) before
   * releasing the lease. A refused grant throws: the connection then needs the merchant to reinstall the app.
   */
  async refresh(_shop: string, credentials: StoreCredentials): Promise<StoreCredentials | null> {
    if (!credentials.refreshToken) return null;
    const result = await this.client.refreshTokens(credentials.refreshToken);
    if (!result.ok) throw new SallaRefreshError(result.detail, result.retryable);
    return {
      accessToken: result.value.accessToken,
      refreshToken: result.value.refreshToken,
      accessTokenExpiresAt: result.value.expiresAt.toISOString(),
      scope: result.value.scope,
    };
  }
}

/**
 * A refresh Salla refused (`retriable: false`: the grant is gone, the merchant must reinstall; the write-back
 * worker then marks the connection ERROR) or could not answer (`retriable: true`: tried again later).
 */
export class SallaRefreshError extends Error {
  constructor(
    message: string,
    readonly retriable: boolean,
  ) {
    super(`Salla token refresh failed: ${message}`);
  }
}
