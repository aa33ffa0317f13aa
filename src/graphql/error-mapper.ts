import { ConversationClosedError, ReplyRateLimitedError } from "../domain/conversation/conversation-errors.ts";
import { GraphQLError, type GraphQLFormattedError } from "graphql";
import { unwrapResolverError } from "@apollo/server/errors";
import {
  DomainError,
  DuplicateExternalOrderIdError,
  ForbiddenError,
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
  NotFoundError,
  OrderNotPendingError,
  ProviderRejectedError,
  ProviderUnavailableError,
  UnauthorizedError,
  ValidationError,
  WebhookEndpointLimitError,
  type FieldProblem,
} from "../domain/errors.ts";
import { mapErrorToHttp } from "../http/error-mapper.ts";
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from "../db/unavailable.ts";
import { LIST_SEPARATOR, translate, type Language } from "../i18n/messages.ts";
import type { UserError } from "../generated/graphql.ts";
import { GraphQLErrorCode } from "./error-codes.ts";
import { NESTED_TOO_DEEPLY } from "./input-checks.ts";

/**
 * The one place where errors become GraphQL answers (the counterpart of src/http/error-mapper.ts):
 *
 * - business outcomes of mutations become `userErrors` with the REST error codes (Shopify's convention:
 *   the top-level `errors` are for client and server errors);
 * - a missing or invalid key is a top-level `UNAUTHENTICATED` error with HTTP 401;
 * - a bad argument of a query is a top-level `BAD_USER_INPUT` error naming the argument;
 * - anything unexpected is `INTERNAL_SERVER_ERROR` with a generic message and the request id, never a stack
 *   or the original message.
 *
 * Every message is localised (en, ar) like REST's.
 */

/**
 * Codes of top-level errors that this service raises itself (Apollo adds its own parse/validation codes); in their
 * own module, so the input checks that use them need not import this one (which imports them).
 */
export { GraphQLErrorCode } from "./error-codes.ts";

/** `items[0].quantity` → `["items", "0", "quantity"]`, under `root` (e.g. `["input"]`). */
export function fieldPath(field: string, root: readonly string[] = []): string[] {
  const parts = field.split(/\.|\[(\d+)\]/).filter((part): part is string => Boolean(part));
  return [...root, ...parts];
}

function problemMessage(problem: FieldProblem, language: Language): string {
  return `${problem.field} ${translate(problem.key, language, problem.params)}`;
}

/**
 * A mutation's expected failure as `userErrors`, or null when `error` is not a business outcome (the caller
 * then rethrows it). `inputRoot` is where the fields named by a validation problem live (`["input"]`).
 */
export function toUserErrors(error: unknown, language: Language, inputRoot: readonly string[] = []): UserError[] | null {
  if (!(error instanceof DomainError)) return null;
  const userError = (message: string, field: string[] | null = null, errorCode: number | null = null): UserError => ({
    code: error.code,
    message,
    field,
    errorCode,
  });
  if (error instanceof ValidationError) {
    return error.problems.map((problem) =>
      userError(problemMessage(problem, language), fieldPath(problem.field, inputRoot)),
    );
  }
  if (error instanceof DuplicateExternalOrderIdError) {
    const message = translate("error.DUPLICATE_EXTERNAL_ORDER_ID", language, { externalOrderId: error.externalOrderId });
    return [userError(message, [...inputRoot, "externalOrderId"])];
  }
  if (error instanceof ProviderRejectedError) {
    const message = translate("error.PROVIDER_REJECTED", language, { failureReason: error.failureReason });
    return [userError(message, null, error.errorCode)];
  }
  if (error instanceof ProviderUnavailableError) {
    const message = translate(`error.PROVIDER_UNAVAILABLE.${error.reason}`, language, { failureReason: error.failureReason });
    return [userError(message, null, error.errorCode)];
  }
  if (error instanceof NotFoundError) {
    const key = error.resource === "order" ? "error.NOT_FOUND" : `error.NOT_FOUND.${error.resource}`;
    return [userError(translate(key, language), ["id"])];
  }
  if (error instanceof ForbiddenError) {
    return [userError(translate(`error.FORBIDDEN.${error.reason}`, language, error.params), error.reason === "mode" ? ["mode"] : null)];
  }
  if (error instanceof WebhookEndpointLimitError) {
    return [userError(translate("error.WEBHOOK_ENDPOINT_LIMIT_REACHED", language, { limit: error.limit }))];
  }
  if (error instanceof IdempotencyKeyReusedError || error instanceof IdempotencyKeyInUseError) {
    return [userError(translate(`error.${error.code}`, language))];
  }
  if (error instanceof OrderNotPendingError) {
    return [userError(translate("error.ORDER_NOT_PENDING", language, { status: error.status }), ["id"])];
  }
  if (error instanceof ConversationClosedError) return [userError(translate("error.CONVERSATION_CLOSED", language), ["orderId"])];
  if (error instanceof ReplyRateLimitedError) {
    return [userError(translate("error.RATE_LIMITED", language, { seconds: error.retryAfterSeconds }))];
  }
  return null;
}

/** The top-level error for a caller without a valid key: HTTP 401, `extensions.code: UNAUTHENTICATED`. */
export function unauthenticatedError(error: UnauthorizedError | null, language: Language): GraphQLError {
  const reason = error?.reason ?? "missing";
  return new GraphQLError(translate(`error.UNAUTHORIZED.${reason}`, language), {
    extensions: { code: GraphQLErrorCode.UNAUTHENTICATED, http: { status: 401 } },
  });
}

/**
 * A caller that may not do this at all: a console viewer running a mutation, or a browser page of another origin
 * using a session cookie. HTTP 403, `extensions.code: FORBIDDEN`, before anything runs.
 */
export function forbiddenError(error: ForbiddenError, language: Language): GraphQLError {
  return new GraphQLError(translate(`error.FORBIDDEN.${error.reason}`, language, error.params), {
    extensions: { code: GraphQLErrorCode.FORBIDDEN, http: { status: 403 } },
  });
}

/**
 * An operationName that names no operation of the document, or none given for a document of several (GraphQL over
 * HTTP): 400, naming the operation asked for, before anything runs.
 */
export function unknownOperationError(operationName: string | null | undefined, language: Language): GraphQLError {
  const message = operationName
    ? translate("error.OPERATION_NOT_FOUND", language, { name: operationName.slice(0, 100) })
    : translate("error.OPERATION_NAME_REQUIRED", language);
  return new GraphQLError(message, { extensions: { code: GraphQLErrorCode.BAD_REQUEST, http: { status: 400 } } });
}

/** A subscription sent with HTTP POST/GET: refused with 400 before anything runs (they need the websocket). */
export function subscriptionOverHttpError(language: Language): GraphQLError {
  return new GraphQLError(translate("error.SUBSCRIPTIONS_OVER_WEBSOCKET", language), {
    extensions: { code: GraphQLErrorCode.BAD_REQUEST, http: { status: 400 } },
  });
}

/**
 * A query argument out of bounds: one `BAD_USER_INPUT` error listing every problem, each with the path of its
 * argument (`["first"]`, `["filter", "createdFrom"]`), like REST's `details`.
 */
export function badUserInputError(problems: FieldProblem[], language: Language): GraphQLError {
  const details = problems.map((problem) => ({
    field: fieldPath(problem.field),
    message: translate(problem.key, language, problem.params),
  }));
  const summary = problems.map((problem) => problemMessage(problem, language)).join(LIST_SEPARATOR[language]);
  return new GraphQLError(translate("error.VALIDATION_ERROR", language, { details: summary }), {
    extensions: { code: GraphQLErrorCode.BAD_USER_INPUT, details },
  });
}

/** The rate limiter's refusal as a GraphQL response body (sent with 429 and Retry-After). */
export function rateLimitedBody(retryAfterSeconds: number, language: Language) {
  return {
    errors: [
      {
        message: translate("error.RATE_LIMITED", language, { seconds: retryAfterSeconds }),
        extensions: { code: GraphQLErrorCode.RATE_LIMITED, retryAfter: retryAfterSeconds },
      },
    ],
  };
}

/**
 * An error that Fastify raised before Apollo ran (body too large, not JSON, unparsable JSON, a bug), mapped
 * like REST's and answered in GraphQL's shape with REST's status: a 400 is `BAD_REQUEST`, otherwise REST's
 * error code (`INTERNAL_ERROR` as `INTERNAL_SERVER_ERROR`). The rate limiter's refusal is rateLimitedBody.
 */
export function requestErrorResponse(error: unknown, language: Language, requestId: string) {
  const mapped = mapErrorToHttp(error, language, requestId);
  const retryAfter = mapped.outage ? { retryAfter: DATABASE_RETRY_AFTER_SECONDS } : {};
  const restCode = String(mapped.body.error ?? GraphQLErrorCode.INTERNAL_SERVER_ERROR);
  const code =
    mapped.statusCode === 400
      ? GraphQLErrorCode.BAD_REQUEST
      : restCode === "INTERNAL_ERROR"
        ? GraphQLErrorCode.INTERNAL_SERVER_ERROR
        : restCode;
  return {
    statusCode: mapped.statusCode,
    headers: mapped.headers ?? {},
    unexpected: mapped.unexpected ?? false,
    outage: mapped.outage ?? false,
    body: { errors: [{ message: mapped.body.message, extensions: { code, ...retryAfter } }] },
  };
}

/** A subscription to an order the caller cannot see (unknown, another merchant's or the other mode's). */
export function notFoundError(language: Language): GraphQLError {
  return new GraphQLError(translate("error.NOT_FOUND", language), { extensions: { code: GraphQLErrorCode.NOT_FOUND } });
}

/**
 * A websocket `subscribe` without a valid key: the connection never authenticated (`missing`) or its key was
 * revoked since (`invalid`). No HTTP status: the socket answers with close codes.
 */
export function socketUnauthenticatedError(reason: "missing" | "invalid" | "session", language: Language): GraphQLError {
  return new GraphQLError(translate(`error.UNAUTHORIZED.${reason}`, language), {
    extensions: { code: GraphQLErrorCode.UNAUTHENTICATED },
  });
}

/** One operation more than a socket may run at once. */
export function tooManySubscriptionsError(max: number, language: Language): GraphQLError {
  return new GraphQLError(translate("error.TOO_MANY_SUBSCRIPTIONS", language, { max }), {
    extensions: { code: GraphQLErrorCode.TOO_MANY_SUBSCRIPTIONS },
  });
}

/** A query or mutation sent over the websocket, which carries subscriptions only. */
export function subscriptionsOnlyError(language: Language): GraphQLError {
  return new GraphQLError(translate("error.WEBSOCKET_SUBSCRIPTIONS_ONLY", language), {
    extensions: { code: GraphQLErrorCode.BAD_REQUEST },
  });
}

/** A document whose operation cannot be chosen (several operations and no or an unknown operationName). */
export function unidentifiedOperationError(): GraphQLError {
  return new GraphQLError("Unable to identify operation");
}

/** A subscriber dropped for reading slower than events arrive (its socket is already closing with 1013). */
export function subscriberTooSlowError(message: string): GraphQLFormattedError {
  return { message, extensions: { code: GraphQLErrorCode.SUBSCRIBER_TOO_SLOW } };
}

/** An error thrown by a resolver, as the client sees it: our own GraphQLErrors pass, the rest is masked. */
export function toGraphQLError(error: unknown, language: Language, requestId: string): GraphQLError {
  if (error instanceof GraphQLError) return error;
  if (error instanceof UnauthorizedError) return unauthenticatedError(error, language);
  if (error instanceof ForbiddenError) return forbiddenError(error, language);
  if (error instanceof ValidationError) return badUserInputError(error.problems, language);
  if (isDatabaseUnavailable(error)) return serviceUnavailableError(language, error);
  return internalError(language, requestId, error);
}

/**
 * The database cannot be reached: `SERVICE_UNAVAILABLE` with `retryAfter` (seconds), answered with HTTP 503 and
 * Retry-After (see the request plugin in http.ts), so clients back off as they do from REST's 503.
 */
export function serviceUnavailableError(language: Language, cause?: unknown): GraphQLError {
  const seconds = DATABASE_RETRY_AFTER_SECONDS;
  return new GraphQLError(translate("error.SERVICE_UNAVAILABLE", language, { seconds }), {
    originalError: cause instanceof Error ? cause : undefined,
    extensions: { code: GraphQLErrorCode.SERVICE_UNAVAILABLE, retryAfter: seconds },
  });
}

/** A bug, as the client sees it: a generic localised message and the request id; the cause is kept for the log. */
export function internalError(language: Language, requestId: string, cause?: unknown): GraphQLError {
  return new GraphQLError(translate("error.INTERNAL_ERROR", language, { requestId }), {
    originalError: cause instanceof Error ? cause : undefined,
    extensions: { code: GraphQLErrorCode.INTERNAL_SERVER_ERROR, ...(requestId ? { requestId } : {}) },
  });
}

/**
 * Apollo's formatError, the last line: parse and validation errors and our own errors pass unchanged; an error
 * that escaped the resolvers' mapping (a bug) loses its message, so no internal detail ever reaches a client.
 * Stack traces are never included (includeStacktraceInErrorResponses is off).
 */
export function formatGraphQLError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  // Apollo reports a parser that ran out of stack with the RangeError's own text.
  if (formatted.extensions?.code === "GRAPHQL_PARSE_FAILED" && unwrapResolverError(error) instanceof RangeError) {
    return { message: NESTED_TOO_DEEPLY, extensions: { code: "GRAPHQL_PARSE_FAILED" } };
  }
  if (formatted.extensions?.code !== GraphQLErrorCode.INTERNAL_SERVER_ERROR) return formatted;
  const original = unwrapResolverError(error);
  // An outage met outside the resolvers' mapping (a field resolver, a loader): still a coded, retryable error.
  if (isDatabaseUnavailable(original)) {
    const { message, extensions } = serviceUnavailableError("en").toJSON();
    return { message, ...(formatted.path ? { path: formatted.path } : {}), extensions };
  }
  if (original instanceof GraphQLError && original.extensions?.requestId) return formatted;
  return {
    message: "An unexpected error occurred",
    ...(formatted.locations ? { locations: formatted.locations } : {}),
    ...(formatted.path ? { path: formatted.path } : {}),
    extensions: { code: GraphQLErrorCode.INTERNAL_SERVER_ERROR },
  };
}
