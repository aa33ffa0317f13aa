import { isUuid } from "../ids.ts";
import { isStorableInstant } from "../storable.ts";

/**
 * Opaque keyset cursor: the (createdAt, id) of the last row of a page. Pages stay stable while new
 * orders are inserted, because a cursor never counts rows.
 */
export interface OrderCursor {
  createdAt: Date;
  id: string;
}

export function encodeCursor(cursor: OrderCursor): string {
  return Buffer.from(`${cursor.createdAt.toISOString()}|${cursor.id}`, "utf8").toString("base64url");
}

export function decodeCursor(text: string): OrderCursor | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) return null;
  const [iso, id, extra] = Buffer.from(text, "base64url").toString("utf8").split("|");
  if (extra !== undefined || !id || !isUuid(id)) return null;
  const createdAt = new Date(iso);
  // Only instants PostgreSQL can compare with (a forged cursor may carry year -1 or +275760).
  if (!isStorableInstant(createdAt) || createdAt.toISOString() !== iso) return null;
  return { createdAt, id };
}
