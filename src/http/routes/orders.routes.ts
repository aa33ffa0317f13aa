import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { AppServices } from "../../app-services.ts";
import { createOrderInput } from "../../domain/orders/order.schemas.ts";
import { DomainError } from "../../domain/errors.ts";
import { callerOf } from "../auth.ts";
import { mapErrorToHttp } from "../error-mapper.ts";
import {
  errorSchema,
  idempotencyHeaders,
  listOrdersQuery,
  orderIdParams,
  orderPageSchema,
  orderSchema,
  providerRejectedSchema,
  timelineSchema,
  validationErrorSchema,
} from "../schemas.ts";

const commonErrors = { 401: errorSchema, 429: errorSchema, 500: errorSchema };

export function orderRoutes(services: AppServices): FastifyPluginAsync {
  return async (plain) => {
    const app = plain.withTypeProvider<ZodTypeProvider>();
    const { orderService, idempotency } = services;

    app.post(
      "/orders",
      {
        schema: {
          tags: ["orders"],
          summary: "Create an order and send the customer the confirmation message",
          headers: idempotencyHeaders,
          body: createOrderInput,
          response: {
            201: orderSchema,
            400: providerRejectedSchema.or(validationErrorSchema),
            409: errorSchema,
            413: errorSchema,
            415: errorSchema,
            502: errorSchema,
            ...commonErrors,
          },
        },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        const create = async () => {
          try {
            const order = await orderService.create(caller, request.body, request.language);
            return { statusCode: 201, body: order as unknown };
          } catch (error) {
            // Expected outcomes are part of the response an Idempotency-Key replays; bugs are not.
            if (!(error instanceof DomainError)) throw error;
            const mapped = mapErrorToHttp(error, request.language, request.id);
            return { statusCode: mapped.statusCode, body: mapped.body as unknown };
          }
        };
        const key = request.headers["idempotency-key"];
        const result = key
          ? await idempotency.execute(caller, { key, method: "POST", path: "/api/v1/orders", body: request.body }, create)
          : await create();
        if ("replayed" in result && result.replayed) reply.header("idempotent-replayed", "true");
        return reply.code(result.statusCode).send(result.body as never);
      },
    );

    app.get(
      "/orders",
      {
        schema: {
          tags: ["orders"],
          summary: "List orders, newest first, with filters and keyset pagination",
          querystring: listOrdersQuery,
          response: { 200: orderPageSchema, 400: validationErrorSchema, ...commonErrors },
        },
      },
      async (request) => {
        const { limit, cursor, status, ...filter } = request.query;
        const page = await orderService.list(callerOf(request), { ...filter, statuses: status }, { limit, cursor });
        return {
          data: page.orders,
          pagination: { limit: page.limit, hasMore: page.hasMore, nextCursor: page.nextCursor },
        };
      },
    );

    app.get(
      "/orders/:id",
      {
        schema: {
          tags: ["orders"],
          summary: "Get one order",
          params: orderIdParams,
          response: { 200: orderSchema, 404: errorSchema, ...commonErrors },
        },
      },
      async (request) => orderService.get(callerOf(request), request.params.id),
    );

    app.get(
      "/orders/:id/timeline",
      {
        schema: {
          tags: ["orders"],
          summary: "Every recorded step of an order, oldest first (message sent, deliveries, reminders, answer, expiry)",
          params: orderIdParams,
          response: { 200: timelineSchema, 404: errorSchema, ...commonErrors },
        },
      },
      async (request) => ({ data: await orderService.timeline(callerOf(request), request.params.id) }),
    );

    app.delete(
      "/orders/:id",
      {
        schema: {
          tags: ["orders"],
          summary: "Cancel a pending order (idempotent: a canceled order is returned unchanged)",
          params: orderIdParams,
          response: { 200: orderSchema, 404: errorSchema, 409: errorSchema, ...commonErrors },
        },
      },
      async (request) => orderService.cancel(callerOf(request), request.params.id),
    );
  };
}
