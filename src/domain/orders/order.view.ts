import type { Prisma } from "../../generated/prisma/client.ts";
import type { CustomerAction, DeliveryStatus, OrderEventName, Status } from "./order-state.ts";

export type OrderRecord = Prisma.OrderGetPayload<{ include: { items: true } }>;

export interface OrderItemView {
  id: string;
  productName: string;
  variantName: string | null;
  quantity: number;
  unitPrice: number;
  totalPrice: number;
}

/** The public order: the seed's fields, in the seed's order, with its JSON types. `note` never appears. */
export interface OrderView {
  id: string;
  externalOrderId: string;
  status: Status;
  customerAction: CustomerAction | null;
  deliveryStatus: DeliveryStatus | null;
  customerName: string;
  customerPhone: string;
  customerAddress: string | null;
  subtotal: number;
  shippingCost: number;
  totalCost: number;
  currency: string;
  failureReason: string | null;
  errorCode: number | null;
  items: OrderItemView[];
  createdAt: string;
  updatedAt: string;
}

/** The envelope merchants receive, byte for byte the payload stored in the outbox. */
export interface OrderEventEnvelope {
  event: OrderEventName | typeof CUSTOMER_MESSAGE_EVENT;
  timestamp: string;
  data: OrderView;
  /** `order.customer_message` only (SPEC §11): the customer's words. */
  message?: { id: string; text: string; receivedAt: string };
}

/** The opt-in event of a customer's unclear text (SPEC §11): only endpoints that list it receive it. */
export const CUSTOMER_MESSAGE_EVENT = "order.customer_message";

// Decimal(18,4) values with at most 4 decimals and |x| ≤ 1e12 round-trip exactly through a JS number's
// shortest decimal representation, so Number(decimal text) returns what the client sent.
const toNumber = (value: Prisma.Decimal): number => Number(value.toString());

export function toOrderView(record: OrderRecord): OrderView {
  return {
    id: record.id,
    externalOrderId: record.externalOrderId,
    status: record.status,
    customerAction: record.customerAction,
    deliveryStatus: record.deliveryStatus,
    customerName: record.customerName,
    customerPhone: record.customerPhone,
    customerAddress: record.customerAddress,
    subtotal: toNumber(record.subtotal),
    shippingCost: toNumber(record.shippingCost),
    totalCost: toNumber(record.totalCost),
    currency: record.currency,
    failureReason: record.failureReason,
    errorCode: record.errorCode,
    items: [...record.items]
      .sort((a, b) => a.position - b.position)
      .map((item) => ({
        id: item.id,
        productName: item.productName,
        variantName: item.variantName,
        quantity: toNumber(item.quantity),
        unitPrice: toNumber(item.unitPrice),
        totalPrice: toNumber(item.totalPrice),
      })),
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}

export function eventEnvelope(event: OrderEventName, timestamp: Date, order: OrderView): OrderEventEnvelope {
  return { event, timestamp: timestamp.toISOString(), data: order };
}
