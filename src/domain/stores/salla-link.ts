import { createHash, randomInt } from "node:crypto";
import type { Logger } from "pino";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import type { SallaTokens } from "../../providers/salla/events.ts";
import type { MerchantScope } from "../orders/order.repository.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { StoreCredentials } from "./store-connector.ts";
import type { StoreRepository } from "./store.repository.ts";
import type { StoreService } from "./store.service.ts";

/**
 * Linking a Salla store to a merchant (SPEC §13). Salla's "easy mode" sends the store's tokens in
 * `app.store.authorize`, signed with the app's secret but naming only Salla's merchant id, so the store is tied
 * to one of our merchants by a one-time code: an admin makes it in the console (`createSallaLinkCode`), the
 * merchant types it into the app's settings on Salla, and it comes back in `app.settings.updated`. Codes are
 * random (12 characters of a 32-letter alphabet: 60 bits), single use, valid 24 hours, and kept only as SHA-256.
 * A reused, unknown, expired or missing code links nothing.
 *
 * Tokens and code may arrive in either order: the pending row holds whichever came first (tokens sealed), and the
 * connection is made when both are there. Tokens that arrive for a store already linked replace the connection's
 * (an app update re-authorises).
 */
export const LINK_CODE_TTL_MS = 24 * 60 * 60 * 1000;
/** Live (unused, unexpired) codes a merchant may hold at once: a bound on what the console can create. */
export const MAX_LIVE_CODES = 20;
/** Pending rows no code or token completed within this long are deleted. */
export const PENDING_TTL_MS = 30 * 24 * 60 * 60 * 1000;

// No 0/O, 1/I/L: codes are read from one screen and typed into another.
const ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

export function newLinkCode(): string {
  let code = "";
  for (let i = 0; i < 12; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return `${code.slice(0, 4)}-${code.slice(4, 8)}-${code.slice(8)}`;
}

/** The stored form of a normalised code (events.ts `normaliseLinkCode`: no dashes or spaces, upper case). */
export function linkCodeHash(normalised: string): string {
  return createHash("sha256").update(`salla-link:${normalised}`).digest("hex");
}

export class TooManyLinkCodesError extends Error {}

export type LinkOutcome =
  | { linked: true; connectionId: string }
  | { linked: false; reason: "no_code" | "unknown_code" | "waiting_for_tokens" | "already_connected" | "not_configured" };

export class SallaLinks {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly stores: StoreService,
    private readonly repository: StoreRepository,
    private readonly secrets: SecretBox,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async createCode(scope: MerchantScope): Promise<{ code: string; expiresAt: Date }> {
    const now = this.clock();
    const live = await this.prisma.sallaLinkCode.count({ where: { merchantId: scope.merchantId, usedAt: null, expiresAt: { gt: now } } });
    if (live >= MAX_LIVE_CODES) throw new TooManyLinkCodesError(`at most ${MAX_LIVE_CODES} unused link codes at a time`);
    const code = newLinkCode();
    const expiresAt = new Date(now.getTime() + LINK_CODE_TTL_MS);
    await this.prisma.sallaLinkCode.create({
      data: { codeHash: linkCodeHash(code.replace(/-/g, "")), merchantId: scope.merchantId, mode: scope.mode, expiresAt, createdAt: now },
    });
    return { code, expiresAt };
  }

  /** `app.store.authorize`: the store's tokens. */
  async authorized(sallaMerchantId: string, tokens: SallaTokens): Promise<LinkOutcome | { linked: "updated"; connectionId: string } | { linked: false; reason: "pending" }> {
    const credentials = toCredentials(tokens);
    const live = await this.repository.findActiveByShop("salla", sallaMerchantId);
    if (live) {
      await this.stores.updateCredentials(live.id, () => credentials);
      await this.stores.activity(live.id, "token_refreshed", null, null, { by: "app.store.authorize" });
      return { linked: "updated", connectionId: live.id };
    }
    const now = this.clock();
    const sealed = this.secrets.seal(JSON.stringify(credentials), pendingContext(sallaMerchantId));
    const row = await this.prisma.sallaPendingInstall.upsert({
      where: { sallaMerchantId },
      create: { sallaMerchantId, credentials: sealed, updatedAt: now },
      update: { credentials: sealed, updatedAt: now },
    });
    if (row.linkMerchantId && row.linkMode) return this.complete(sallaMerchantId, { merchantId: row.linkMerchantId, mode: row.linkMode }, credentials);
    return { linked: false, reason: "pending" };
  }

  /** `app.settings.updated`: the link code the merchant typed (normalised), or null. */
  async settingsUpdated(sallaMerchantId: string, code: string | null): Promise<LinkOutcome> {
    if (!code) return { linked: false, reason: "no_code" };
    const now = this.clock();
    // Single use: whoever sets used_at first owns the code.
    const taken = await this.prisma.sallaLinkCode.updateManyAndReturn({
      where: { codeHash: linkCodeHash(code), usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
      select: { merchantId: true, mode: true },
    });
    if (taken.length !== 1) return { linked: false, reason: "unknown_code" };
    const scope = { merchantId: taken[0].merchantId, mode: taken[0].mode };
    const row = await this.prisma.sallaPendingInstall.upsert({
      where: { sallaMerchantId },
      create: { sallaMerchantId, linkMerchantId: scope.merchantId, linkMode: scope.mode, updatedAt: now },
      update: { linkMerchantId: scope.merchantId, linkMode: scope.mode, updatedAt: now },
    });
    if (!row.credentials) return { linked: false, reason: "waiting_for_tokens" };
    const credentials = JSON.parse(this.secrets.open(row.credentials, pendingContext(sallaMerchantId))) as StoreCredentials;
    return this.complete(sallaMerchantId, scope, credentials);
  }

  /** `app.uninstalled`: a store half-way through linking forgets its tokens (the connection itself goes through the intake). */
  async uninstalled(sallaMerchantId: string): Promise<void> {
    await this.prisma.sallaPendingInstall.deleteMany({ where: { sallaMerchantId } });
  }

  /** Maintenance: used or expired codes older than a day past expiry, and pending rows nobody completed. */
  async purge(): Promise<number> {
    const now = this.clock().getTime();
    const codes = await this.prisma.sallaLinkCode.deleteMany({ where: { expiresAt: { lt: new Date(now - LINK_CODE_TTL_MS) } } });
    const pending = await this.prisma.sallaPendingInstall.deleteMany({ where: { updatedAt: { lt: new Date(now - PENDING_TTL_MS) } } });
    return codes.count + pending.count;
  }

  private async complete(sallaMerchantId: string, scope: MerchantScope, credentials: StoreCredentials): Promise<LinkOutcome> {
    const connection = await this.stores.connect(scope, "salla", sallaMerchantId, credentials, { kind: "STORE", id: sallaMerchantId });
    await this.prisma.sallaPendingInstall.deleteMany({ where: { sallaMerchantId } });
    if (!connection) {
      this.logger.warn({ sallaMerchantId }, "salla store is linked to another merchant or mode: link code ignored");
      return { linked: false, reason: "already_connected" };
    }
    return { linked: true, connectionId: connection.id };
  }
}

function toCredentials(tokens: SallaTokens): StoreCredentials {
  return {
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    accessTokenExpiresAt: tokens.expiresAt.toISOString(),
    scope: tokens.scope,
  };
}

function pendingContext(sallaMerchantId: string): string {
  return `salla_pending:${sallaMerchantId}`;
}
