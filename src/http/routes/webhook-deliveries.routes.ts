import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { AppServices } from "../../app-services.ts";
import { callerOf } from "../auth.ts";
import { errorSchema, validationErrorSchema } from "../schemas.ts";
import {
  listWebhookDeliveriesQuery,
  webhookDeliveryIdParams,
  webhookDeliveryPageSchema,
  webhookDeliverySchema,
} from "../webhook-delivery.schemas.ts";

const commonErrors = { 401: errorSchema, 429: errorSchema, 500: errorSchema };
const tags = ["webhook deliveries"];

/** SPEC §4 delivery log and manual redelivery; scoped to the caller's merchant and the key's mode. */
export function webhookDeliveryRoutes(services: AppServices): FastifyPluginAsync {
  return async (plain) => {
    const app = plain.withTypeProvider<ZodTypeProvider>();
    const { webhookDeliveries } = services;

    app.get(
      "/webhook-deliveries",
      {
        schema: {
          tags,
          summary: "The delivery log: one entry per event and endpoint with every attempt, newest first",
          querystring: listWebhookDeliveriesQuery,
          response: { 200: webhookDeliveryPageSchema, 400: validationErrorSchema, ...commonErrors },
        },
      },
      async (request) => {
        const { limit, cursor, status, ...filter } = request.query;
        const page = await webhookDeliveries.list(callerOf(request), { ...filter, statuses: status }, { limit, cursor });
        return {
          data: page.deliveries,
          pagination: { limit: page.limit, hasMore: page.hasMore, nextCursor: page.nextCursor },
        };
      },
    );

    app.get(
      "/webhook-deliveries/:id",
      {
        schema: {
          tags,
          summary: "One delivery with its attempts",
          params: webhookDeliveryIdParams,
          response: { 200: webhookDeliverySchema, 404: errorSchema, ...commonErrors },
        },
      },
      async (request) => webhookDeliveries.get(callerOf(request), request.params.id),
    );

    app.post(
      "/webhook-deliveries/:id/retry",
      {
        schema: {
          tags,
          summary:
            "Redeliver now (same webhook-id): a pending delivery is attempted at once; a succeeded or dead one gets exactly one more attempt",
          params: webhookDeliveryIdParams,
          response: { 202: webhookDeliverySchema, 404: errorSchema, ...commonErrors },
        },
      },
      async (request, reply) => reply.code(202).send(await webhookDeliveries.retry(callerOf(request), request.params.id)),
    );
  };
}
