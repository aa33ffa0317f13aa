import type { PrismaClient } from "../../generated/prisma/client.ts";
import { SEALED_PREFIX, SecretBox } from "./secret-box.ts";
import { endpointSecretContext } from "../webhooks/endpoint-secret-context.ts";
import { credentialsContext } from "../stores/credentials-context.ts";

/**
 * Where sealed secrets live. A SQL migration cannot seal anything (it does not know SECRETS_KEY), so the sealing of
 * values written before sealing existed is a step run with the key: at every start (createApp), and by
 * `ocs secrets seal`. Both are idempotent and safe with several instances at once: each row is rewritten only if it
 * still holds the value that was read. Store credentials add their table here when they land.
 */
export interface SealedColumns {
  table: string;
  /** Primary key column (uuid). */
  id: string;
  columns: readonly string[];
  /** The context each row's values are sealed under (see SecretBox). */
  context: (id: string) => string;
}

export const SEALED_COLUMNS: readonly SealedColumns[] = [
  {
    table: "webhook_endpoints",
    id: "id",
    columns: ["secret", "previous_secret"],
    context: endpointSecretContext,
  },
  {
    // Store credentials (SPEC §13): tokens, consumer keys and secrets, webhook secrets, as one sealed JSON.
    table: "store_connections",
    id: "id",
    columns: ["credentials"],
    context: credentialsContext,
  },
];

const BATCH = 500;

export interface ResealReport {
  /** Values rewritten (a row with two secret columns may count twice). */
  sealed: number;
  /** Values looked at. */
  examined: number;
}

/**
 * Seals every stored secret that is still plain text with the box's current key. It runs at every start, so only
 * the plain-text values are read (an index-free filter, but no row is sent back once everything is sealed).
 */
export async function sealPlaintextSecrets(prisma: PrismaClient, box: SecretBox): Promise<ResealReport> {
  return rewriteSecrets(prisma, box, (value) => !SecretBox.isSealed(value), (value) => value, `NOT LIKE '${SEALED_PREFIX}%'`);
}

/**
 * Re-seals every stored secret with `box`'s current key: plain text and values sealed with any key the box can
 * open (its previous keys). A value it cannot open stops the rotation with an error naming the row's table.
 */
export async function resealAllSecrets(prisma: PrismaClient, box: SecretBox): Promise<ResealReport> {
  return rewriteSecrets(
    prisma,
    box,
    (value) => !SecretBox.isSealed(value) || box.needsReseal(value),
    (value, context) => (SecretBox.isSealed(value) ? box.open(value, context) : value),
  );
}

async function rewriteSecrets(
  prisma: PrismaClient,
  box: SecretBox,
  needsWork: (value: string) => boolean,
  plaintextOf: (value: string, context: string) => string,
  /** A condition on the column's value that every value needing work meets (read fewer rows), e.g. NOT LIKE … */
  candidates = "IS NOT NULL",
): Promise<ResealReport> {
  const report: ResealReport = { sealed: 0, examined: 0 };
  for (const target of SEALED_COLUMNS) {
    for (const column of target.columns) {
      let after = "00000000-0000-0000-0000-000000000000";
      for (;;) {
        // Keyset pages over the primary key: bounded memory whatever the table's size.
        const rows = await prisma.$queryRawUnsafe<{ id: string; value: string }[]>(
          `SELECT ${target.id}::text AS id, ${column} AS value FROM ${target.table}
            WHERE ${target.id} > $1::uuid AND ${column} ${candidates} ORDER BY ${target.id} LIMIT ${BATCH}`,
          after,
        );
        for (const row of rows) {
          report.examined += 1;
          if (!needsWork(row.value)) continue;
          const context = target.context(row.id);
          const sealed = box.seal(plaintextOf(row.value, context), context);
          // Only if nobody changed it since it was read (another instance sealing, a rotation of the secret).
          report.sealed += await prisma.$executeRawUnsafe(
            `UPDATE ${target.table} SET ${column} = $1 WHERE ${target.id} = $2::uuid AND ${column} = $3`,
            sealed,
            row.id,
            row.value,
          );
        }
        if (rows.length < BATCH) break;
        after = rows[rows.length - 1].id;
      }
    }
  }
  return report;
}
