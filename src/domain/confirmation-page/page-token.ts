import { createHmac, timingSafeEqual } from "node:crypto";
import { isUuid } from "../ids.ts";

/**
 * The confirmation page's token (SPEC §12): the order id and a 128-bit HMAC-SHA256 tag of it, keyed with a key
 * derived from the secrets key, base64url (43 characters). Derived, never stored: the database alone does not
 * reveal it, every read of the link gives the same URL, and checking one costs an HMAC and no query. The order
 * id inside is no secret (the customer's WhatsApp buttons carry it already); the tag is what cannot be guessed.
 * Changing SECRETS_KEY changes every link (old links then answer the 404 page).
 */
const TAG_BYTES = 16;
const ID_BYTES = 16;
export const PAGE_TOKEN_LENGTH = Math.ceil(((ID_BYTES + TAG_BYTES) * 4) / 3);
const TOKEN_SHAPE = new RegExp(`^[A-Za-z0-9_-]{${PAGE_TOKEN_LENGTH}}$`);

export class PageTokens {
  private readonly key: Buffer;

  constructor(secretsKey: Buffer) {
    // A key of its own: a tag of this kind can never be mistaken for any other use of the secrets key.
    this.key = createHmac("sha256", secretsKey).update("ocs-confirmation-page-token-v1").digest();
  }

  tokenFor(orderId: string): string {
    const id = Buffer.from(orderId.replace(/-/g, ""), "hex");
    return Buffer.concat([id, this.tag(id)]).toString("base64url");
  }

  /** The order id a token names, or null when it is not one of ours (constant-time tag check). */
  orderIdOf(token: string): string | null {
    if (!TOKEN_SHAPE.test(token)) return null;
    const bytes = Buffer.from(token, "base64url");
    if (bytes.length !== ID_BYTES + TAG_BYTES) return null;
    const id = bytes.subarray(0, ID_BYTES);
    if (!timingSafeEqual(bytes.subarray(ID_BYTES), this.tag(id))) return null;
    const hex = id.toString("hex");
    const orderId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    return isUuid(orderId) ? orderId : null;
  }

  private tag(id: Buffer): Buffer {
    return createHmac("sha256", this.key).update(id).digest().subarray(0, TAG_BYTES);
  }
}
