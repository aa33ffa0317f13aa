import { ApolloServerErrorCode } from "@apollo/server/errors";

/** Codes of top-level GraphQL errors that this service raises itself (Apollo's own where one exists). */
export const GraphQLErrorCode = {
  UNAUTHENTICATED: "UNAUTHENTICATED",
  FORBIDDEN: "FORBIDDEN",
  BAD_USER_INPUT: ApolloServerErrorCode.BAD_USER_INPUT,
  BAD_REQUEST: "BAD_REQUEST",
  NOT_FOUND: "NOT_FOUND",
  RATE_LIMITED: "RATE_LIMITED",
  SERVICE_UNAVAILABLE: "SERVICE_UNAVAILABLE",
  TOO_MANY_SUBSCRIPTIONS: "TOO_MANY_SUBSCRIPTIONS",
  SUBSCRIBER_TOO_SLOW: "SUBSCRIBER_TOO_SLOW",
  INTERNAL_SERVER_ERROR: ApolloServerErrorCode.INTERNAL_SERVER_ERROR,
} as const;
