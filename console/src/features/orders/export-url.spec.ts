import { describe, expect, it } from "vitest";
import { NO_FILTER } from "./apply-order-event.ts";
import { exportUrl } from "./export-url.ts";

describe("exportUrl", () => {
  it("is the REST export with the page's filters and the console's mode", () => {
    expect(exportUrl(NO_FILTER, "test")).toBe("/api/v1/orders/export?mode=test");
    expect(exportUrl(NO_FILTER, "live", { needsReply: true })).toBe("/api/v1/orders/export?needsReply=true&mode=live");
    const url = new URL(
      exportUrl({ status: ["PENDING", "CONFIRMED"], createdFrom: "2026-11-01T21:00:00.000Z", createdTo: "2026-11-02T21:00:00.000Z", search: "محمد & co" }, "live"),
      "http://x",
    );
    expect(url.pathname).toBe("/api/v1/orders/export");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      status: "pending,confirmed",
      createdFrom: "2026-11-01T21:00:00.000Z",
      createdTo: "2026-11-02T21:00:00.000Z",
      search: "محمد & co",
      mode: "live",
    });
  });
});
