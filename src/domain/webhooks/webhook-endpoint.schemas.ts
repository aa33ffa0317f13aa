import { z } from "zod";
import { ORDER_EVENT_NAMES, SUBSCRIBABLE_EVENT_NAMES } from "../orders/order-state.ts";

/** Event names an endpoint can subscribe to; omitted means all of them. */
const eventList = z
  .array(z.enum(SUBSCRIBABLE_EVENT_NAMES))
  .min(1)
  .max(SUBSCRIBABLE_EVENT_NAMES.length * 4)
  .transform((events) => [...new Set(events)])
  .meta({ description: `Event names to receive (${SUBSCRIBABLE_EVENT_NAMES.join(", ")}); when omitted: ${ORDER_EVENT_NAMES.join(", ")} (order.customer_message is opt-in)` });

const url = z
  .string()
  .max(2048)
  .refine((text) => /^https?:\/\//i.test(text) && URL.canParse(text), { error: "i18n:format.webhook_url" })
  .meta({ description: "http(s) URL that receives POSTed events; must not point to a private or internal address" });

const description = z.string().trim().max(500).meta({ description: "Free text for your own records" });

export const createWebhookEndpointInput = z
  .object({
    url,
    events: eventList.optional(),
    description: description.optional(),
    enabled: z.boolean().optional().meta({ description: "Default true" }),
    legacySignature: z
      .boolean()
      .optional()
      .meta({ description: "Also send x-webhook-signature-256 (body-only HMAC without a timestamp: replayable); default false" }),
  })
  .meta({ id: "CreateWebhookEndpointInput" });

export const updateWebhookEndpointInput = z
  .object({
    url: url.optional(),
    events: eventList.optional(),
    description: description.nullable().optional(),
    enabled: z.boolean().optional().meta({ description: "Re-enabling an endpoint disabled after 410 Gone clears its disabledReason" }),
    legacySignature: z
      .boolean()
      .optional()
      .meta({ description: "Also send x-webhook-signature-256 (body-only HMAC without a timestamp: replayable); default false" }),
  })
  .meta({ id: "UpdateWebhookEndpointInput" });

export type CreateWebhookEndpointInput = z.infer<typeof createWebhookEndpointInput>;
export type UpdateWebhookEndpointInput = z.infer<typeof updateWebhookEndpointInput>;
