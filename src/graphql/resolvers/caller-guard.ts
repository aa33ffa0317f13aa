import { ForbiddenError } from "../../domain/errors.ts";
import { roleMay, type Coordinate } from "../../domain/users/permissions.ts";
import type { GraphQLCaller, GraphQLContext } from "../context.ts";
import { forbiddenError, toGraphQLError, unauthenticatedError } from "../error-mapper.ts";

/**
 * Runs a resolver for an authenticated caller (API key or console session) and maps whatever it throws in one
 * place (error-mapper): UNAUTHENTICATED without a valid key or session, BAD_USER_INPUT for bad arguments, a
 * masked internal error otherwise.
 */
export async function asCaller<T>(context: GraphQLContext, run: (caller: GraphQLCaller) => Promise<T>): Promise<T> {
  if (!context.caller) throw unauthenticatedError(context.authError, context.language);
  try {
    return await run(context.caller);
  } catch (error) {
    throw toGraphQLError(error, context.language, context.requestId);
  }
}

/**
 * Like `asCaller`, for changes only admins (and API keys) may make: a console viewer or agent is refused with
 * FORBIDDEN. The HTTP layer already refuses them before execution (role-check.ts); this keeps the rule where the
 * secrets are handed out as well.
 */
export async function asAdmin<T>(context: GraphQLContext, run: (caller: GraphQLCaller) => Promise<T>): Promise<T> {
  const role = context.caller?.session?.user.role;
  if (role && role !== "admin") throw forbiddenError(new ForbiddenError(role === "agent" ? "agent" : "viewer"), context.language);
  return asCaller(context, run);
}

/**
 * Like `asCaller`, for a field whose rule is in domain/users/permissions.ts (e.g. `Mutation.recordCustomerAnswer`,
 * which agents may use and viewers may not): the same table the HTTP and websocket checks read.
 */
export async function asPermitted<T>(
  context: GraphQLContext,
  coordinate: Coordinate,
  run: (caller: GraphQLCaller) => Promise<T>,
): Promise<T> {
  const role = context.caller?.session?.user.role;
  if (role && !roleMay(role, coordinate)) {
    throw forbiddenError(new ForbiddenError(role === "agent" ? "agent" : "viewer"), context.language);
  }
  return asCaller(context, run);
}

/**
 * For what only a person may do (SPEC §14): create or revoke API keys, manage users, read the audit log. An admin
 * console session may; an API key is refused with FORBIDDEN (a leaked key must not mint its successor), and so is a
 * console user of any other role.
 */
export async function asSessionAdmin<T>(context: GraphQLContext, run: (caller: GraphQLCaller) => Promise<T>): Promise<T> {
  const caller = context.caller;
  if (!caller) throw unauthenticatedError(context.authError, context.language);
  if (!caller.session) throw forbiddenError(new ForbiddenError("api_key"), context.language);
  if (caller.session.user.role !== "admin") throw forbiddenError(new ForbiddenError("admin_only"), context.language);
  return asCaller(context, run);
}
