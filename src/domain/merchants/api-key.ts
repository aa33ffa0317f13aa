import { createHash, randomInt } from "node:crypto";

/** `ek_live_…` / `ek_test_…` followed by 40 base62 characters (≈ 238 bits of randomness). */
export type KeyMode = "live" | "test";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const SECRET_LENGTH = 40;
const KEY_PATTERN = /^ek_(live|test)_[0-9A-Za-z]{32,128}$/;

export function generateApiKey(mode: KeyMode): string {
  let secret = "";
  for (let i = 0; i < SECRET_LENGTH; i++) secret += BASE62[randomInt(BASE62.length)];
  return `ek_${mode}_${secret}`;
}

/** Keys carry enough entropy that a fast hash is safe; it also lets a lookup be one indexed equality. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

export function parseApiKey(key: string): { mode: KeyMode } | null {
  const match = KEY_PATTERN.exec(key);
  return match ? { mode: match[1] as KeyMode } : null;
}

/** What may be shown again after creation: `ek_test_Ab12`. */
export function displayPrefix(key: string): string {
  return key.slice(0, `ek_test_`.length + 4);
}

