import { z } from "zod";
import { isUuid } from "../domain/ids.ts";
import { pageCursor, pageLimit } from "../domain/orders/order.schemas.ts";
import type { DeliveryStatus } from "../domain/webhooks/webhook-delivery.repository.ts";
import { DELIVERY_STATUSES } from "../domain/webhooks/webhook-delivery.service.ts";

/** Parameter and response schemas of the delivery log routes; they validate requests and document responses. */
export const webhookAttemptSchema = z
  .object({
    at: z.string().meta({ description: "When the attempt started, ISO 8601 UTC with milliseconds" }),
    statusCode: z.number().int().nullable().meta({ description: "The receiver's HTTP status; null when no response arrived" }),
    durationMs: z.number().int(),
    error: z
      .string()
      .nullable()
      .meta({ description: "Why it failed (e.g. HTTP 500, timeout after 15000 ms, connection refused); null on success" }),
  })
  .meta({ id: "WebhookAttempt" });

export const webhookDeliverySchema = z
  .object({
    id: z.string(),
    eventId: z.string().meta({ description: "The event id, sent as webhook-id on every attempt" }),
    event: z.string().meta({ example: "order.confirmed" }),
    orderId: z.string(),
    endpointId: z.string(),
    status: z.enum(DELIVERY_STATUSES).meta({
      description: "pending (due or waiting for a retry), succeeded (a 2xx arrived), dead (no attempt left, or 410 Gone)",
    }),
    attempts: z.array(webhookAttemptSchema).meta({ description: "Every attempt, oldest first" }),
    createdAt: z.string(),
  })
  .meta({ id: "WebhookDelivery" });

export const webhookDeliveryPageSchema = z
  .object({
    data: z.array(webhookDeliverySchema),
    pagination: z.object({ limit: z.number().int(), hasMore: z.boolean(), nextCursor: z.string().nullable() }),
  })
  .meta({ id: "WebhookDeliveryPage" });

const id = (description: string) =>
  z.string().refine(isUuid, { error: "i18n:format.id" }).meta({ description });

const statusList = z
  .union([z.string(), z.array(z.string())])
  .transform((value, ctx) => {
    const parts = (Array.isArray(value) ? value : [value]).flatMap((part) => part.split(",")).map((s) => s.trim()).filter(Boolean);
    if (parts.some((part) => !(DELIVERY_STATUSES as readonly string[]).includes(part))) {
      ctx.addIssue({ code: "invalid_value", values: [...DELIVERY_STATUSES], input: value });
      return z.NEVER;
    }
    return parts as DeliveryStatus[];
  })
  .meta({ description: "pending, succeeded, dead; repeat or comma-separate" });

export const listWebhookDeliveriesQuery = z.object({
  endpointId: id("Only this endpoint's deliveries").optional(),
  orderId: id("Only this order's deliveries").optional(),
  status: statusList.optional(),
  limit: pageLimit,
  cursor: pageCursor.optional().meta({ description: "nextCursor of the previous page" }),
});

export const webhookDeliveryIdParams = z.object({ id: z.string().meta({ description: "Webhook delivery id" }) });
