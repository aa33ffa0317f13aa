import { recordAudit } from "../audit/audit-log.ts";
import type { StoreAuditSink } from "./store.service.ts";

/**
 * Records a console user's `store.connected` / `store.disconnected` in the audit log (SPEC §14), labelled with the
 * user's e-mail, in the transaction of the change itself (the platform's calls, an OAuth exchange or a clean-up, happen
 * before it). A disconnect the store itself makes (an uninstall) has no actor of §14's kinds and stays in the
 * connection's activity log instead.
 */
export function storeAuditLog(): StoreAuditSink {
  return {
    async record(tx, entry) {
      if (entry.actor.kind !== "USER") return;
      const user = await tx.user.findUnique({ where: { id: entry.actor.id }, select: { email: true } });
      await recordAudit(tx, {
        merchantId: entry.merchantId,
        action: entry.action,
        target: entry.target,
        actor: { kind: "user", id: entry.actor.id, label: user?.email ?? entry.actor.id },
        address: null,
      });
    },
  };
}
