import { NO_FILTER, type OrdersFilter } from "./apply-order-event.ts";

/** The orders page's filters live in the URL (shareable, reload-safe): ?status=PENDING,CONFIRMED&from=2026-11-01&to=2026-11-24&q=ORD-1&after=… */
export interface OrdersQueryParams {
  status: string[];
  from: string;
  to: string;
  q: string;
  /** Only orders whose customer's latest message waits for a reply (SPEC §11). */
  needsReply?: boolean;
  after: string | null;
}

const STATUSES = ["PENDING", "CONFIRMED", "CANCELED", "FAILED", "EXPIRED"];
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function readOrdersParams(search: URLSearchParams): OrdersQueryParams {
  return {
    status: (search.get("status") ?? "").split(",").filter((s) => STATUSES.includes(s)),
    from: DATE.test(search.get("from") ?? "") ? search.get("from")! : "",
    to: DATE.test(search.get("to") ?? "") ? search.get("to")! : "",
    q: (search.get("q") ?? "").trim().slice(0, 100),
    needsReply: search.get("needsReply") === "1",
    after: search.get("after") || null,
  };
}

export function writeOrdersParams(params: OrdersQueryParams): URLSearchParams {
  const search = new URLSearchParams();
  if (params.status.length) search.set("status", params.status.join(","));
  if (params.from) search.set("from", params.from);
  if (params.to) search.set("to", params.to);
  if (params.q) search.set("q", params.q);
  if (params.needsReply) search.set("needsReply", "1");
  if (params.after) search.set("after", params.after);
  return search;
}

/**
 * Dates are the user's local calendar days: "to" includes the whole day (the API's createdTo is exclusive).
 * The search box is the API's prefix search (order id, phone or customer name).
 */
export function toFilter(params: OrdersQueryParams): OrdersFilter {
  const filter: OrdersFilter = { ...NO_FILTER, status: params.status };
  if (params.from) filter.createdFrom = localDayStart(params.from).toISOString();
  if (params.to) {
    const end = localDayStart(params.to);
    end.setDate(end.getDate() + 1);
    filter.createdTo = end.toISOString();
  }
  if (params.q) filter.search = params.q;
  return filter;
}

function localDayStart(day: string): Date {
  const [year, month, date] = day.split("-").map(Number);
  return new Date(year, month - 1, date);
}
