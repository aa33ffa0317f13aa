import { z } from "zod";
import { INT4_MAX } from "../domain/storable.ts";
import { IDEMPOTENCY_KEY_FORMAT } from "../domain/idempotency/idempotency.service.ts";
import {
  MAX_STATUS_FILTER_ENTRIES,
  ORDER_STATUSES,
  orderListFilter,
  pageCursor,
  pageLimit,
  type OrderFilter,
} from "../domain/orders/order.schemas.ts";

/** Response and parameter schemas of the REST surface; they validate requests and document responses. */
const nullable = <T extends z.ZodType>(schema: T) => schema.nullable();

export const orderItemSchema = z
  .object({
    id: z.string(),
    productName: z.string(),
    variantName: nullable(z.string()),
    quantity: z.number(),
    unitPrice: z.number(),
    totalPrice: z.number(),
  })
  .meta({ id: "OrderItem" });

export const orderSchema = z
  .object({
    id: z.string().meta({ description: "Assigned by the service" }),
    externalOrderId: z.string(),
    status: z.enum(ORDER_STATUSES),
    customerAction: nullable(z.enum(["approved", "canceled"])),
    deliveryStatus: nullable(z.enum(["sent", "delivered", "read", "failed"])),
    customerName: z.string(),
    customerPhone: z.string(),
    customerAddress: nullable(z.string()),
    subtotal: z.number(),
    shippingCost: z.number(),
    totalCost: z.number(),
    currency: z.string(),
    failureReason: nullable(z.string()).meta({ description: "Provider's error text, display only" }),
    errorCode: nullable(z.number().int()).meta({ description: "Provider's numeric error code, for programmatic handling" }),
    items: z.array(orderItemSchema),
    createdAt: z.string().meta({ description: "ISO 8601 UTC with milliseconds" }),
    updatedAt: z.string(),
  })
  .meta({ id: "Order" });

export const errorSchema = z
  .object({ success: z.literal(false), message: z.string(), error: z.string() })
  .catchall(z.unknown())
  .meta({ id: "Error", description: "{ success: false, message, error: CODE, ...extra fields of the code }" });

export const validationErrorSchema = z
  .object({
    success: z.literal(false),
    message: z.string(),
    error: z.literal("VALIDATION_ERROR"),
    errorCode: z.null(),
    failureReason: z.string(),
    details: z.array(z.object({ field: z.string(), message: z.string() })),
  })
  .meta({ id: "ValidationError" });

export const providerRejectedSchema = z
  .object({ message: z.string(), errorCode: nullable(z.number().int()), failureReason: z.string() })
  .meta({ id: "ProviderRejected", description: "The provider rejected the send; the order is stored as failed" });

export const orderIdParams = z.object({ id: z.string().meta({ description: "Order id" }) });

const statusList = z
  .union([z.string(), z.array(z.string())])
  .transform((value, ctx) => {
    const parts = (Array.isArray(value) ? value : [value]).flatMap((part) => part.split(",")).map((s) => s.trim()).filter(Boolean);
    if (parts.length > MAX_STATUS_FILTER_ENTRIES) {
      ctx.addIssue({ code: "too_big", origin: "array", maximum: MAX_STATUS_FILTER_ENTRIES, inclusive: true, input: value });
      return z.NEVER;
    }
    const unknown = parts.filter((part) => !(ORDER_STATUSES as readonly string[]).includes(part));
    if (unknown.length) {
      ctx.addIssue({ code: "invalid_value", values: [...ORDER_STATUSES], input: value });
      return z.NEVER;
    }
    return [...new Set(parts)] as OrderFilter["statuses"];
  })
  .meta({ description: "pending, confirmed, canceled, failed, expired; repeat or comma-separate" });

/** A query-string boolean: `true` or `false` only (anything else is a VALIDATION_ERROR naming the parameter). */
const queryBoolean = z.enum(["true", "false"]).transform((value) => value === "true");

/** The list's filters as query parameters (GET /orders and GET /orders/export alike). */
export const orderFilterQuery = z.object({
  status: statusList.optional(),
  ...orderListFilter.shape,
  needsFollowUp: queryBoolean
    .optional()
    .meta({ description: "true: only the follow-up queue (pending, last message older than the policy's followUpAfter)" }),
});

export const listOrdersQuery = z.object({
  ...orderFilterQuery.shape,
  limit: pageLimit,
  cursor: pageCursor.optional().meta({ description: "nextCursor of the previous page" }),
});

export const orderPageSchema = z
  .object({
    data: z.array(orderSchema),
    pagination: z.object({ limit: z.number().int(), hasMore: z.boolean(), nextCursor: nullable(z.string()) }),
  })
  .meta({ id: "OrderPage" });

export const idempotencyHeaders = z.object({
  "idempotency-key": z
    .string()
    .regex(IDEMPOTENCY_KEY_FORMAT, { error: "i18n:format.idempotency_key" })
    .optional()
    .meta({ description: "Repeat-safe creation: the same key and body within 24 h returns the first response" }),
});

export const customerActionBody = z.object({ action: z.enum(["approve", "cancel"]) });
export const deliveryBody = z.object({
  status: z.enum(["sent", "delivered", "read", "failed"]),
  // Stored in an int4 column; Meta's codes are at most six digits.
  errorCode: z.number().int().positive().max(INT4_MAX).optional(),
});

export const confirmationPolicySchema = z
  .object({
    reminders: z.array(z.string()).meta({ description: "Reminder delays after the first message (<n>s|m|h|d)" }),
    expireAfter: nullable(z.string()).meta({ description: "Delay after which a still-pending order expires; null = never" }),
    quietHours: nullable(
      z.object({
        start: z.string().meta({ description: "HH:MM, local" }),
        end: z.string().meta({ description: "HH:MM, local" }),
        timeZone: z.string().meta({ description: "IANA time zone" }),
      }),
    ),
    smsFallback: nullable(
      z.object({
        errorCodes: z.array(z.number()).meta({ description: "WhatsApp error codes that send an SMS with the confirmation page instead" }),
      }),
    ).meta({ description: "SMS fallback (SPEC §12); null = off" }),
    followUpAfter: z.string().meta({ description: "SPEC §15: a pending order joins the follow-up queue this long after the last message to the customer (default 2h)" }),
  })
  .meta({ id: "ConfirmationPolicy" });

export const timelineEntrySchema = z
  .object({
    at: z.string().meta({ description: "ISO 8601 UTC with milliseconds" }),
    kind: z.string().meta({
      description:
        "created, message_sent, delivery_sent, delivery_delivered, delivery_read, reminder_sent, reminder_failed, reminder_delivered, reminder_read, approved, canceled, failed, expired, message_failed, sms_sent, sms_delivered, sms_failed",
    }),
    source: z.enum(["customer", "merchant", "provider", "scheduler"]),
    detail: nullable(z.record(z.string(), z.unknown())).meta({ description: "Step details, e.g. providerMessageId, errorCode, via" }),
  })
  .meta({ id: "OrderTimelineEntry" });

export const timelineSchema = z.object({ data: z.array(timelineEntrySchema) }).meta({ id: "OrderTimeline" });

const statsFigures = {
  created: z.number().int().meta({ description: "Visible orders created in the range (or bucket)" }),
  confirmed: z.number().int().meta({ description: "Of those, how many are confirmed now" }),
  canceled: z.number().int().meta({ description: "… canceled now (by the customer or the merchant)" }),
  failed: z.number().int(),
  expired: z.number().int(),
  pending: z.number().int(),
  answered: z.number().int().meta({ description: "… answered by the customer (Approve or Cancel tapped); a merchant's cancel is not an answer" }),
  confirmationRate: nullable(z.number()).meta({ description: "confirmed ÷ answered, 0–1 (4 decimals); null when nothing was answered" }),
  answerRate: nullable(z.number()).meta({ description: "answered ÷ created, 0–1 (4 decimals); null when nothing was created" }),
  timeToAnswerP50Seconds: nullable(z.number()).meta({ description: "Median time from createdAt to the customer's answer" }),
  timeToAnswerP90Seconds: nullable(z.number()).meta({ description: "90th percentile of the time to answer" }),
  failuresByErrorCode: z.array(
    z.object({
      errorCode: nullable(z.number().int()).meta({ description: "The provider's code; null = failed without one" }),
      count: z.number().int(),
      meaning: nullable(z.string()).meta({ description: "What the code usually means (Accept-Language); null when not a common code" }),
    }),
  ),
};

export const orderStatsSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    timeZone: z.string(),
    interval: z.enum(["day", "hour"]),
    totals: z.object(statsFigures),
    buckets: z.array(
      z.object({ start: z.string().meta({ description: "Local midnight or start of the local hour, ISO 8601 UTC" }), ...statsFigures }),
    ),
  })
  .meta({ id: "OrderStats" });
