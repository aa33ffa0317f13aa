import { ValidationError } from "../errors.ts";
import { decodeCursor, encodeCursor, type OrderCursor } from "./order-cursor.ts";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./order.schemas.ts";

/** Keyset pages (newest first) as the order list and the webhook delivery log serve them. */
/** A page request as the transports pass it: the size (bounded here too) and the previous page's cursor. */
export interface PageRequest {
  limit?: number;
  cursor?: string | null;
}

/** The bounded size and the decoded cursor of a page request; a cursor this API did not issue is refused. */
export function readPageRequest(page: PageRequest): { limit: number; after: OrderCursor | null } {
  const limit = Math.min(Math.max(page.limit ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
  const after = page.cursor ? decodeCursor(page.cursor) : null;
  if (page.cursor && !after) throw new ValidationError([{ field: "cursor", key: "field.format.cursor" }]);
  return { limit, after };
}

/**
 * A page from the `limit + 1` newest rows a repository returned: the extra row only says there is more, and the
 * last visible row is where the next page starts.
 */
export function keysetPage<T extends OrderCursor>(rows: T[], limit: number): KeysetPage<T>;
/** The same for rows that carry their position otherwise (an order's view: its ISO `createdAt`). */
export function keysetPage<T>(rows: T[], limit: number, cursorOf: (row: T) => OrderCursor): KeysetPage<T>;
export function keysetPage<T>(rows: T[], limit: number, cursorOf = (row: T) => row as unknown as OrderCursor): KeysetPage<T> {
  const hasMore = rows.length > limit;
  const visible = rows.slice(0, limit);
  const last = visible.at(-1);
  return { rows: visible, hasMore, nextCursor: hasMore && last !== undefined ? encodeCursor(cursorOf(last)) : null };
}

export interface KeysetPage<T> {
  rows: T[];
  hasMore: boolean;
  nextCursor: string | null;
}
