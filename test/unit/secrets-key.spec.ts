import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { loadSecretBox, SecretsKeyMissingError, SECRETS_KEY_FILE } from "../../src/runtime/secrets-key.ts";

/** Where the key that seals secrets at rest comes from (SPEC §14, docs/security.md "Secrets at rest"). */
const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "ocs-secrets-key-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const POSTGRES = "postgresql://user@127.0.0.1:5432/db";

describe("the secrets key", () => {
  it("is required with NODE_ENV=production on PostgreSQL: no key file is generated, the start is refused", () => {
    const dir = dataDir();
    const config = loadConfig({ NODE_ENV: "production", DATABASE_URL: POSTGRES, DATA_DIR: dir });
    expect(() => loadSecretBox(config)).toThrow(SecretsKeyMissingError);
    expect(() => loadSecretBox(config)).toThrow(/openssl rand -base64 32/);
    expect(() => statSync(path.join(dir, SECRETS_KEY_FILE))).toThrow();
  });

  it("comes from SECRETS_KEY when set (production included), and opens what it sealed", () => {
    const key = Buffer.alloc(32, 9).toString("base64");
    const box = loadSecretBox(loadConfig({ NODE_ENV: "production", DATABASE_URL: POSTGRES, DATA_DIR: dataDir(), SECRETS_KEY: key }));
    const again = loadSecretBox(loadConfig({ DATABASE_URL: POSTGRES, DATA_DIR: dataDir(), SECRETS_KEY: key }));
    expect(again.open(box.seal("whsec_x", "webhook-endpoint:1"), "webhook-endpoint:1")).toBe("whsec_x");
  });

  it("outside production is generated once into DATA_DIR/secrets.key (mode 0600) and reused by the next start", () => {
    const dir = dataDir();
    const config = loadConfig({ DATABASE_URL: POSTGRES, DATA_DIR: dir });
    const first = loadSecretBox(config);
    const file = path.join(dir, SECRETS_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, "utf8").trim(), "base64")).toHaveLength(32);
    const sealed = first.seal("token", "store-connection:1");
    expect(loadSecretBox(config).open(sealed, "store-connection:1")).toBe("token");
  });
});
