import type { PrismaClient } from "../../generated/prisma/client.ts";
import type { AuditAction, AuditActor } from "./audit-log.ts";

export interface AuditEntryRecord {
  id: string;
  at: Date;
  actor: AuditActor;
  action: AuditAction;
  target: string | null;
  address: string | null;
}

export interface AuditLogFilter {
  action?: AuditAction | null;
  /** The actor's id (a user's or key's), or "cli" for the operator CLI. */
  actorId?: string | null;
}

/** Reads the audit log newest first, and forgets entries past the retention. */
export class AuditLogRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** Up to `limit` entries of the merchant older than the entry `before` (its id), newest first. */
  async page(merchantId: string, limit: number, before: bigint | null, filter: AuditLogFilter = {}): Promise<AuditEntryRecord[]> {
    const rows = await this.prisma.auditEntry.findMany({
      where: {
        merchantId,
        ...(before !== null ? { id: { lt: before } } : {}),
        ...(filter.action ? { action: filter.action } : {}),
        ...(filter.actorId === "cli" ? { actorKind: "cli" as const } : filter.actorId ? { actorId: filter.actorId } : {}),
      },
      orderBy: { id: "desc" },
      take: limit,
    });
    return rows.map((row) => ({
      id: row.id.toString(),
      at: row.at,
      actor: { kind: row.actorKind, id: row.actorId, label: row.actorLabel },
      action: row.action as AuditAction,
      target: row.target,
      address: row.address,
    }));
  }

  /** Deletes entries written before `before`, at most `limit` per call (the sweep calls again while it deletes). */
  async purgeBefore(before: Date, limit: number): Promise<number> {
    return this.prisma.$executeRaw`
      DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < ${before} ORDER BY at LIMIT ${limit})`;
  }
}
