import { PassThrough } from "node:stream";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { AppServices } from "../../app-services.ts";
import { callerOf } from "../auth.ts";
import { messageTextBody } from "../conversation.schemas.ts";
import { customerActionBody, deliveryBody, errorSchema, orderIdParams, orderSchema, validationErrorSchema } from "../schemas.ts";

const responses = { 200: orderSchema, 400: validationErrorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 409: errorSchema };

const simulatedMessageSchema = z
  .object({
    id: z.string().meta({ description: "The simulated provider message id (wamid.SIM…)" }),
    orderId: z.string(),
    phone: z.string(),
    language: z.enum(["en", "ar"]),
    text: z.string().meta({ description: "The message as the phone renders it" }),
    buttons: z.object({ approve: z.string(), cancel: z.string() }).meta({ description: "Quick-reply button titles" }),
    sentAt: z.string(),
    kind: z
      .enum(["confirmation", "reminder", "text", "buttons", "list", "customer_text", "customer_choice"])
      .optional()
      .meta({ description: "Absent or confirmation/reminder: the template; text: a merchant reply; buttons/list: automatic replies; customer_*: the customer's own" }),
    sender: z.enum(["service", "merchant", "customer"]).optional(),
    hasButtons: z.boolean().optional(),
    rows: z.array(z.object({ id: z.string(), title: z.string(), description: z.string() })).optional(),
    order: orderSchema.meta({ description: "The order as it is now" }),
  })
  .meta({ id: "SimulatedMessage" });

const conversationsSchema = z
  .object({
    data: z.array(z.object({ phone: z.string(), messages: z.array(simulatedMessageSchema) })),
  })
  .meta({ id: "SimulatedConversations" });

/** A comment line every 15 s keeps proxies and the browser from closing an idle stream. */
const KEEP_ALIVE_MS = 15_000;
const MAX_BUFFERED_BYTES = 1024 * 1024;

/** SPEC §5.4: drive the simulated customer of a test-mode order, and feed the /simulator page. */
export function simulatorTestRoutes(services: AppServices): FastifyPluginAsync {
  return async (plain) => {
    const app = plain.withTypeProvider<ZodTypeProvider>();
    /** Ends the open event streams; a stream left open would hold the server's close() up. */
    const openStreams = new Set<() => void>();
    app.addHook("preClose", async () => {
      for (const close of [...openStreams]) close();
    });

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
      "/orders/:id/customer-message",
      {
        schema: {
          tags: ["test mode"],
          summary: "The simulated customer types a text replying to the order's message (SPEC §11)",
          description:
            "Exactly what an inbound WhatsApp text quoting the order's message does: a clear answer (yes, نعم, cancel, " +
            "الغاء…) approves or cancels a pending order like the tap; anything else is a customer_message.",
          params: orderIdParams,
          body: messageTextBody,
          response: responses,
        },
      },
      async (request) => services.simulator.customerMessage(callerOf(request), request.params.id, request.body.text),
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

    app.get(
      "/conversations",
      {
        schema: {
          tags: ["test mode"],
          summary: "The simulated phones: messages of this merchant's test-mode orders, grouped by phone",
          description:
            "Newest phone first, messages oldest first, each with its order as it is now. The simulator keeps the " +
            "last 1000 messages in memory (a restart forgets them; the orders stay).",
          response: { 200: conversationsSchema, 401: errorSchema, 403: errorSchema },
        },
      },
      async (request) => ({ data: await services.simulator.conversations(callerOf(request)) }),
    );

    app.get(
      "/events",
      {
        schema: {
          tags: ["test mode"],
          summary: "Live updates of the simulated phones (Server-Sent Events)",
          description:
            "A text/event-stream authenticated with X-API-Key like every other call (read it with fetch; the key " +
            "is never accepted in the URL). Events: `ready` once subscribed; `message` `{ type, message, order }` " +
            "when a test-mode order's message is sent; `order` `{ type, order }` when one of this merchant's " +
            "test-mode orders changes (customer answer, delivery report, merchant cancel).",
          response: { 401: errorSchema, 403: errorSchema },
        },
      },
      async (request, reply) => {
        const stream = new PassThrough();
        // A reader that stopped reading is dropped rather than buffered for without limit.
        const write = (event: string, data: unknown) => {
          if (stream.writableLength > MAX_BUFFERED_BYTES) return close();
          stream.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
        };
        // Subscribes before anything is sent: a live key is refused here with the usual 403 body.
        const stop = services.simulator.watch(callerOf(request), (update) => write(update.type, update));
        const keepAlive = setInterval(() => stream.write(": keep-alive\n\n"), KEEP_ALIVE_MS).unref();
        function close() {
          if (!openStreams.delete(close)) return;
          clearInterval(keepAlive);
          stop();
          stream.end();
        }
        openStreams.add(close);
        reply.raw.on("close", close);
        stream.write("retry: 2000\n\n");
        write("ready", {});
        return reply
          .header("content-type", "text/event-stream; charset=utf-8")
          .header("cache-control", "no-store")
          .header("x-accel-buffering", "no")
          // The stream ends only when the page goes away or the server stops; nothing to keep alive after it.
          .header("connection", "close")
          // The declared responses are the JSON errors; the 200 is this stream, not a serialised body.
          .send(stream as never);
      },
    );
  };
}
