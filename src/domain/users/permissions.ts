import type { UserRole } from "./user.repository.ts";

/**
 * What each console role may reach (SPEC §10, §15), in one table that every door consults: GraphQL over HTTP and
 * over the websocket check each field of an operation before it runs (src/graphql/role-check.ts), REST routes that
 * accept a console session check their capability, and the console hides what the server would refuse (it reads
 * `viewer.user.role`). API keys are not roles: they keep their own rules.
 *
 * - `admin`: everything.
 * - `viewer`: reads only; every mutation is refused (and so is the CSV export: SPEC §15 names admins and agents).
 * - `agent`: the follow-up desk. Deny by default: only the fields below, so a field added later (stores, audit log,
 *   users, …) is refused to agents until it is listed here on purpose. Inside an order, everything but its webhook
 *   deliveries.
 *
 * Coordinates are `Type.field` (GraphQL schema coordinates) or `REST.<capability>`.
 */
export type Coordinate = `${string}.${string}`;

/** GraphQL root fields and REST capabilities an agent may use. Fields that do not exist yet are harmless here. */
const AGENT_ALLOWED_ROOTS: ReadonlySet<string> = new Set([
  // Who am I (the console needs it to show the right pages).
  "Query.viewer",
  // Orders, their timeline and conversation, and the dashboard figures.
  "Query.order",
  "Query.orders",
  "Query.orderStats",
  // Recording an answer given on the phone or in person, and replying in the conversation (SPEC §11).
  "Mutation.recordCustomerAnswer",
  "Mutation.sendOrderMessage",
  "Mutation.markOrderMessagesRead",
  // Live updates of orders and of customers' messages.
  "Subscription.orderStatusChanged",
  "Subscription.orderMessageReceived",
  // CSV export over REST with the session cookie.
  "REST.exportOrders",
]);

/** Fields of non-root types an agent may not select (they lead to what the role must not read). */
const AGENT_DENIED_FIELDS: ReadonlySet<string> = new Set(["Order.webhookDeliveries", "Order.store", "Order.storeConnection"]);

const ROOT_TYPES = new Set(["Query", "Mutation", "Subscription", "REST"]);

export function isRootCoordinate(coordinate: Coordinate): boolean {
  return ROOT_TYPES.has(coordinate.slice(0, coordinate.indexOf(".")));
}

/** Whether a console user of `role` may use the field or capability `coordinate`. */
export function roleMay(role: UserRole, coordinate: Coordinate): boolean {
  switch (role) {
    case "admin":
      return true;
    case "viewer":
      return !coordinate.startsWith("Mutation.") && coordinate !== "REST.exportOrders";
    case "agent":
      return isRootCoordinate(coordinate) ? AGENT_ALLOWED_ROOTS.has(coordinate) : !AGENT_DENIED_FIELDS.has(coordinate);
  }
}
