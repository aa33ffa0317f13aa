import type { PrismaClient } from "../../generated/prisma/client.ts";
import type { MerchantScope } from "../orders/order.repository.ts";
import { recordAudit, type AuditSource } from "../audit/audit-log.ts";

export interface WebhookEndpointRecord {
  id: string;
  merchantId: string;
  mode: "live" | "test";
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  disabledReason: string | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  legacySignature: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** `secret` as stored: sealed by the service (the repository never sees a plaintext secret). */
export type NewWebhookEndpoint = Pick<WebhookEndpointRecord, "id" | "url" | "description" | "events" | "enabled" | "secret" | "legacySignature"> & {
  now: Date;
};

export type WebhookEndpointChange = Partial<
  Pick<WebhookEndpointRecord, "url" | "description" | "events" | "enabled" | "disabledReason" | "legacySignature">
>;

/** Every read and write is scoped to the caller's merchant and mode: another merchant's endpoint does not exist. */
export class WebhookEndpointRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** The endpoint and its audit entry (`endpoint_secret.created`), in one transaction. */
  async insert(scope: MerchantScope, endpoint: NewWebhookEndpoint, audit: AuditSource): Promise<WebhookEndpointRecord> {
    const { now, ...fields } = endpoint;
    return this.prisma.$transaction(async (tx) => {
      const record = await tx.webhookEndpoint.create({
        data: { ...fields, merchantId: scope.merchantId, mode: scope.mode, createdAt: now, updatedAt: now },
      });
      await recordAudit(tx, { ...audit, merchantId: scope.merchantId, action: "endpoint_secret.created", target: record.id, at: now });
      return record;
    });
  }

  async count(scope: MerchantScope): Promise<number> {
    return this.prisma.webhookEndpoint.count({ where: { merchantId: scope.merchantId, mode: scope.mode } });
  }

  async list(scope: MerchantScope): Promise<WebhookEndpointRecord[]> {
    return this.prisma.webhookEndpoint.findMany({
      where: { merchantId: scope.merchantId, mode: scope.mode },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    });
  }

  async find(scope: MerchantScope, id: string): Promise<WebhookEndpointRecord | null> {
    return this.prisma.webhookEndpoint.findFirst({ where: { id, merchantId: scope.merchantId, mode: scope.mode } });
  }

  /** Null when the endpoint is not the caller's (or no longer exists). */
  async update(scope: MerchantScope, id: string, change: WebhookEndpointChange, now: Date): Promise<WebhookEndpointRecord | null> {
    const { count } = await this.prisma.webhookEndpoint.updateMany({
      where: { id, merchantId: scope.merchantId, mode: scope.mode },
      data: { ...change, updatedAt: now },
    });
    return count ? this.find(scope, id) : null;
  }

  /**
   * One statement, so two rotations at once cannot both keep the same "previous" secret; with its audit entry
   * (`endpoint_secret.rotated`) in the same transaction. `secret` is already sealed.
   */
  async rotateSecret(
    scope: MerchantScope,
    id: string,
    secret: string,
    previousUntil: Date,
    now: Date,
    audit: AuditSource,
  ): Promise<WebhookEndpointRecord | null> {
    return this.prisma.$transaction(async (tx) => {
      const count = await tx.$executeRaw`
        UPDATE webhook_endpoints
           SET previous_secret = secret, previous_secret_expires_at = ${previousUntil}, secret = ${secret}, updated_at = ${now}
         WHERE id = ${id}::uuid AND merchant_id = ${scope.merchantId}::uuid AND mode = ${scope.mode}::"KeyMode"`;
      if (!count) return null;
      await recordAudit(tx, { ...audit, merchantId: scope.merchantId, action: "endpoint_secret.rotated", target: id, at: now });
      return tx.webhookEndpoint.findFirst({ where: { id, merchantId: scope.merchantId, mode: scope.mode } });
    });
  }

  /** Its deliveries and their attempt log go with it (cascade): nothing more is sent to a deleted endpoint. */
  async delete(scope: MerchantScope, id: string): Promise<boolean> {
    const { count } = await this.prisma.webhookEndpoint.deleteMany({ where: { id, merchantId: scope.merchantId, mode: scope.mode } });
    return count > 0;
  }
}
