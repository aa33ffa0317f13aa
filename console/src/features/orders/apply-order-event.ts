/**
 * The live orders table: a page of orders from the query, then every orderStatusChanged event applied to it in
 * place (no refetch). Pure, so it is unit-tested without a browser.
 */
export interface LiveOrder {
  id: string;
  status: string;
  createdAt: string;
  externalOrderId: string;
  customerPhone: string;
  customerName?: string;
}

export interface OrdersPageState<T extends LiveOrder> {
  rows: T[];
  /** How many times each row changed since the page loaded: the row is re-keyed, so its highlight replays. */
  changes: Record<string, number>;
}

export interface OrdersFilter {
  status: string[];
  /** Inclusive lower bound, ISO instant. */
  createdFrom: string | null;
  /** Exclusive upper bound, ISO instant. */
  createdTo: string | null;
  /** The API's OrderFilter.search: a prefix of the order id or the phone, or of the customer's name ignoring case. */
  search: string | null;
}

export const NO_FILTER: OrdersFilter = { status: [], createdFrom: null, createdTo: null, search: null };

export function pageState<T extends LiveOrder>(rows: T[]): OrdersPageState<T> {
  return { rows, changes: {} };
}

/** Whether an order belongs in a list with this filter (the server's rules, for orders that arrive live). */
export function matchesFilter(order: LiveOrder, filter: OrdersFilter): boolean {
  if (filter.status.length > 0 && !filter.status.includes(order.status)) return false;
  const created = Date.parse(order.createdAt);
  if (filter.createdFrom && created < Date.parse(filter.createdFrom)) return false;
  if (filter.createdTo && created >= Date.parse(filter.createdTo)) return false;
  if (filter.search && !matchesSearch(order, filter.search)) return false;
  return true;
}

/** The server's prefix search: externalOrderId or customerPhone (a leading + ignored) starts with it, or customerName ignoring case. */
export function matchesSearch(order: LiveOrder, search: string): boolean {
  if (order.externalOrderId.startsWith(search)) return true;
  if (order.customerPhone.startsWith(search.replace(/^\+/, ""))) return true;
  return (order.customerName ?? "").toLocaleLowerCase().startsWith(search.toLocaleLowerCase());
}

/**
 * A known row is replaced where it is (even when it no longer matches a status filter: rows do not jump away
 * under the user's cursor); a new order is put on top, only on the first page (newest first) and only when it
 * matches the filter. Anything else leaves the state as it was (same object, so React does not re-render).
 */
export function applyOrderEvent<T extends LiveOrder>(
  state: OrdersPageState<T>,
  order: T,
  options: { firstPage: boolean; filter: OrdersFilter },
): OrdersPageState<T> {
  const index = state.rows.findIndex((row) => row.id === order.id);
  if (index >= 0) {
    const rows = state.rows.slice();
    rows[index] = { ...rows[index], ...order };
    return { rows, changes: { ...state.changes, [order.id]: (state.changes[order.id] ?? 0) + 1 } };
  }
  if (!options.firstPage || !matchesFilter(order, options.filter)) return state;
  const rows = [order, ...state.rows].sort(newestFirst);
  return { rows, changes: { ...state.changes, [order.id]: 1 } };
}

function newestFirst(a: LiveOrder, b: LiveOrder): number {
  const byTime = Date.parse(b.createdAt) - Date.parse(a.createdAt);
  return byTime !== 0 ? byTime : b.id.localeCompare(a.id);
}
