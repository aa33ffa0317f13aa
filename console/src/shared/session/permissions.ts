import type { UserRole } from "../../gql/graphql.ts";

/**
 * Which pages a console role sees. It mirrors the server's rules (src/domain/users/permissions.ts), which are
 * what counts: the console only hides what the server would refuse (FORBIDDEN), so nobody clicks into an error.
 *
 * - ADMIN: everything.
 * - VIEWER: every page, read only (no buttons that change anything, no CSV export).
 * - AGENT: the follow-up desk: Follow-up, Orders (with export), Analytics; not keys, webhooks, stores, settings,
 *   security, explorer.
 */
export type Page = "followUps" | "orders" | "analytics" | "keys" | "webhooks" | "stores" | "settings" | "security" | "explorer";

const AGENT_PAGES: ReadonlySet<Page> = new Set(["followUps", "orders", "analytics"]);

export function canSee(role: UserRole | null | undefined, page: Page): boolean {
  // The audit log (Security) is for admins only.
  if (page === "security") return role === "ADMIN";
  return role !== "AGENT" || AGENT_PAGES.has(page);
}

/** Recording an answer and the CSV export: admins and agents (viewers only read). */
export const canWorkOrders = (role: UserRole | null | undefined) => role === "ADMIN" || role === "AGENT";

/** Canceling an order, webhook deliveries, the getting-started checklist: admins (and viewers may read the latter two). */
export const isAgent = (role: UserRole | null | undefined) => role === "AGENT";
