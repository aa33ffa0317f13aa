import { ForbiddenError, UnauthorizedError, NotFoundError } from "../errors.ts";
import { isUuid } from "../ids.ts";
import type { MerchantScope } from "../orders/order.repository.ts";
import { displayPrefix, generateApiKey, hashApiKey, parseApiKey, type KeyMode } from "./api-key.ts";
import type { ApiKeyRecord, MerchantRepository } from "./merchant.repository.ts";
import { cliSource, type AuditSource } from "../audit/audit-log.ts";

export interface Caller extends MerchantScope {
  keyId: string;
  /** The key's displayable prefix (`ek_test_Ab12`): how the audit log names it. */
  keyPrefix: string;
}

export interface CreatedKey {
  key: string;
  record: ApiKeyRecord;
}

interface CachedKey {
  /** null: no such key (cached too, so made-up keys cannot make every request a database lookup). */
  record: ApiKeyRecord | null;
  expiresAt: number;
}

/** Key lookups are cached briefly: a revocation reaches every instance within this time. */
const AUTH_CACHE_TTL_MS = 5_000;
const AUTH_CACHE_MAX = 10_000;
/** `lastUsedAt` is a hint for operators, written at most this often per key. */
const LAST_USED_RESOLUTION_MS = 60_000;

export class MerchantService {
  private readonly cache = new Map<string, CachedKey>();
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly merchants: MerchantRepository,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** A merchant with one live and one test key; the keys are returned once and only their hashes kept. */
  async createMerchant(
    name: string,
    audit: AuditSource = cliSource("merchants create"),
  ): Promise<{ merchant: { id: string; name: string }; keys: Record<KeyMode, string> }> {
    const merchant = await this.merchants.create(name);
    const live = await this.createKey(merchant.id, "live", null, audit);
    const test = await this.createKey(merchant.id, "test", null, audit);
    return { merchant: { id: merchant.id, name: merchant.name }, keys: { live: live.key, test: test.key } };
  }

  async createKey(merchantId: string, mode: KeyMode, name: string | null = null, audit: AuditSource = cliSource("keys create")): Promise<CreatedKey> {
    if (!isUuid(merchantId) || !(await this.merchants.exists(merchantId))) throw new NotFoundError("merchant");
    const key = generateApiKey(mode);
    const record = await this.merchants.insertKey(merchantId, mode, displayPrefix(key), hashApiKey(key), name, audit);
    return { key, record };
  }

  async listKeys(merchantId: string): Promise<ApiKeyRecord[]> {
    if (!isUuid(merchantId) || !(await this.merchants.exists(merchantId))) throw new NotFoundError("merchant");
    return this.merchants.listKeys(merchantId);
  }

  async revokeKey(keyId: string, audit: AuditSource = cliSource("keys revoke")): Promise<ApiKeyRecord> {
    const record = isUuid(keyId) ? await this.merchants.revokeKey(keyId, this.clock(), audit) : null;
    if (!record) throw new NotFoundError("apiKey");
    for (const [hash, cached] of this.cache) if (cached.record?.id === keyId) this.cache.delete(hash);
    return record;
  }

  async getMerchant(merchantId: string): Promise<{ id: string; name: string }> {
    const merchant = isUuid(merchantId) ? await this.merchants.find(merchantId) : null;
    if (!merchant) throw new NotFoundError("merchant");
    return merchant;
  }

  /**
   * Key management by a caller (GraphQL, SPEC §10), scoped like everything else to its merchant and mode: it
   * sees and revokes only keys of its own mode, and creates keys of that mode only (a test caller must not
   * mint live keys). A key of another merchant or mode is NOT_FOUND, never FORBIDDEN (existence is not told).
   * Only admin console sessions come here (the GraphQL door refuses API keys: a leaked key must not mint its
   * successor nor revoke the merchant's other keys, SPEC §14).
   */
  async listKeysOf(scope: MerchantScope): Promise<ApiKeyRecord[]> {
    return (await this.merchants.listKeys(scope.merchantId)).filter((key) => key.mode === scope.mode);
  }

  async createKeyFor(scope: MerchantScope, mode: KeyMode, audit: AuditSource): Promise<CreatedKey> {
    if (mode !== scope.mode) throw new ForbiddenError("mode", { mode: scope.mode, requested: mode });
    return this.createKey(scope.merchantId, mode, null, audit);
  }

  async revokeKeyOf(scope: MerchantScope, keyId: string, audit: AuditSource): Promise<ApiKeyRecord> {
    const record = isUuid(keyId) ? await this.merchants.findKey(keyId) : null;
    if (!record || record.merchantId !== scope.merchantId || record.mode !== scope.mode) throw new NotFoundError("apiKey");
    return this.revokeKey(record.id, audit);
  }

  async hasMerchants(): Promise<boolean> {
    return (await this.merchants.count()) > 0;
  }

  /** Resolves the X-API-Key header to the calling merchant and mode, or throws UNAUTHORIZED. */
  async authenticate(key: string | undefined): Promise<Caller> {
    if (!key) throw new UnauthorizedError("missing");
    if (!parseApiKey(key)) throw new UnauthorizedError("invalid");
    const hash = hashApiKey(key);
    const now = this.clock().getTime();
    let cached = this.cache.get(hash);
    if (!cached || cached.expiresAt <= now) {
      const record = await this.merchants.findKeyByHash(hash);
      cached = { record, expiresAt: now + AUTH_CACHE_TTL_MS };
      if (this.cache.size >= AUTH_CACHE_MAX) this.cache.clear();
      this.cache.set(hash, cached);
    }
    const { record } = cached;
    if (!record || record.revokedAt) throw new UnauthorizedError("invalid");
    this.noteUse(record.id, now);
    return { merchantId: record.merchantId, mode: record.mode, keyId: record.id, keyPrefix: record.prefix };
  }

  private noteUse(keyId: string, now: number): void {
    const last = this.lastTouched.get(keyId) ?? 0;
    if (now - last < LAST_USED_RESOLUTION_MS) return;
    this.lastTouched.set(keyId, now);
    // Off the request path: a failed hint write must never fail the request.
    this.merchants.touchKey(keyId, new Date(now)).catch(() => this.lastTouched.delete(keyId));
  }
}
