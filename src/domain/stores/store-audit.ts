import type { PrismaClient } from "../../generated/prisma/client.ts";
import { recordAudit } from "../audit/audit-log.ts";
import type { StoreAuditSink } from "./store.service.ts";

/**
 * Records a console user's `store.connected` / `store.disconnected` in the audit log (SPEC §14), labelled with the
 * user's e-mail. Written right after the store change commits, not inside its transaction (the store service's
 * changes span calls to the platform). A disconnect the store itself makes (an uninstall) has no actor of §14's
 * kinds and stays in the connection's activity log instead.
 */
export function storeAuditLog(prisma: PrismaClient): StoreAuditSink {
  return {
    async record(entry) {
      if (entry.actor.kind !== "USER") return;
      const user = await prisma.user.findUnique({ where: { id: entry.actor.id }, select: { email: true } });
      await recordAudit(prisma, {
        merchantId: entry.merchantId,
        action: entry.action,
        target: entry.target,
        actor: { kind: "user", id: entry.actor.id, label: user?.email ?? entry.actor.id },
        address: null,
      });
    },
  };
}
