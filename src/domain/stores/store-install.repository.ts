import type { PrismaClient } from "../../generated/prisma/client.ts";
import type { MerchantScope } from "../orders/order.repository.ts";
import type { StorePlatform } from "./store-connector.ts";

export interface StoreInstall {
  state: string;
  /** SHA-256 of the console session cookie that started it. */
  sessionHash: string;
  merchantId: string;
  mode: MerchantScope["mode"];
  platform: StorePlatform;
  shop: string;
  expiresAt: Date;
}

/** OAuth installs under way (state → the session, merchant, mode and shop that started it), single use. */
export class StoreInstallRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async create(install: StoreInstall): Promise<void> {
    await this.prisma.storeInstall.create({ data: install });
  }

  /** The install of this state, deleted as it is read (a replayed callback finds nothing). */
  async take(state: string): Promise<StoreInstall | null> {
    const rows = await this.prisma.$queryRaw<
      { state: string; session_hash: string; merchant_id: string; mode: MerchantScope["mode"]; platform: StorePlatform; shop: string; expires_at: Date }[]
    >`DELETE FROM store_installs WHERE state = ${state}
      RETURNING state, session_hash, merchant_id::text AS merchant_id, mode::text AS mode, platform::text AS platform, shop, expires_at`;
    const row = rows[0];
    return row
      ? { state: row.state, sessionHash: row.session_hash, merchantId: row.merchant_id, mode: row.mode, platform: row.platform, shop: row.shop, expiresAt: row.expires_at }
      : null;
  }

  async purgeExpired(now: Date): Promise<number> {
    const { count } = await this.prisma.storeInstall.deleteMany({ where: { expiresAt: { lt: now } } });
    return count;
  }
}
