import { createHash } from "node:crypto";
import { Prisma, type PrismaClient } from "../../generated/prisma/client.ts";
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError } from "../errors.ts";
import { newId } from "../ids.ts";
import type { MerchantScope } from "../orders/order.repository.ts";

export interface StoredResponse {
  statusCode: number;
  body: unknown;
}

const RETENTION_MS = 24 * 60 * 60 * 1000;

/** What an Idempotency-Key may be (REST header and GraphQL alike): 1–255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

/** JSON with sorted keys, so the same body written in another key order is still "the same body". */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * Idempotency-Key: the first request with a key runs; repeats within 24 h with the same body get the first
 * response without running again; the same key with another body is refused. The key is claimed before
 * running, so two concurrent requests with one key cannot both send a message.
 */
export class IdempotencyService {
  constructor(
    private readonly prisma: PrismaClient,
    /** A claim still without a response after this long belongs to a request that died: it is taken over. */
    private readonly abandonedAfterMs = 5 * 60 * 1000,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async execute(
    scope: MerchantScope,
    request: { key: string; method: string; path: string; body: unknown },
    run: () => Promise<StoredResponse>,
  ): Promise<StoredResponse & { replayed: boolean }> {
    const requestHash = createHash("sha256")
      .update(`${request.method} ${request.path}\n${canonicalJson(request.body)}`)
      .digest("hex");
    const claim = await this.claim(scope, request, requestHash);
    if (claim.kind === "replay") return { ...claim.response, replayed: true };
    let response: StoredResponse;
    try {
      response = await run();
    } catch (error) {
      // Nothing durable was answered: release the key so the client can retry.
      await this.prisma.idempotencyRecord.delete({ where: { id: claim.id } }).catch(() => undefined);
      throw error;
    }
    await this.prisma.idempotencyRecord.update({
      where: { id: claim.id },
      // Kept as its JSON text: a jsonb object would come back with its keys reordered, and a replay must be
      // the very same document as the first response.
      data: { statusCode: response.statusCode, responseBody: JSON.stringify(response.body) },
    });
    return { ...response, replayed: false };
  }

  /** Deletes expired records; returns how many. */
  async purgeExpired(): Promise<number> {
    const { count } = await this.prisma.idempotencyRecord.deleteMany({ where: { expiresAt: { lt: this.clock() } } });
    return count;
  }

  private async claim(
    scope: MerchantScope,
    request: { key: string; method: string; path: string },
    requestHash: string,
  ): Promise<{ kind: "run"; id: string } | { kind: "replay"; response: StoredResponse }> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const now = this.clock();
      try {
        const created = await this.prisma.idempotencyRecord.create({
          data: {
            id: newId(),
            merchantId: scope.merchantId,
            mode: scope.mode,
            key: request.key,
            method: request.method,
            path: request.path,
            requestHash,
            createdAt: now,
            expiresAt: new Date(now.getTime() + RETENTION_MS),
          },
          select: { id: true },
        });
        return { kind: "run", id: created.id };
      } catch (error) {
        if (!(error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002")) throw error;
      }
      const existing = await this.prisma.idempotencyRecord.findUnique({
        where: { merchantId_mode_key: { merchantId: scope.merchantId, mode: scope.mode, key: request.key } },
      });
      if (!existing) continue; // released between our insert and read: try again
      if (existing.expiresAt <= now) {
        await this.prisma.idempotencyRecord.deleteMany({ where: { id: existing.id, expiresAt: { lte: now } } });
        continue;
      }
      if (existing.requestHash !== requestHash) throw new IdempotencyKeyReusedError();
      if (existing.statusCode === null) {
        if (now.getTime() - existing.createdAt.getTime() < this.abandonedAfterMs) throw new IdempotencyKeyInUseError();
        await this.prisma.idempotencyRecord.deleteMany({ where: { id: existing.id, statusCode: null } });
        continue;
      }
      const body = typeof existing.responseBody === "string" ? JSON.parse(existing.responseBody) : existing.responseBody;
      return { kind: "replay", response: { statusCode: existing.statusCode, body } };
    }
    throw new IdempotencyKeyInUseError();
  }
}
