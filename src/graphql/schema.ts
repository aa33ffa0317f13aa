import { readFileSync } from "node:fs";
import type { GraphQLSchema } from "graphql";
import { makeExecutableSchema } from "@graphql-tools/schema";
import type { AppServices } from "../app.ts";
import type { Resolvers } from "../generated/graphql.ts";
import { orderResolvers } from "./resolvers/order.resolvers.ts";
import { confirmationResolvers } from "./resolvers/confirmation-policy.resolvers.ts";
import { DateTimeScalar, JSONScalar } from "./scalars.ts";
import { subscriptionResolvers } from "./subscriptions/subscription.resolvers.ts";

/** schema.graphql at the repository root: the single source of the GraphQL types (codegen reads it too). */
export const SCHEMA_SDL = readFileSync(new URL("../../schema.graphql", import.meta.url), "utf8");

/** The executable schema shared by HTTP (Apollo) and the websocket (graphql-ws). */
export function createGraphQLSchema(services: AppServices): GraphQLSchema {
  const orders = orderResolvers(services);
  const confirmation = confirmationResolvers(services);
  const resolvers: Resolvers = {
    DateTime: DateTimeScalar,
    JSON: JSONScalar,
    Query: { ...orders.Query, ...confirmation.Query },
    Mutation: { ...orders.Mutation, ...confirmation.Mutation },
    Order: confirmation.Order,
    OrderConnection: orders.OrderConnection,
    Subscription: subscriptionResolvers(services),
  };
  return makeExecutableSchema({ typeDefs: SCHEMA_SDL, resolvers });
}
