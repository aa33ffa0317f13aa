import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { AppServices } from "../../app-services.ts";
import type { OrderMessageView } from "../../domain/conversation/conversation.service.ts";
import { callerOf } from "../auth.ts";
import { errorSchema, orderIdParams, validationErrorSchema } from "../schemas.ts";
import { messageTextBody } from "../conversation.schemas.ts";

export const orderMessageSchema = z
  .object({
    id: z.string(),
    direction: z.enum(["inbound", "outbound"]),
    sender: z.enum(["customer", "service", "merchant"]),
    kind: z.enum(["confirmation", "reminder", "text", "buttons", "list", "sms", "tap"]),
    text: z.string().nullable().meta({ description: "What the customer saw or wrote (a tap: its button's or row's title)" }),
    at: z.string(),
    status: z
      .string()
      .nullable()
      .meta({ description: "Outbound: sent, delivered, read or failed (null while it is being sent); inbound: null" }),
  })
  .meta({ id: "OrderMessage" });

const commonErrors = { 401: errorSchema, 404: errorSchema, 429: errorSchema, 500: errorSchema };

/** The order's conversation and merchant replies (SPEC §11). */
export function conversationRoutes(services: AppServices): FastifyPluginAsync {
  return async (plain) => {
    const app = plain.withTypeProvider<ZodTypeProvider>();
    const { conversations } = services;

    app.get(
      "/orders/:id/messages",
      {
        schema: {
          tags: ["orders"],
          summary: "The order's conversation, oldest first (the newest 200 messages)",
          params: orderIdParams,
          response: { 200: z.object({ data: z.array(orderMessageSchema) }).meta({ id: "OrderMessages" }), ...commonErrors },
        },
      },
      async (request) => ({ data: (await conversations.messages(callerOf(request), request.params.id)).map(restMessage) }),
    );

    app.post(
      "/orders/:id/messages",
      {
        schema: {
          tags: ["orders"],
          summary: "Reply to the customer (only within 24 hours of the customer's last message about this order)",
          description:
            "Sent through WhatsApp (test keys: the simulator). 409 CONVERSATION_CLOSED when the customer has not written " +
            "about this order in the last 24 hours (nothing is sent); 429 after 20 replies to one order within an hour.",
          params: orderIdParams,
          body: messageTextBody,
          response: { 201: orderMessageSchema, 400: validationErrorSchema, 409: errorSchema, ...commonErrors },
        },
      },
      async (request, reply) => {
        const message = await conversations.reply(callerOf(request), request.params.id, request.body.text);
        return reply.code(201).send(restMessage(message));
      },
    );
  };
}

/** REST spells the enums in lower case, as stored. */
export function restMessage(message: OrderMessageView): OrderMessageView {
  return message;
}
