import { describe, expect, it } from "vitest";
import { applyOrderEvent, matchesFilter, NO_FILTER, pageState, type LiveOrder } from "./apply-order-event.ts";
import { readOrdersParams, toFilter, writeOrdersParams } from "./orders-url.ts";

const order = (id: string, createdAt: string, status = "PENDING"): LiveOrder => ({
  id,
  status,
  createdAt,
  externalOrderId: `ORD-${id}`,
  customerPhone: "966501234567",
  customerName: "Layla Hassan",
});

describe("applyOrderEvent (the live orders table)", () => {
  const page = pageState([order("b", "2026-11-24T10:00:02.000Z"), order("a", "2026-11-24T10:00:01.000Z")]);

  it("replaces a known row where it is and counts the change (for the highlight)", () => {
    const next = applyOrderEvent(page, order("a", "2026-11-24T10:00:01.000Z", "CONFIRMED"), { firstPage: true, filter: NO_FILTER });
    expect(next.rows.map((row) => [row.id, row.status])).toEqual([["b", "PENDING"], ["a", "CONFIRMED"]]);
    expect(next.changes).toEqual({ a: 1 });
    const again = applyOrderEvent(next, order("a", "2026-11-24T10:00:01.000Z", "CONFIRMED"), { firstPage: true, filter: NO_FILTER });
    expect(again.changes).toEqual({ a: 2 });
  });

  it("keeps a changed row even when it no longer matches the status filter (rows do not jump away)", () => {
    const next = applyOrderEvent(page, order("b", "2026-11-24T10:00:02.000Z", "CANCELED"), { firstPage: true, filter: { ...NO_FILTER, status: ["PENDING"] } });
    expect(next.rows.map((row) => row.status)).toEqual(["CANCELED", "PENDING"]);
  });

  it("puts a new order on top of the first page only, and only when it matches the filter", () => {
    const fresh = order("c", "2026-11-24T10:00:03.000Z");
    expect(applyOrderEvent(page, fresh, { firstPage: true, filter: NO_FILTER }).rows.map((row) => row.id)).toEqual(["c", "b", "a"]);
    expect(applyOrderEvent(page, fresh, { firstPage: false, filter: NO_FILTER })).toBe(page);
    expect(applyOrderEvent(page, fresh, { firstPage: true, filter: { ...NO_FILTER, status: ["CONFIRMED"] } })).toBe(page);
    expect(applyOrderEvent(page, fresh, { firstPage: true, filter: { ...NO_FILTER, createdTo: "2026-11-24T10:00:03.000Z" } })).toBe(page);
  });
});

describe("matchesFilter", () => {
  const o = order("x", "2026-11-24T10:00:00.000Z");
  it("applies every given condition, with the API's inclusive from and exclusive to", () => {
    expect(matchesFilter(o, NO_FILTER)).toBe(true);
    expect(matchesFilter(o, { ...NO_FILTER, createdFrom: "2026-11-24T10:00:00.000Z" })).toBe(true);
    expect(matchesFilter(o, { ...NO_FILTER, createdTo: "2026-11-24T10:00:00.000Z" })).toBe(false);
    expect(matchesFilter(o, { ...NO_FILTER, search: "ORD-" })).toBe(true);
    expect(matchesFilter(o, { ...NO_FILTER, search: "+96650" })).toBe(true);
    expect(matchesFilter(o, { ...NO_FILTER, search: "layla h" })).toBe(true);
    expect(matchesFilter(o, { ...NO_FILTER, search: "Hassan" })).toBe(false);
    expect(matchesFilter(o, { ...NO_FILTER, search: "966500000000" })).toBe(false);
  });
});

describe("the orders URL", () => {
  it("round-trips filters and drops what is not valid", () => {
    const params = readOrdersParams(new URLSearchParams("status=PENDING,NOPE&from=2026-11-01&to=bad&q=%20ORD-1%20&after=abc"));
    expect(params).toEqual({ status: ["PENDING"], from: "2026-11-01", to: "", q: "ORD-1", needsReply: false, after: "abc" });
    expect(readOrdersParams(new URLSearchParams("needsReply=1")).needsReply).toBe(true);
    expect(writeOrdersParams(params).toString()).toBe("status=PENDING&from=2026-11-01&q=ORD-1&after=abc");
  });

  it("takes local calendar days (to includes its whole day) and passes the search box as the API's prefix search", () => {
    const filter = toFilter({ status: [], from: "2026-11-01", to: "2026-11-01", q: "+966501234567", after: null });
    expect(Date.parse(filter.createdTo!) - Date.parse(filter.createdFrom!)).toBe(24 * 3600 * 1000);
    expect(new Date(filter.createdFrom!).getHours()).toBe(0);
    expect(filter.search).toBe("+966501234567");
    expect(toFilter({ status: [], from: "", to: "", q: "ORD-10", after: null }).search).toBe("ORD-10");
    expect(toFilter({ status: [], from: "", to: "", q: "", after: null }).search).toBeNull();
  });
});
