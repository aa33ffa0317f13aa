import { randomBytes } from "node:crypto";
import { type Command, InvalidArgumentError } from "commander";
import { AuditLogRepository } from "../domain/audit/audit-log.repository.ts";
import { AUDIT_PAGE_MAX, AuditLogService, encodeAuditCursor, type AuditPage } from "../domain/audit/audit-log.service.ts";
import { NotFoundError } from "../domain/errors.ts";
import { isUuid } from "../domain/ids.ts";
import { MerchantRepository } from "../domain/merchants/merchant.repository.ts";
import { SecretBox, secretKey } from "../domain/secrets/secret-box.ts";
import { resealAllSecrets, sealPlaintextSecrets } from "../domain/secrets/stored-secrets.ts";
import { loadSecretBox, replaceSecretsKeyFile, secretsKeyFile } from "../runtime/secrets-key.ts";
import { withDatabase } from "./connection.ts";
import { Redis } from "ioredis";
import pino from "pino";
import { SessionEnds } from "../domain/users/session-ends.ts";
import { CliError } from "./errors.ts";
import { createOutput, describeRoute } from "./output.ts";
import type { CliContext } from "./program.ts";

/** How many entries `ocs audit` prints at most (newest first). */
const AUDIT_CLI_LIMIT = 1_000;

/** `ocs audit` and `ocs secrets …` (SPEC §14). */
export function registerSecurityCommands(program: Command, context: CliContext): void {
  program
    .command("audit")
    .description(`a merchant's audit log, newest first (at most ${AUDIT_CLI_LIMIT} entries)`)
    .requiredOption("--merchant <id>", "the merchant's id")
    .option("--action <action>", "only this action (e.g. sign_in.failed)")
    .option("--json", 'print { "entries": [AuditEntry…] } as one JSON object')
    .action(async (options: { merchant: string; action?: string; json?: boolean }) => {
      const out = createOutput(Boolean(options.json));
      await withDatabase(context.loadConfig(), async ({ route, database }) => {
        if (!isUuid(options.merchant) || !(await new MerchantRepository(database.prisma).exists(options.merchant))) {
          throw new CliError(`Merchant ${options.merchant} not found.`);
        }
        const service = new AuditLogService(new AuditLogRepository(database.prisma));
        const entries = [];
        let after: string | null = null;
        while (entries.length < AUDIT_CLI_LIMIT) {
          const page: AuditPage = await service
            .page(options.merchant, { first: AUDIT_PAGE_MAX, after, filter: { action: (options.action ?? null) as never } })
            .catch((error: unknown) => {
              if (error instanceof NotFoundError) throw new CliError(`Merchant ${options.merchant} not found.`);
              if (error instanceof Error && "problems" in error) throw new CliError(`--action must be one of the audit actions.`);
              throw error;
            });
          entries.push(...page.entries);
          if (!page.hasNextPage || page.entries.length === 0) break;
          after = encodeAuditCursor(page.entries.at(-1)!.id);
        }
        const json = entries.slice(0, AUDIT_CLI_LIMIT).map((entry) => ({
          at: entry.at.toISOString(),
          actor: { kind: entry.actor.kind.toUpperCase(), id: entry.actor.id, label: entry.actor.label },
          action: entry.action,
          target: entry.target,
          address: entry.address,
        }));
        const human = json.length
          ? json
              .map((entry) => [entry.at, entry.action.padEnd(24), `${entry.actor.kind} ${entry.actor.label}`.padEnd(40), entry.target ?? "-", entry.address ?? "-"].join("  "))
              .join("\n")
          : `Merchant ${options.merchant} has no audit entries.`;
        out.result(human, { entries: json });
        out.note(describeRoute(route));
      });
    });

  const secrets = program.command("secrets").description("secrets kept at rest (endpoint signing secrets, store credentials)");
  secrets
    .command("seal")
    .description("seal stored secrets still in plain text with the current key (the server also does this at every start)")
    .option("--json", "print the result as one JSON object")
    .action(async (options: { json?: boolean }) => {
      const out = createOutput(Boolean(options.json));
      const config = context.loadConfig();
      await withDatabase(config, async ({ route, database }) => {
        const report = await sealPlaintextSecrets(database.prisma, loadSecretBox(config));
        out.result(`Sealed ${report.sealed} secret(s) of ${report.examined} stored.`, report);
        out.note(describeRoute(route));
      });
    });

  secrets
    .command("rotate-key")
    .description(
      "re-encrypt every stored secret under a new key. Order: give every instance SECRETS_KEY=<new> and SECRETS_KEY_PREVIOUS=<old>, " +
        "run this, then drop SECRETS_KEY_PREVIOUS. With the generated DATA_DIR/secrets.key, the file is replaced (restart the server).",
    )
    .requiredOption("--new-key <base64>", "the new key: 32 bytes in base64 (openssl rand -base64 32)", newKeyOption)
    .option("--json", "print the result as one JSON object")
    .action(async (options: { newKey: Buffer; json?: boolean }) => {
      const out = createOutput(Boolean(options.json));
      const config = context.loadConfig();
      const current = loadSecretBox(config);
      const next = secretKey(options.newKey);
      // Opens what the current key, the previous keys and the new key sealed; seals with the new key.
      const keys = [current.current, ...current.previousKeys()].filter((key) => key.id !== next.id);
      const box = new SecretBox(next, keys);
      await withDatabase(config, async ({ route, database }) => {
        const report = await resealAllSecrets(database.prisma, box);
        const file = secretsKeyFile(config);
        if (file) replaceSecretsKeyFile(file, options.newKey);
        out.result(
          [
            `Re-encrypted ${report.sealed} secret(s) of ${report.examined} stored under key ${next.id}.`,
            file
              ? `The new key replaced ${file}: restart the server so that it uses it.`
              : "Set SECRETS_KEY to the new key on every instance (and drop SECRETS_KEY_PREVIOUS once all run with it).",
          ].join("\n"),
          { ...report, keyId: next.id, keyFile: file },
        );
        out.note(describeRoute(route));
      });
    });
}

function newKeyOption(value: string): Buffer {
  const key = Buffer.from(value.trim(), "base64");
  if (key.length !== 32) throw new InvalidArgumentError(`It must be 32 bytes in base64 (e.g. ${randomBytes(32).toString("base64")}).`);
  return key;
}

/** Tells the servers (through Redis, when configured) that sessions ended, so their websockets close at once. */
export async function announceEndedSessions(redisUrl: string | null, sessionIds: string[]): Promise<void> {
  if (!redisUrl || sessionIds.length === 0) return;
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    await new SessionEnds(redis, pino({ level: "silent" })).announce(sessionIds);
  } catch {
    // Redis down: the servers' periodic re-check (30 s) closes those sockets instead.
  } finally {
    redis.disconnect();
  }
}
