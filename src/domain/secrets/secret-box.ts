import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/**
 * Envelope encryption for secrets we must read back (webhook endpoint secrets, store credentials; SPEC §14):
 * AES-256-GCM with a random 96-bit nonce, the key's id in the envelope so a rotation can tell which key sealed
 * a value, and a caller-chosen context bound as additional data so a sealed value copied into another row
 * (another endpoint, another store) does not open there.
 *
 * Envelope: `ocs1.<key id>.<nonce>.<ciphertext>.<tag>`, each part base64url.
 */
export const SEALED_PREFIX = "ocs1.";

export class SecretBoxError extends Error {}

export interface SecretKey {
  /** Derived from the key itself: the same key always has the same id, and the id reveals nothing of it. */
  id: string;
  key: Buffer;
}

export function secretKey(key: Buffer): SecretKey {
  if (key.length !== 32) throw new SecretBoxError("a secrets key is 32 bytes");
  return { id: createHash("sha256").update("ocs-secrets-key-id").update(key).digest("base64url").slice(0, 8), key };
}

export class SecretBox {
  private readonly byId: Map<string, SecretKey>;

  /** Seals with `current`; opens values sealed with it or with any of `previous` (during a rotation). */
  constructor(
    readonly current: SecretKey,
    previous: SecretKey[] = [],
  ) {
    this.byId = new Map([...previous, current].map((key) => [key.id, key]));
  }

  seal(plaintext: string, context: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.current.key, nonce);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    const parts = [nonce, ciphertext, cipher.getAuthTag()].map((part) => part.toString("base64url"));
    return `${SEALED_PREFIX}${this.current.id}.${parts.join(".")}`;
  }

  open(sealed: string, context: string): string {
    const parts = sealed.startsWith(SEALED_PREFIX) ? sealed.slice(SEALED_PREFIX.length).split(".") : [];
    if (parts.length !== 4) throw new SecretBoxError("not a sealed secret");
    const [keyId, nonce, ciphertext, tag] = parts;
    const key = this.byId.get(keyId);
    if (!key) throw new SecretBoxError(`sealed with an unknown key (id ${keyId})`);
    try {
      const decipher = createDecipheriv("aes-256-gcm", key.key, Buffer.from(nonce, "base64url"));
      decipher.setAAD(Buffer.from(context, "utf8"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
    } catch {
      throw new SecretBoxError("a sealed secret failed authentication (wrong key or context, or altered)");
    }
  }

  /** The keys besides the current one that this box can open (for a rotation that builds a new box). */
  previousKeys(): SecretKey[] {
    return [...this.byId.values()].filter((key) => key.id !== this.current.id);
  }

  static isSealed(value: string): boolean {
    return value.startsWith(SEALED_PREFIX);
  }

  /** True when `sealed` was sealed with a key other than the current one (a rotation has yet to re-seal it). */
  needsReseal(sealed: string): boolean {
    return !sealed.startsWith(`${SEALED_PREFIX}${this.current.id}.`);
  }
}
