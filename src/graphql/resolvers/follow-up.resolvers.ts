import { z } from "zod";
import type { AppServices } from "../../app-services.ts";
import { ValidationError } from "../../domain/errors.ts";
import { answerNote, type AnswerChannel } from "../../domain/orders/customer-answer.ts";
import type { MutationResolvers, QueryResolvers, ResolversTypes } from "../../generated/graphql.ts";
import { problemFromIssue } from "../../i18n/zod-issues.ts";
import { toUserErrors } from "../error-mapper.ts";
import { toGraphQLOrder } from "../order-mapper.ts";
import { asCaller, asPermitted } from "./caller-guard.ts";

type RecordPayload = ResolversTypes["RecordCustomerAnswerPayload"];

const CHANNELS: Record<string, AnswerChannel> = { PHONE: "phone", IN_PERSON: "in_person", OTHER: "other" };
const noteOnly = z.object({ note: answerNote });

/** SPEC §15 over GraphQL: recording an answer (the same service call as REST) and the getting-started checklist. */
export function followUpResolvers(services: AppServices) {
  const { orderService, gettingStarted } = services;

  const Mutation: MutationResolvers = {
    recordCustomerAnswer: (_parent, { orderId, action, channel, note }, context) =>
      asPermitted(context, "Mutation.recordCustomerAnswer", async (caller): Promise<RecordPayload> => {
        try {
          const parsed = noteOnly.safeParse({ note: note ?? undefined }, { reportInput: true });
          if (!parsed.success) throw new ValidationError(parsed.error.issues.map((issue) => problemFromIssue(issue)));
          const order = await orderService.recordCustomerAnswer(caller, orderId, {
            action: action === "APPROVE" ? "approve" : "cancel",
            channel: CHANNELS[channel],
            note: parsed.data.note || null,
            by: caller.session?.user.email ?? caller.keyPrefix ?? caller.keyId ?? "unknown",
          });
          return { order: toGraphQLOrder(order), userErrors: [] };
        } catch (error) {
          const userErrors = toUserErrors(error, context.language);
          if (!userErrors) throw error;
          // The shared mapper names an order's id `id`; this mutation's argument is `orderId`.
          const fixed = userErrors.map((userError) => (userError.field?.[0] === "id" ? { ...userError, field: ["orderId"] } : userError));
          const current = userErrors[0]?.code === "ORDER_NOT_PENDING" ? await context.orderLoader.load(orderId) : null;
          return { order: current ? toGraphQLOrder(current) : null, userErrors: fixed };
        }
      }),
  };

  const Query: QueryResolvers = {
    gettingStarted: (_parent, _args, context) => asCaller(context, (caller) => gettingStarted.checklist(caller.merchantId)),
  };

  return { Mutation, Query };
}
