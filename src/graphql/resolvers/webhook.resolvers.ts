import { z } from "zod";
import type { AppServices } from "../../app-services.ts";
import { ValidationError } from "../../domain/errors.ts";
import { encodeCursor } from "../../domain/orders/order-cursor.ts";
import { pageCursor, pageLimit } from "../../domain/orders/order.schemas.ts";
import type { DeliveryStatus } from "../../domain/webhooks/webhook-delivery.repository.ts";
import type { WebhookDeliveryView } from "../../domain/webhooks/webhook-delivery.service.ts";
import { createWebhookEndpointInput, updateWebhookEndpointInput } from "../../domain/webhooks/webhook-endpoint.schemas.ts";
import type { WebhookEndpointView } from "../../domain/webhooks/webhook-endpoint.service.ts";
import type {
  MutationResolvers,
  OrderResolvers,
  QueryResolvers,
  WebhookDelivery,
  WebhookDeliveryStatus,
  WebhookEndpoint,
} from "../../generated/graphql.ts";
import { problemFromIssue } from "../../i18n/zod-issues.ts";
import { auditSourceOf, type GraphQLContext } from "../context.ts";
import { toUserErrors } from "../error-mapper.ts";
import { asAdmin, asCaller } from "./caller-guard.ts";

/** Deliveries of one order: a handful of events times at most 20 endpoints (MAX_ENDPOINTS_PER_MODE). */
const ORDER_DELIVERIES_LIMIT = 100;

/**
 * Webhook endpoints and the delivery log over GraphQL: thin doors over WebhookEndpointService and
 * WebhookDeliveryService (the calls REST makes), with REST's input schemas, so both transports accept and refuse
 * the same things. Signing secrets appear only in the create and rotate payloads, which only admins and API keys
 * can run.
 */
export function webhookResolvers(services: AppServices) {
  const { webhookEndpoints, webhookDeliveries } = services;

  const Query: QueryResolvers = {
    webhookEndpoints: (_parent, _args, context) =>
      asCaller(context, async (caller) => (await webhookEndpoints.list(caller)).map(toGraphQLEndpoint)),

    webhookDeliveries: (_parent, { first, after, filter }, context) =>
      asCaller(context, async (caller) => {
        const page = checked(deliveryPageArguments, { first, after: after || undefined });
        const statuses = filter?.status?.length ? filter.status.map((status) => status.toLowerCase() as DeliveryStatus) : undefined;
        const result = await webhookDeliveries.list(
          caller,
          { endpointId: filter?.endpointId ?? undefined, orderId: filter?.orderId ?? undefined, statuses },
          { limit: page.first, cursor: page.after },
        );
        const edges = result.deliveries.map((delivery) => ({
          cursor: encodeCursor({ createdAt: new Date(delivery.createdAt), id: delivery.id }),
          node: toGraphQLDelivery(delivery),
        }));
        return {
          edges,
          pageInfo: {
            hasNextPage: result.hasMore,
            hasPreviousPage: false,
            startCursor: edges[0]?.cursor ?? null,
            endCursor: edges.at(-1)?.cursor ?? null,
          },
        };
      }),
  };

  const Order: OrderResolvers = {
    webhookDeliveries: (order, _args, context) =>
      asCaller(context, async (caller) => {
        const page = await webhookDeliveries.list(caller, { orderId: order.id }, { limit: ORDER_DELIVERIES_LIMIT });
        return page.deliveries.map(toGraphQLDelivery);
      }),
  };

  const Mutation: MutationResolvers = {
    createWebhookEndpoint: (_parent, { input }, context) =>
      asAdmin(context, (caller) =>
        withUserErrors(context, { endpoint: null, secret: null }, async () => {
          const created = await webhookEndpoints.create(
            caller,
            checked(createWebhookEndpointInput, withoutNulls(input), "input"),
            auditSourceOf(caller, context.address),
          );
          return { endpoint: toGraphQLEndpoint(created), secret: created.secret };
        }),
      ),

    updateWebhookEndpoint: (_parent, { id, input }, context) =>
      asAdmin(context, (caller) =>
        withUserErrors(context, { endpoint: null }, async () => {
          // null means "leave as is", except for description, where it clears (as REST's null does).
          const { description, ...rest } = input;
          const change = { ...withoutNulls(rest), ...(description !== undefined ? { description } : {}) };
          const updated = await webhookEndpoints.update(caller, id, checked(updateWebhookEndpointInput, change, "input"));
          return { endpoint: toGraphQLEndpoint(updated) };
        }),
      ),

    deleteWebhookEndpoint: (_parent, { id }, context) =>
      asAdmin(context, (caller) =>
        withUserErrors(context, { deletedId: null }, async () => {
          await webhookEndpoints.remove(caller, id);
          return { deletedId: id };
        }),
      ),

    rotateWebhookEndpointSecret: (_parent, { id }, context) =>
      asAdmin(context, (caller) =>
        withUserErrors(context, { endpoint: null, secret: null }, async () => {
          const rotated = await webhookEndpoints.rotateSecret(caller, id, auditSourceOf(caller, context.address));
          return { endpoint: toGraphQLEndpoint(rotated), secret: rotated.secret };
        }),
      ),

    retryWebhookDelivery: (_parent, { id }, context) =>
      asAdmin(context, (caller) =>
        withUserErrors(context, { delivery: null }, async () => ({ delivery: toGraphQLDelivery(await webhookDeliveries.retry(caller, id)) })),
      ),
  };

  return { Query, Mutation, Order };
}

const deliveryPageArguments = z.object({ first: pageLimit, after: pageCursor.optional() });

/** Input through a shared zod schema; its problems name their GraphQL path (`["input", "url"]`). */
function checked<T extends z.ZodType>(schema: T, value: unknown, root?: string): z.infer<T> {
  const parsed = schema.safeParse(value, { reportInput: true });
  if (!parsed.success) {
    throw new ValidationError(parsed.error.issues.map((issue) => {
      const problem = problemFromIssue(issue);
      return root ? { ...problem, field: `${root}.${problem.field}` } : problem;
    }));
  }
  return parsed.data;
}

/** A mutation's business outcome: the payload on success, `empty` with userErrors on an expected refusal. */
async function withUserErrors<T extends object>(
  context: GraphQLContext,
  empty: { [K in keyof T]: null },
  run: () => Promise<T>,
): Promise<{ [K in keyof T]: T[K] | null } & { userErrors: NonNullable<ReturnType<typeof toUserErrors>> }> {
  try {
    return { ...(await run()), userErrors: [] };
  } catch (error) {
    const userErrors = toUserErrors(error, context.language);
    if (!userErrors) throw error;
    return { ...empty, userErrors };
  }
}

function withoutNulls<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== null)) as Partial<T>;
}

export function toGraphQLEndpoint(view: WebhookEndpointView): WebhookEndpoint {
  return {
    id: view.id,
    url: view.url,
    description: view.description,
    events: view.events,
    enabled: view.enabled,
    disabledReason: view.disabledReason,
    previousSecretExpiresAt: view.previousSecretExpiresAt,
    legacySignature: view.legacySignature,
    createdAt: view.createdAt,
    updatedAt: view.updatedAt,
  };
}

export function toGraphQLDelivery(view: WebhookDeliveryView): WebhookDelivery {
  return {
    id: view.id,
    eventId: view.eventId,
    event: view.event,
    orderId: view.orderId,
    endpointId: view.endpointId,
    status: view.status.toUpperCase() as WebhookDeliveryStatus,
    attempts: view.attempts.map((attempt) => ({ ...attempt })),
    createdAt: view.createdAt,
  };
}
