import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import { SecretBox, secretKey } from "../domain/secrets/secret-box.ts";

export class SecretsKeyMissingError extends Error {
  constructor() {
    super(
      "SECRETS_KEY is required with NODE_ENV=production on PostgreSQL: secrets at rest are encrypted with it " +
        "(32 bytes in base64; generate one with: openssl rand -base64 32)",
    );
  }
}

export const SECRETS_KEY_FILE = "secrets.key";

/**
 * The key that seals secrets at rest: SECRETS_KEY when set; otherwise, outside production on PostgreSQL, a key
 * generated once into DATA_DIR/secrets.key (mode 0600) so the two-command start stays two commands. Every
 * instance and the CLI must then share DATA_DIR.
 */
export function loadSecretBox(config: Config, logger?: Logger): SecretBox {
  const previous = (config.previousSecretsKeys ?? []).map((key) => secretKey(key));
  if (config.secretsKey) return new SecretBox(secretKey(config.secretsKey), previous);
  if (config.production && config.database.kind === "postgres") throw new SecretsKeyMissingError();
  // An in-memory database keeps nothing past the process, nor need its sealed secrets.
  if (config.database.kind === "embedded" && config.database.dataDir === null) return new SecretBox(secretKey(randomBytes(32)));
  const file = path.resolve(config.dataDir, SECRETS_KEY_FILE);
  let key: Buffer;
  try {
    key = Buffer.from(readFileSync(file, "utf8").trim(), "base64");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    key = randomBytes(32);
    mkdirSync(path.dirname(file), { recursive: true });
    // "wx": two processes starting at once must not both write a key; the loser reads the winner's.
    try {
      writeFileSync(file, `${key.toString("base64")}\n`, { mode: 0o600, flag: "wx" });
      chmodSync(file, 0o600);
      logger?.warn({ file }, "SECRETS_KEY is not set: generated a secrets key file (every instance and the CLI must share it)");
    } catch (writeError) {
      if ((writeError as NodeJS.ErrnoException).code !== "EEXIST") throw writeError;
      key = Buffer.from(readFileSync(file, "utf8").trim(), "base64");
    }
  }
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
  return new SecretBox(secretKey(key), previous);
}

/** The generated key file of DATA_DIR, or null when the key comes from SECRETS_KEY (or there is no file). */
export function secretsKeyFile(config: Config): string | null {
  if (config.secretsKey) return null;
  if (config.database.kind === "embedded" && config.database.dataDir === null) return null;
  return path.resolve(config.dataDir, SECRETS_KEY_FILE);
}

/** Replaces the generated key file (after `ocs secrets rotate-key` re-sealed everything with `key`), atomically. */
export function replaceSecretsKeyFile(file: string, key: Buffer): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${key.toString("base64")}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}
