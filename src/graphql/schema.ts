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
import { statsResolvers } from "./resolvers/stats.resolvers.ts";
import { followUpResolvers } from "./resolvers/follow-up.resolvers.ts";
import { conversationResolvers } from "./resolvers/conversation.resolvers.ts";
import { DateTimeScalar, JSONScalar } from "./scalars.ts";
import { subscriptionResolvers } from "./subscriptions/subscription.resolvers.ts";

/** schema.graphql at the repository root: the single source of the GraphQL types (codegen reads it too). */
export const SCHEMA_SDL = readFileSync(new URL("../../schema.graphql", import.meta.url), "utf8");

/** The executable schema shared by HTTP (Apollo) and the websocket (graphql-ws). */
export function createGraphQLSchema(services: AppServices): GraphQLSchema {
  const orders = orderResolvers(services);
  const confirmation = confirmationResolvers(services);
  // The console and merchant surface (SPEC §10).
  const viewer = viewerResolvers(services);
  const apiKeys = apiKeyResolvers(services);
  const webhooks = webhookResolvers(services);
  const stats = statsResolvers(services);
  // The follow-up desk (SPEC §15) and the conversation (SPEC §11).
  const followUp = followUpResolvers(services);
  const conversation = conversationResolvers(services);
  const resolvers: Resolvers = {
    DateTime: DateTimeScalar,
    JSON: JSONScalar,
    Query: { ...orders.Query, ...confirmation.Query, ...viewer.Query, ...apiKeys.Query, ...webhooks.Query, ...stats.Query, ...followUp.Query },
    Mutation: { ...orders.Mutation, ...confirmation.Mutation, ...apiKeys.Mutation, ...webhooks.Mutation, ...followUp.Mutation, ...conversation.Mutation },
    Order: { ...confirmation.Order, ...webhooks.Order, ...conversation.Order },
    OrderConnection: orders.OrderConnection,
    Subscription: { ...subscriptionResolvers(services), ...conversation.Subscription },
  };
  return makeExecutableSchema({ typeDefs: SCHEMA_SDL, resolvers });
}
