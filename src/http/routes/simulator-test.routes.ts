import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { AppServices } from "../../app.ts";
import { callerOf } from "../auth.ts";
import { customerActionBody, deliveryBody, errorSchema, orderIdParams, orderSchema, validationErrorSchema } from "../schemas.ts";

const responses = { 200: orderSchema, 400: validationErrorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 409: errorSchema };

/** SPEC §5.4: drive the simulated customer of a test-mode order. */
export function simulatorTestRoutes(services: AppServices): FastifyPluginAsync {
  return async (plain) => {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    app.post(
      "/orders/:id/customer-action",
      {
        schema: {
          tags: ["test mode"],
          summary: "The simulated customer taps Approve or Cancel",
          params: orderIdParams,
          body: customerActionBody,
          response: responses,
        },
      },
      async (request) => services.simulator.tap(callerOf(request), request.params.id, request.body.action),
    );

    app.post(
      "/orders/:id/delivery",
      {
        schema: {
          tags: ["test mode"],
          summary: "The simulated provider reports a delivery status (failed may carry a provider errorCode)",
          params: orderIdParams,
          body: deliveryBody,
          response: responses,
        },
      },
      async (request) =>
        services.simulator.report(callerOf(request), request.params.id, request.body.status, request.body.errorCode),
    );
  };
}
