import type { OrdersFilter } from "./apply-order-event.ts";

/**
 * The CSV download of the orders page (SPEC §15): GET /api/v1/orders/export with the page's own filters (statuses,
 * the local-day range as instants, the search) and the console's mode. A plain link: the browser sends the session
 * cookie, and the server streams the file as an attachment.
 */
export function exportUrl(filter: OrdersFilter, mode: "test" | "live", extra: { needsReply?: boolean } = {}): string {
  const params = new URLSearchParams();
  if (filter.status.length) params.set("status", filter.status.map((status) => status.toLowerCase()).join(","));
  if (filter.createdFrom) params.set("createdFrom", filter.createdFrom);
  if (filter.createdTo) params.set("createdTo", filter.createdTo);
  if (filter.search) params.set("search", filter.search);
  if (extra.needsReply) params.set("needsReply", "true");
  params.set("mode", mode);
  return `/api/v1/orders/export?${params.toString()}`;
}
