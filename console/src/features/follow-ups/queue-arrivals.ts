/**
 * Which orders joined the follow-up queue since the last look, for the opt-in browser notification: the ids of
 * `current` not in `seen`. The first look (seen = null) notifies nothing: what was already waiting when the page
 * opened is on the screen.
 */
export function newArrivals<T extends { id: string }>(seen: ReadonlySet<string> | null, current: readonly T[]): T[] {
  if (seen === null) return [];
  return current.filter((order) => !seen.has(order.id));
}

/** The ids to remember after a look: the ones seen before and the current ones (bounded to the latest 1,000). */
export function remember(seen: ReadonlySet<string> | null, current: readonly { id: string }[]): Set<string> {
  const next = [...(seen ?? []), ...current.map((order) => order.id)];
  return new Set(next.slice(-1_000));
}
