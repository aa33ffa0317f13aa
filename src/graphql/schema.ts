import { readFileSync } from "node:fs";
import type { GraphQLSchema } from "graphql";
import { makeExecutableSchema } from "@graphql-tools/schema";
import type { AppServices } from "../app-services.ts";
import type { Resolvers } from "../generated/graphql.ts";
import { orderResolvers } from "./resolvers/order.resolvers.ts";
import { apiKeyResolvers } from "./resolvers/api-key.resolvers.ts";
import { confirmationResolvers } from "./resolvers/confirmation-policy.resolvers.ts";
import { viewerResolvers } from "./resolvers/viewer.resolvers.ts";
import { webhookResolvers } from "./resolvers/webhook.resolvers.ts";
import { confirmationPageResolvers } from "./resolvers/confirmation-page.resolvers.ts";
import { statsResolvers } from "./resolvers/stats.resolvers.ts";
import { followUpResolvers } from "./resolvers/follow-up.resolvers.ts";
import { auditResolvers } from "./resolvers/audit.resolvers.ts";
import { conversationResolvers } from "./resolvers/conversation.resolvers.ts";
import { storeResolvers } from "./resolvers/store.resolvers.ts";
import { storePlatformResolvers } from "./resolvers/store-platform.resolvers.ts";
import { DateTimeScalar, JSONScalar } from "./scalars.ts";
import { subscriptionResolvers } from "./subscriptions/subscription.resolvers.ts";

/** schema.graphql at the repository root: the single source of the GraphQL types (codegen reads it too). */
export const SCHEMA_SDL = readFileSync(new URL("../../schema.graphql", import.meta.url), "utf8");

/** The executable schema shared by HTTP (Apollo) and the websocket (graphql-ws). */
export function createGraphQLSchema(services: AppServices): GraphQLSchema {
  // Each feature's resolvers, by type name; the console and merchant surface (SPEC §10) and later sections add theirs.
  const features: object[] = [
    orderResolvers(services),
    confirmationResolvers(services),
    viewerResolvers(services),
    apiKeyResolvers(services),
    webhookResolvers(services),
    statsResolvers(services),
    auditResolvers(services),
    conversationResolvers(services),
    // The follow-up desk (SPEC §15).
    followUpResolvers(services),
    storeResolvers(services),
    storePlatformResolvers(services),
    confirmationPageResolvers(services),
    { Subscription: subscriptionResolvers(services) },
  ];
  const resolvers: Resolvers = { ...combineByType(features), DateTime: DateTimeScalar, JSON: JSONScalar };
  return makeExecutableSchema({ typeDefs: SCHEMA_SDL, resolvers });
}

/** Merges features' resolver maps type by type (two features may both add fields to Query, Order, …). */
function combineByType(features: object[]): Resolvers {
  const combined: Record<string, Record<string, unknown>> = {};
  for (const feature of features) {
    for (const [type, fields] of Object.entries(feature)) {
      if (fields) combined[type] = { ...combined[type], ...(fields as Record<string, unknown>) };
    }
  }
  return combined as Resolvers;
}
