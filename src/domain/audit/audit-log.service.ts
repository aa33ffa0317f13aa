import { ValidationError } from "../errors.ts";
import { AUDIT_ACTIONS, type AuditAction } from "./audit-log.ts";
import type { AuditEntryRecord, AuditLogFilter, AuditLogRepository } from "./audit-log.repository.ts";

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 200;

export interface AuditPage {
  entries: AuditEntryRecord[];
  hasNextPage: boolean;
}

/** The audit log as the doors read it: pages newest first behind an opaque cursor (the entry's id). */
export class AuditLogService {
  constructor(private readonly entries: AuditLogRepository) {}

  async page(merchantId: string, options: { first?: number | null; after?: string | null; filter?: AuditLogFilter }): Promise<AuditPage> {
    const first = options.first ?? AUDIT_PAGE_DEFAULT;
    if (!Number.isInteger(first) || first < 1 || first > AUDIT_PAGE_MAX) {
      throw new ValidationError([{ field: "first", key: first < 1 ? "field.number.gte" : "field.number.lte", params: { min: 1, max: AUDIT_PAGE_MAX } }]);
    }
    const before = options.after ? decodeAuditCursor(options.after) : null;
    if (options.after && before === null) throw new ValidationError([{ field: "after", key: "field.format.cursor" }]);
    const action = options.filter?.action ?? null;
    if (action !== null && !(AUDIT_ACTIONS as readonly string[]).includes(action)) {
      throw new ValidationError([{ field: "filter.action", key: "field.enum", params: { values: AUDIT_ACTIONS.join(", ") } }]);
    }
    const rows = await this.entries.page(merchantId, first + 1, before, { action: action as AuditAction | null, actorId: options.filter?.actorId ?? null });
    return { entries: rows.slice(0, first), hasNextPage: rows.length > first };
  }

  async purgeOlderThan(retentionMs: number, now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - retentionMs);
    let total = 0;
    for (;;) {
      const deleted = await this.entries.purgeBefore(before, 5_000);
      total += deleted;
      if (deleted < 5_000) return total;
    }
  }
}

export function encodeAuditCursor(id: string): string {
  return Buffer.from(`audit:${id}`, "utf8").toString("base64url");
}

export function decodeAuditCursor(cursor: string): bigint | null {
  const text = cursor.length <= 64 ? Buffer.from(cursor, "base64url").toString("utf8") : "";
  const match = /^audit:(\d{1,19})$/.exec(text);
  return match ? BigInt(match[1]) : null;
}
