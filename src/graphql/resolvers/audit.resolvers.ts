import type { AppServices } from "../../app-services.ts";
import { encodeAuditCursor } from "../../domain/audit/audit-log.service.ts";
import type { AuditEntryRecord } from "../../domain/audit/audit-log.repository.ts";
import type { AuditActorKind, AuditEntry, QueryResolvers } from "../../generated/graphql.ts";
import { asSessionAdmin } from "./caller-guard.ts";
import type { AuditAction } from "../../domain/audit/audit-log.ts";

/** The audit log over GraphQL (SPEC §14): admin console sessions only, the whole merchant (both modes). */
export function auditResolvers(services: AppServices) {
  const Query: QueryResolvers = {
    auditLog: (_parent, { first, after, filter }, context) =>
      asSessionAdmin(context, async (caller) => {
        const page = await services.auditLog.page(caller.merchantId, {
          first,
          after: after || null,
          filter: { action: (filter?.action || null) as AuditAction | null, actorId: filter?.actorId || null },
        });
        const edges = page.entries.map((entry) => ({ cursor: encodeAuditCursor(entry.id), node: toGraphQLAuditEntry(entry) }));
        return {
          edges,
          pageInfo: {
            hasNextPage: page.hasNextPage,
            hasPreviousPage: false,
            startCursor: edges[0]?.cursor ?? null,
            endCursor: edges.at(-1)?.cursor ?? null,
          },
        };
      }),
  };
  return { Query };
}

export function toGraphQLAuditEntry(entry: AuditEntryRecord): AuditEntry {
  return {
    id: entry.id,
    at: entry.at.toISOString(),
    actor: { kind: entry.actor.kind.toUpperCase() as AuditActorKind, id: entry.actor.id, label: entry.actor.label },
    action: entry.action,
    target: entry.target,
    address: entry.address,
  };
}
