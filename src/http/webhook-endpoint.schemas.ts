import { z } from "zod";
import { SUBSCRIBABLE_EVENT_NAMES } from "../domain/orders/order-state.ts";

/** Response schemas of the webhook-endpoint routes (the request schemas live with the domain). */
export const webhookEndpointSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(z.enum(SUBSCRIBABLE_EVENT_NAMES)),
    enabled: z.boolean(),
    disabledReason: z.string().nullable().meta({ description: "Why the service disabled it (e.g. 410 Gone); null otherwise" }),
    previousSecretExpiresAt: z
      .string()
      .nullable()
      .meta({ description: "Until then deliveries carry a second signature made with the secret before the last rotation" }),
    legacySignature: z
      .boolean()
      .meta({ description: "Whether deliveries also carry x-webhook-signature-256 (body-only HMAC, no timestamp)" }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "WebhookEndpoint" });

export const webhookEndpointWithSecretSchema = webhookEndpointSchema
  .extend({
    secret: z.string().meta({ description: "whsec_ + base64 signing secret. Shown only here: store it now" }),
  })
  .meta({ id: "WebhookEndpointWithSecret" });

export const webhookEndpointListSchema = z
  .object({ data: z.array(webhookEndpointSchema) })
  .meta({ id: "WebhookEndpointList" });

export const webhookEndpointIdParams = z.object({ id: z.string().meta({ description: "Webhook endpoint id" }) });
