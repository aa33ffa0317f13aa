import type { OrderView } from "../domain/orders/order.view.ts";
import type { OrderStatus as DomainStatus } from "../domain/orders/order.schemas.ts";
import type { TotalCount } from "../domain/orders/order-count.ts";
import type {
  CountPrecision,
  CustomerAction,
  DeliveryStatus,
  Order,
  OrderEdge,
  OrderStatus,
  PageInfo,
} from "../generated/graphql.ts";

/**
 * The one conversion between the public order of REST and webhooks (the envelope's `data`: lower-case enums,
 * JSON numbers) and GraphQL's `Order` (enums in GraphQL style). Queries, mutations and subscriptions all go
 * through it, so every transport carries the same data.
 */
export function toGraphQLOrder(view: OrderView): OrderSource {
  return {
    id: view.id,
    externalOrderId: view.externalOrderId,
    status: view.status.toUpperCase() as OrderStatus,
    customerAction: view.customerAction ? (view.customerAction.toUpperCase() as CustomerAction) : null,
    deliveryStatus: view.deliveryStatus ? (view.deliveryStatus.toUpperCase() as DeliveryStatus) : null,
    customerName: view.customerName,
    customerPhone: view.customerPhone,
    customerAddress: view.customerAddress,
    subtotal: view.subtotal,
    shippingCost: view.shippingCost,
    totalCost: view.totalCost,
    currency: view.currency,
    failureReason: view.failureReason,
    errorCode: view.errorCode,
    items: view.items.map((item) => ({
      id: item.id,
      productName: item.productName,
      variantName: item.variantName,
      quantity: item.quantity,
      unitPrice: item.unitPrice,
      totalPrice: item.totalPrice,
    })),
    createdAt: view.createdAt,
    updatedAt: view.updatedAt,
  };
}

/** An Order as resolvers return it: every field but those with resolvers of their own (timeline). */
export type OrderSource = Omit<Order, "timeline" | "messages" | "conversationWindow">;

/** `PENDING` → `pending`: GraphQL's enum value as the domain's status. */
export function toDomainStatus(status: OrderStatus): DomainStatus {
  return status.toLowerCase() as DomainStatus;
}

/**
 * What the `orders` resolver returns for an `OrderConnection` (codegen mapper): the page, and the count of
 * every matching order as a function, so the count query runs only when `totalCount` or `totalCountPrecision` is
 * selected (once for both).
 */
export interface OrderConnectionSource {
  edges: (Omit<OrderEdge, "node"> & { node: OrderSource })[];
  pageInfo: PageInfo;
  countAll(): Promise<TotalCount>;
}

/** The domain's count precision as GraphQL's enum. */
export function toCountPrecision(precision: TotalCount["precision"]): CountPrecision {
  return precision === "exact" ? "EXACT" : "AT_LEAST";
}
