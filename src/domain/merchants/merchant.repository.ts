import type { PrismaClient } from "../../generated/prisma/client.ts";
import { newId } from "../ids.ts";
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

  async insertKey(merchantId: string, mode: KeyMode, prefix: string, hash: string, name: string | null): Promise<ApiKeyRecord> {
    return this.prisma.apiKey.create({ data: { id: newId(), merchantId, mode, prefix, hash, name } });
  }

  async findKeyByHash(hash: string): Promise<ApiKeyRecord | null> {
    return this.prisma.apiKey.findUnique({ where: { hash } });
  }

  async listKeys(merchantId: string): Promise<ApiKeyRecord[]> {
    return this.prisma.apiKey.findMany({ where: { merchantId }, orderBy: { createdAt: "asc" } });
  }

  async revokeKey(keyId: string, now: Date): Promise<ApiKeyRecord | null> {
    // A second revoke keeps the first revocation time.
    await this.prisma.apiKey.updateMany({ where: { id: keyId, revokedAt: null }, data: { revokedAt: now } });
    return this.findKey(keyId);
  }

  async findKey(keyId: string): Promise<ApiKeyRecord | null> {
    return this.prisma.apiKey.findUnique({ where: { id: keyId } });
  }

  async touchKey(keyId: string, now: Date): Promise<void> {
    await this.prisma.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: now } });
  }
}
