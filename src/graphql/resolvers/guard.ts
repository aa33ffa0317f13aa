import type { Caller } from "../../domain/merchants/merchant.service.ts";
import type { GraphQLContext } from "../context.ts";
import { toGraphQLError, unauthenticatedError } from "../error-mapper.ts";

/** Runs a resolver for an authenticated caller; domain errors become coded GraphQL errors in the caller's language. */
export async function guard<T>(context: GraphQLContext, run: (caller: Caller) => Promise<T>): Promise<T> {
  if (!context.caller) throw unauthenticatedError(context.authError, context.language);
  try {
    return await run(context.caller);
  } catch (error) {
    throw toGraphQLError(error, context.language, context.requestId);
  }
}
