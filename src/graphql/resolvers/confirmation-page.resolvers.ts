import type { AppServices } from "../../app-services.ts";
import type { OrderResolvers } from "../../generated/graphql.ts";

/** SPEC §12 over GraphQL: Order.confirmationUrl (admins, agents and API keys; null for console viewers). */
export function confirmationPageResolvers(services: AppServices) {
  const Order: OrderResolvers = {
    // The parent order was already authorised for this caller; only the role decides here.
    confirmationUrl: (order, _args, context) =>
      context.caller && context.caller.session?.user.role !== "viewer" ? services.confirmationPages.urlOf(order.id) : null,
  };
  return { Order };
}
