import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { AppServices } from "../../app-services.ts";
import { callerOf } from "../auth.ts";
import { errorSchema, orderIdParams, orderSchema, validationErrorSchema } from "../schemas.ts";

const smsDeliveryBody = z.object({
  status: z.enum(["delivered", "failed", "undelivered"]),
  // An int4 column holds it; Twilio's codes are five digits.
  errorCode: z.number().int().positive().max(2_147_483_647).optional(),
});

/** SPEC §12: test mode's simulated carrier reports on the order's latest SMS. */
export function smsTestRoutes(services: AppServices): FastifyPluginAsync {
  return async (plain) => {
    const app = plain.withTypeProvider<ZodTypeProvider>();
    app.post(
      "/orders/:id/sms-delivery",
      {
        schema: {
          tags: ["test mode"],
          summary: "The simulated carrier reports the delivery of the order's latest SMS (delivered, failed, undelivered)",
          description:
            "failed and undelivered fail a pending order whose fallback SMS it was, with the WhatsApp error that caused the " +
            "fallback (order.failed). 404 when the order has sent no SMS.",
          params: orderIdParams,
          body: smsDeliveryBody,
          response: { 200: orderSchema, 400: validationErrorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema },
        },
      },
      async (request) => {
        const caller = callerOf(request);
        const order = await services.sms.testReport(caller, request.params.id, request.body.status, request.body.errorCode ?? null);
        services.phones.orderChanged({ merchantId: caller.merchantId, order });
        return order;
      },
    );
  };
}
