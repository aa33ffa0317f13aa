import type { Prisma, PrismaClient } from "../../generated/prisma/client.ts";

/**
 * The security history of a merchant (SPEC §14). An entry is written in the same transaction as the change it
 * records, so a change without its entry (or an entry without its change) never commits: call `recordAudit` with
 * the transaction client of the change (`prisma.$transaction(async (tx) => { …change…; await recordAudit(tx, …) })`).
 * Code on a plain `pg` client uses `recordAuditSql` inside its BEGIN … COMMIT instead.
 */
export const AUDIT_ACTIONS = [
  "api_key.created",
  "api_key.revoked",
  "endpoint_secret.created",
  "endpoint_secret.rotated",
  "user.created",
  "user.removed",
  "user.password_reset",
  "sign_in.succeeded",
  "sign_in.failed",
  "store.connected",
  "store.disconnected",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type AuditActorKind = "user" | "api_key" | "cli";

/** Who made the change: a console user (id, e-mail), an API key (id, prefix) or the operator CLI (its verb). */
export interface AuditActor {
  kind: AuditActorKind;
  id: string | null;
  label: string;
}

/** Who acts and from where: what a door (REST, GraphQL, CLI) knows of its caller and hands to the services. */
export interface AuditSource {
  actor: AuditActor;
  /** The client's address (request.ip, which TRUST_PROXY decides); null for the CLI. */
  address: string | null;
}

export interface AuditEntryInput extends AuditSource {
  merchantId: string;
  action: AuditAction;
  /** The affected object's id (key, endpoint, user, store). */
  target: string | null;
  at?: Date;
}

const LABEL_MAX = 254;
const ADDRESS_MAX = 64;

/** The operator CLI as an actor: `ocs keys create`, … */
export function cliSource(verb: string): AuditSource {
  return { actor: { kind: "cli", id: null, label: `ocs ${verb}` }, address: null };
}

/** Writes one entry with the transaction client of the change it records. */
export async function recordAudit(tx: Prisma.TransactionClient | PrismaClient, entry: AuditEntryInput): Promise<void> {
  await tx.auditEntry.create({ data: auditRow(entry) });
}

/** The same, for code holding a plain `pg` client inside its own transaction. */
export async function recordAuditSql(client: { query(text: string, values: unknown[]): Promise<unknown> }, entry: AuditEntryInput): Promise<void> {
  const row = auditRow(entry);
  await client.query(
    `INSERT INTO audit_log (merchant_id, at, actor_kind, actor_id, actor_label, action, target, address)
     VALUES ($1::uuid, $2, $3::"AuditActorKind", $4, $5, $6, $7, $8)`,
    [row.merchantId, row.at, row.actorKind, row.actorId, row.actorLabel, row.action, row.target, row.address],
  );
}

function auditRow(entry: AuditEntryInput) {
  return {
    merchantId: entry.merchantId,
    at: entry.at ?? new Date(),
    actorKind: entry.actor.kind,
    actorId: entry.actor.id,
    actorLabel: entry.actor.label.slice(0, LABEL_MAX),
    action: entry.action,
    target: entry.target,
    address: entry.address?.slice(0, ADDRESS_MAX) ?? null,
  };
}
