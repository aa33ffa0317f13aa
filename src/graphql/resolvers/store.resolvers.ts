import type { AppServices } from "../../app-services.ts";
import type { StoreConnectionView } from "../../domain/stores/store.service.ts";
import type { MutationResolvers, QueryResolvers, StoreConnectionResolvers } from "../../generated/graphql.ts";
import type { GraphQLContext } from "../context.ts";
import { toUserErrors } from "../error-mapper.ts";
import { asAdmin, asCaller } from "./caller-guard.ts";

/**
 * Store connections over GraphQL (SPEC §13): thin doors over StoreService, scoped to the caller's merchant and
 * mode. Credentials never leave the domain; viewers read, admins change.
 */
export function storeResolvers(services: AppServices) {
  const { stores } = services;

  const Query: QueryResolvers = {
    storeConnections: (_parent, _args, context) => asCaller(context, (caller) => stores.list(caller)),
  };

  const Mutation: MutationResolvers = {
    updateStoreConnection: (_parent, { id, input }, context) =>
      asAdmin(context, (caller) => withUserErrors(context, () => stores.updateSettings(caller, id, withoutNulls(input)))),
    disconnectStore: (_parent, { id }, context) =>
      asAdmin(context, (caller) =>
        withUserErrors(context, () => stores.disconnect(caller, id, { kind: "USER", id: caller.session?.user.id ?? caller.keyId ?? "" })),
      ),
  };

  const StoreConnection: StoreConnectionResolvers = {
    platform: (connection) => connection.platform.toUpperCase() as "SHOPIFY",
    mode: (connection) => connection.mode.toUpperCase() as "LIVE" | "TEST",
    status: (connection) => connection.status.toUpperCase() as "ACTIVE",
    createdAt: (connection) => connection.createdAt.toISOString(),
    lastOrderAt: (connection) => connection.lastOrderAt?.toISOString() ?? null,
    activity: async (connection, { first }) => {
      const entries = await stores.recentActivity(connection.id, first ?? 20);
      return entries.map((entry) => ({
        at: entry.at.toISOString(),
        kind: entry.kind,
        storeOrderId: entry.storeOrderId,
        orderId: entry.orderId,
        detail: (entry.detail ?? null) as Record<string, unknown> | null,
      }));
    },
  };

  return { Query, Mutation, StoreConnection };
}

/**
 * Nulls from GraphQL: for tags, null means "no tag" (kept as null); for the other fields, "unchanged" (dropped).
 */
function withoutNulls(input: Record<string, unknown>): Record<string, unknown> {
  const nullable = new Set(["tagConfirmed", "tagCanceled", "tagExpired", "tagFailed"]);
  return Object.fromEntries(Object.entries(input).filter(([key, value]) => value !== null || nullable.has(key)));
}

async function withUserErrors(context: GraphQLContext, run: () => Promise<StoreConnectionView>) {
  try {
    return { connection: await run(), userErrors: [] };
  } catch (error) {
    const userErrors = toUserErrors(error, context.language);
    if (!userErrors) throw error;
    return { connection: null, userErrors };
  }
}
