import type { PrismaClient } from "../../generated/prisma/client.ts";
import { newId } from "../ids.ts";
import { recordAudit, type AuditSource } from "../audit/audit-log.ts";
import type { KeyMode } from "./api-key.ts";

export interface ApiKeyRecord {
  id: string;
  merchantId: string;
  mode: KeyMode;
  prefix: string;
  name: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export class MerchantRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async create(name: string): Promise<{ id: string; name: string; createdAt: Date }> {
    return this.prisma.merchant.create({ data: { id: newId(), name }, select: { id: true, name: true, createdAt: true } });
  }

  async find(id: string): Promise<{ id: string; name: string } | null> {
    return this.prisma.merchant.findUnique({ where: { id }, select: { id: true, name: true } });
  }

  async exists(id: string): Promise<boolean> {
    return (await this.prisma.merchant.count({ where: { id } })) > 0;
  }

  async count(): Promise<number> {
    return this.prisma.merchant.count();
  }

  /** The key and its audit entry (`api_key.created`), in one transaction. */
  async insertKey(merchantId: string, mode: KeyMode, prefix: string, hash: string, name: string | null, audit: AuditSource): Promise<ApiKeyRecord> {
    return this.prisma.$transaction(async (tx) => {
      const record = await tx.apiKey.create({ data: { id: newId(), merchantId, mode, prefix, hash, name } });
      await recordAudit(tx, { ...audit, merchantId, action: "api_key.created", target: record.id, at: record.createdAt });
      return record;
    });
  }

  async findKeyByHash(hash: string): Promise<ApiKeyRecord | null> {
    return this.prisma.apiKey.findUnique({ where: { hash } });
  }

  async listKeys(merchantId: string): Promise<ApiKeyRecord[]> {
    return this.prisma.apiKey.findMany({ where: { merchantId }, orderBy: { createdAt: "asc" } });
  }

  /** Revokes the key and writes `api_key.revoked` in one transaction; a second revoke keeps the first time (and entry). */
  async revokeKey(keyId: string, now: Date, audit: AuditSource): Promise<ApiKeyRecord | null> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.apiKey.updateMany({ where: { id: keyId, revokedAt: null }, data: { revokedAt: now } });
      const record = await tx.apiKey.findUnique({ where: { id: keyId } });
      if (count > 0 && record) await recordAudit(tx, { ...audit, merchantId: record.merchantId, action: "api_key.revoked", target: keyId, at: now });
      return record;
    });
  }

  async findKey(keyId: string): Promise<ApiKeyRecord | null> {
    return this.prisma.apiKey.findUnique({ where: { id: keyId } });
  }

  async touchKey(keyId: string, now: Date): Promise<void> {
    await this.prisma.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: now } });
  }
}
