import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { AppServices } from "../../app-services.ts";
import { createWebhookEndpointInput, updateWebhookEndpointInput } from "../../domain/webhooks/webhook-endpoint.schemas.ts";
import { apiKeyAuditSource, callerOf } from "../auth.ts";
import { errorSchema, validationErrorSchema } from "../schemas.ts";
import {
  webhookEndpointIdParams,
  webhookEndpointListSchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
} from "../webhook-endpoint.schemas.ts";

const noContent = z.null().meta({ description: "Deleted" });
const commonErrors = { 401: errorSchema, 429: errorSchema, 500: errorSchema };
const tags = ["webhook endpoints"];

/** SPEC §4 endpoint management; every call is scoped to the caller's merchant and the key's mode. */
export function webhookEndpointRoutes(services: AppServices): FastifyPluginAsync {
  return async (plain) => {
    const app = plain.withTypeProvider<ZodTypeProvider>();
    const { webhookEndpoints } = services;

    app.post(
      "/webhook-endpoints",
      {
        schema: {
          tags,
          summary: "Register a webhook endpoint (the response is the only time its secret is shown)",
          body: createWebhookEndpointInput,
          response: { 201: webhookEndpointWithSecretSchema, 400: validationErrorSchema, 409: errorSchema, 413: errorSchema, 415: errorSchema, ...commonErrors },
        },
      },
      async (request, reply) => reply.code(201).send(await webhookEndpoints.create(callerOf(request), request.body, apiKeyAuditSource(request))),
    );

    app.get(
      "/webhook-endpoints",
      { schema: { tags, summary: "List webhook endpoints, newest first", response: { 200: webhookEndpointListSchema, ...commonErrors } } },
      async (request) => ({ data: await webhookEndpoints.list(callerOf(request)) }),
    );

    app.get(
      "/webhook-endpoints/:id",
      {
        schema: { tags, summary: "Get one webhook endpoint", params: webhookEndpointIdParams, response: { 200: webhookEndpointSchema, 404: errorSchema, ...commonErrors } },
      },
      async (request) => webhookEndpoints.get(callerOf(request), request.params.id),
    );

    app.patch(
      "/webhook-endpoints/:id",
      {
        schema: {
          tags,
          summary: "Change the URL, event filter, description, or enable/disable",
          params: webhookEndpointIdParams,
          body: updateWebhookEndpointInput,
          response: { 200: webhookEndpointSchema, 400: validationErrorSchema, 404: errorSchema, 413: errorSchema, 415: errorSchema, ...commonErrors },
        },
      },
      async (request) => webhookEndpoints.update(callerOf(request), request.params.id, request.body),
    );

    app.delete(
      "/webhook-endpoints/:id",
      {
        schema: {
          tags,
          summary: "Delete a webhook endpoint; its pending deliveries are dropped",
          params: webhookEndpointIdParams,
          response: { 204: noContent, 404: errorSchema, ...commonErrors },
        },
      },
      async (request, reply) => {
        await webhookEndpoints.remove(callerOf(request), request.params.id);
        return reply.code(204).send(null);
      },
    );

    app.post(
      "/webhook-endpoints/:id/rotate-secret",
      {
        schema: {
          tags,
          summary: "Issue a new signing secret; the old one keeps signing alongside it for 24 h",
          params: webhookEndpointIdParams,
          response: { 200: webhookEndpointWithSecretSchema, 404: errorSchema, ...commonErrors },
        },
      },
      async (request) => webhookEndpoints.rotateSecret(callerOf(request), request.params.id, apiKeyAuditSource(request)),
    );
  };
}
