import { z } from "zod";
import type { AppServices } from "../../app-services.ts";
import { ValidationError } from "../../domain/errors.ts";
import type { MerchantScope as Caller } from "../../domain/orders/order.repository.ts";
import { encodeCursor } from "../../domain/orders/order-cursor.ts";
import { IDEMPOTENCY_KEY_FORMAT } from "../../domain/idempotency/idempotency.service.ts";
import {
  createOrderInput,
  MAX_STATUS_FILTER_ENTRIES,
  orderListFilter,
  pageCursor,
  pageLimit,
  type CreateOrderInput,
  type OrderFilter as DomainFilter,
} from "../../domain/orders/order.schemas.ts";
import { problemFromIssue } from "../../i18n/zod-issues.ts";
import type {
  MutationResolvers,
  OrderConnectionResolvers,
  OrderFilter,
  QueryResolvers,
  ResolversTypes,
} from "../../generated/graphql.ts";

type CreateOrderPayload = ResolversTypes["CreateOrderPayload"];
type CancelOrderPayload = ResolversTypes["CancelOrderPayload"];
import type { GraphQLContext } from "../context.ts";
import { asCaller as guard } from "./caller-guard.ts";
import { toGraphQLError, toUserErrors, unauthenticatedError } from "../error-mapper.ts";
import { toCountPrecision, toDomainStatus, toGraphQLOrder, type OrderConnectionSource } from "../order-mapper.ts";

/**
 * Queries and mutations on orders. Thin: each one checks the caller, shapes its arguments and calls
 * OrderService, where every business rule lives (the same calls REST makes).
 */
export function orderResolvers(services: AppServices) {
  const { orderService, idempotency } = services;

  const Query: QueryResolvers = {
    order: (_parent, { id }, context) =>
      guard(context, async () => {
        const order = await context.orderLoader.load(id);
        return order ? toGraphQLOrder(order) : null;
      }),

    orders: (_parent, { first, after, filter }, context) =>
      guard(context, async (caller) => {
        const { limit, cursor, domainFilter } = pageArguments(first, after, filter);
        const page = await orderService.list(caller, domainFilter, { limit, cursor });
        // An edge's cursor is computed only when selected (a getter: the default resolver reads it as a field).
        const edges = page.orders.map((order) => ({
          get cursor() {
            return encodeCursor({ createdAt: new Date(order.createdAt), id: order.id });
          },
          node: toGraphQLOrder(order),
        }));
        const connection: OrderConnectionSource = {
          edges,
          pageInfo: {
            hasNextPage: page.hasMore,
            hasPreviousPage: false,
            startCursor: edges[0]?.cursor ?? null,
            endCursor: edges.at(-1)?.cursor ?? null,
          },
          countAll: once(() => orderService.count(caller, domainFilter)),
        };
        return connection;
      }),
  };

  const OrderConnection: OrderConnectionResolvers = {
    totalCount: (connection, _args, context) => guard(context, async () => (await connection.countAll()).count),
    totalCountPrecision: (connection, _args, context) =>
      guard(context, async () => toCountPrecision((await connection.countAll()).precision)),
  };

  const Mutation: MutationResolvers = {
    createOrder: (_parent, { input }, context) =>
      guard(context, async (caller): Promise<CreateOrderPayload> => {
        const key = context.idempotencyKey;
        if (key !== null && !IDEMPOTENCY_KEY_FORMAT.test(key)) {
          const problem = new ValidationError([{ field: "Idempotency-Key", key: "field.format.idempotency_key" }]);
          return { order: null, userErrors: toUserErrors(problem, context.language) ?? [] };
        }
        try {
          const parsed = createOrderInput.safeParse(withoutNulls(input), { reportInput: true });
          // Refused input is never stored under a key (as in REST): the client may fix it and reuse the key.
          if (!parsed.success) throw new ValidationError(parsed.error.issues.map((issue) => problemFromIssue(issue)));
          if (key === null) return await createOrderPayload(orderService, caller, parsed.data, context.language);
          // The same rules as REST's Idempotency-Key; GraphQL keys live apart from REST's (another "path").
          const request = { key, method: "POST", path: "/graphql#createOrder", body: parsed.data };
          const stored = await idempotency.execute(caller, request, async () => ({
            statusCode: 200,
            body: await createOrderPayload(orderService, caller, parsed.data, context.language),
          }));
          return stored.body as CreateOrderPayload;
        } catch (error) {
          const userErrors = toUserErrors(error, context.language, ["input"]);
          if (!userErrors) throw error;
          return { order: null, userErrors };
        }
      }),

    cancelOrder: (_parent, { id }, context) =>
      guard(context, async (caller): Promise<CancelOrderPayload> => {
        try {
          return { order: toGraphQLOrder(await orderService.cancel(caller, id, "graphql")), userErrors: [] };
        } catch (error) {
          const userErrors = toUserErrors(error, context.language);
          if (!userErrors) throw error;
          // ORDER_NOT_PENDING: the order exists and is the caller's; show it as it is.
          const current = userErrors[0]?.code === "ORDER_NOT_PENDING" ? await context.orderLoader.load(id) : null;
          return { order: current ? toGraphQLOrder(current) : null, userErrors };
        }
      }),
  };

  return { Query, Mutation, OrderConnection };
}

/**
 * Runs a resolver for an authenticated caller and maps whatever it throws in one place (error-mapper):
 * UNAUTHENTICATED without a valid key, BAD_USER_INPUT for bad arguments, a masked internal error otherwise.
 */
// REST's list rules (src/http/schemas.ts listOrdersQuery) under GraphQL's argument names, so each problem
// names its argument: ["first"], ["after"], ["filter", "customerPhone"]. `filter.status` is an enum list,
// already checked by GraphQL.
const pageArgumentsSchema = z.object({
  first: pageLimit,
  after: pageCursor.optional(),
  filter: orderListFilter
    .extend({ status: z.array(z.string()).max(MAX_STATUS_FILTER_ENTRIES).optional(), needsFollowUp: z.boolean().optional() })
    .optional(),
});

/** `first`, `after` and `filter` checked (a ValidationError: BAD_USER_INPUT) and turned into OrderService's page and filter. */
function pageArguments(first: number | null | undefined, after: string | null | undefined, filter: OrderFilter | null | undefined) {
  // An empty `after` means the first page, as before the shared cursor rule.
  const checked = pageArgumentsSchema.safeParse(withoutNulls({ first, after: after || undefined, filter }), { reportInput: true });
  if (!checked.success) throw new ValidationError(checked.error.issues.map((issue) => problemFromIssue(issue)));
  const { status: _statuses, ...otherFilters } = checked.data.filter ?? {};
  const domainFilter: DomainFilter = {
    statuses: filter?.status?.length ? [...new Set(filter.status.map(toDomainStatus))] : undefined,
    ...otherFilters,
  };
  return { limit: checked.data.first, cursor: checked.data.after, domainFilter };
}

/** GraphQL's explicit nulls as absent fields, which is what the shared zod schemas expect of optional ones. */
/** Creates the order; the expected refusals become userErrors, with the failed order when one was stored. */
async function createOrderPayload(
  orderService: AppServices["orderService"],
  caller: Caller,
  input: CreateOrderInput,
  language: GraphQLContext["language"],
): Promise<CreateOrderPayload> {
  try {
    return { order: toGraphQLOrder(await orderService.create(caller, input, language, "graphql")), userErrors: [] };
  } catch (error) {
    const userErrors = toUserErrors(error, language, ["input"]);
    if (!userErrors) throw error;
    // The provider's refusal stores the order failed: the payload carries it, as REST's 400 cannot.
    const failed = (error as { order?: unknown }).order as Parameters<typeof toGraphQLOrder>[0] | undefined;
    return { order: failed ? toGraphQLOrder(failed) : null, userErrors };
  }
}

function withoutNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutNulls) as T;
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).filter(([, field]) => field !== null).map(([key, field]) => [key, withoutNulls(field)]),
    ) as T;
  }
  return value;
}

/** `compute` run at most once, its promise shared by every caller (totalCount and totalCountPrecision, one query). */
function once<T>(compute: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | null = null;
  return () => (result ??= compute());
}
