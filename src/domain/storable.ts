/**
 * What PostgreSQL can store, checked at the edges (zod schemas, the GraphQL request checks, the Meta callback
 * parser) so that no input travels to the database only to be refused there as a 500.
 *
 * - Text: PostgreSQL's text types cannot hold the NUL character (U+0000), and an unpaired UTF-16 surrogate
 *   (JSON allows "\ud800") is no Unicode text at all: Prisma refuses it and UTF-8 cannot carry it.
 * - Instants: timestamptz is stored through ISO text with a four-digit year; years 0000, negative years and
 *   JavaScript's six-digit years (up to +275760) are refused by PostgreSQL or cannot be written back.
 * - Integers: `Int` columns are PostgreSQL's int4.
 */
export const NUL = "\u0000";

export const INT4_MIN = -2_147_483_648;
export const INT4_MAX = 2_147_483_647;

export const EARLIEST_INSTANT = Date.parse("0001-01-01T00:00:00.000Z");
export const LATEST_INSTANT = Date.parse("9999-12-31T23:59:59.999Z");

export const hasNul = (text: string): boolean => text.includes(NUL);

const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
export const hasUnpairedSurrogate = (text: string): boolean => UNPAIRED_SURROGATE.test(text);

/** Text PostgreSQL stores as given: no NUL, no unpaired surrogate. */
export const isStorableText = (text: string): boolean => !hasNul(text) && !hasUnpairedSurrogate(text);

/** Stored as far as it fits: NULs dropped, unpaired surrogates replaced with U+FFFD. */
export function storableText(text: string): string {
  return text.replaceAll(NUL, "").replace(new RegExp(UNPAIRED_SURROGATE.source, "g"), "\ufffd");
}

export const isInt4 = (value: number): boolean => Number.isInteger(value) && value >= INT4_MIN && value <= INT4_MAX;

export function isStorableInstant(date: Date): boolean {
  const time = date.getTime();
  return Number.isFinite(time) && time >= EARLIEST_INSTANT && time <= LATEST_INSTANT;
}

/** Where a problem sits in parsed JSON (a query, a body, GraphQL variables), as path segments. */
export type ValuePath = (string | number)[];

export type InputProblem = { path: ValuePath; kind: "nul" | "surrogate" } | { path: ValuePath; kind: "list"; max: number };

function textProblem(text: string): "nul" | "surrogate" | null {
  return hasNul(text) ? "nul" : hasUnpairedSurrogate(text) ? "surrogate" : null;
}

/**
 * The first string (or object key) holding a NUL or an unpaired surrogate, or list longer than `maxListLength`,
 * anywhere in `value`.
 * Iterative, with paths built only for the culprit, so that a deeply nested body can exhaust neither the
 * stack nor memory; Buffers and other non-plain objects are not entered.
 */
export function findInputProblem(value: unknown, maxListLength = Number.POSITIVE_INFINITY): InputProblem | null {
  interface Node {
    value: unknown;
    key: string | number | null;
    parent: Node | null;
  }
  const pathOf = (node: Node, last?: string): ValuePath => {
    const reversed: ValuePath = last === undefined ? [] : [last];
    for (let at: Node | null = node; at && at.key !== null; at = at.parent) reversed.push(at.key);
    return reversed.reverse();
  };
  const pending: Node[] = [{ value, key: null, parent: null }];
  while (pending.length) {
    const node = pending.pop()!;
    const current = node.value;
    if (typeof current === "string") {
      const problem = textProblem(current);
      if (problem) return { path: pathOf(node), kind: problem };
    } else if (Array.isArray(current)) {
      if (current.length > maxListLength) return { path: pathOf(node), kind: "list", max: maxListLength };
      for (let index = current.length - 1; index >= 0; index--) pending.push({ value: current[index], key: index, parent: node });
    } else if (isPlainObject(current)) {
      const keys = Object.keys(current);
      for (let index = keys.length - 1; index >= 0; index--) {
        const key = keys[index];
        const problem = textProblem(key);
        if (problem) return { path: pathOf(node, key), kind: problem };
        pending.push({ value: current[key], key, parent: node });
      }
    }
  }
  return null;
}

/** Parsed JSON and query objects (whose prototype may be null or a parser's own empty class), not Buffers. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && Object.prototype.toString.call(value) === "[object Object]";
}
