import type { AppServices } from "../../app-services.ts";
import { ValidationError } from "../../domain/errors.ts";
import type { StoredPolicy as DomainPolicy } from "../../domain/confirmation/confirmation-policy.ts";
import { problemFromIssue } from "../../i18n/zod-issues.ts";
import type { MutationResolvers, OrderResolvers, QueryResolvers, ResolversTypes } from "../../generated/graphql.ts";
import { toUserErrors } from "../error-mapper.ts";
import { asAdmin, asCaller } from "./caller-guard.ts";

type UpdatePayload = ResolversTypes["UpdateConfirmationPolicyPayload"];

/** SPEC §9 over GraphQL (the same service and validation as REST), and Order.timeline (SPEC §10). */
export function confirmationResolvers(services: AppServices) {
  const { confirmationPolicies, orderService } = services;

  const Query: QueryResolvers = {
    confirmationPolicy: (_parent, _args, context) => asCaller(context, (caller) => confirmationPolicies.get(caller)),
  };

  const Mutation: MutationResolvers = {
    updateConfirmationPolicy: (_parent, { input }, context) =>
      asAdmin(context, async (caller): Promise<UpdatePayload> => {
        const parsed = confirmationPolicies.input.safeParse(withoutNulls(input), { reportInput: true });
        if (!parsed.success) {
          const problem = new ValidationError(parsed.error.issues.map((issue) => problemFromIssue(issue)));
          return { policy: null, userErrors: toUserErrors(problem, context.language, ["input"]) ?? [] };
        }
        const policy: DomainPolicy = await confirmationPolicies.replace(caller, parsed.data);
        return { policy, userErrors: [] };
      }),
  };

  // The parent order was already authorised (it was returned to this caller): no context is needed, which keeps
  // subscription results shareable between subscribers of one merchant and mode.
  const Order: OrderResolvers = {
    timeline: async (order) => {
      const entries = await orderService.timelineOfVisible(order);
      return entries.map((entry) => ({ ...entry, detail: entry.detail ?? null }));
    },
  };

  return { Query, Mutation, Order };
}

/**
 * GraphQL's explicit nulls for omitted list fields become absent (their default); `expireAfter: null` and
 * `quietHours: null` stay null, which is their meaning.
 */
function withoutNulls<T extends { reminders?: unknown }>(input: T): T {
  const copy = { ...input };
  if (copy.reminders === null) delete copy.reminders;
  return copy;
}
