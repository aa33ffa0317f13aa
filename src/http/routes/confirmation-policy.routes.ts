import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { AppServices } from "../../app-services.ts";
import { callerOf } from "../auth.ts";
import { confirmationPolicySchema, errorSchema, validationErrorSchema } from "../schemas.ts";

const commonErrors = { 401: errorSchema, 429: errorSchema, 500: errorSchema };
const tags = ["confirmation policy"];

/** SPEC §9: the caller's confirmation policy (per merchant and the key's mode). */
export function confirmationPolicyRoutes(services: AppServices): FastifyPluginAsync {
  return async (plain) => {
    const app = plain.withTypeProvider<ZodTypeProvider>();
    const { confirmationPolicies } = services;

    app.get(
      "/confirmation-policy",
      {
        schema: {
          tags,
          summary: "Read the confirmation policy: reminders, quiet hours and expiry for unanswered orders",
          response: { 200: confirmationPolicySchema, ...commonErrors },
        },
      },
      async (request) => confirmationPolicies.get(callerOf(request)),
    );

    app.put(
      "/confirmation-policy",
      {
        schema: {
          tags,
          summary: "Replace the confirmation policy (applies to orders created afterwards)",
          body: confirmationPolicies.input,
          response: { 200: confirmationPolicySchema, 400: validationErrorSchema, 413: errorSchema, 415: errorSchema, ...commonErrors },
        },
      },
      async (request) => confirmationPolicies.replace(callerOf(request), request.body),
    );
  };
}
