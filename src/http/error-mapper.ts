import type { FastifyError } from "fastify";
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
  SignInThrottledError,
  UnauthorizedError,
  ValidationError,
  WebhookEndpointLimitError,
  type FieldProblem,
} from "../domain/errors.ts";
import { ConversationClosedError, ReplyRateLimitedError } from "../domain/conversation/conversation-errors.ts";
import { LIST_SEPARATOR, translate, type Language } from "../i18n/messages.ts";
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from "../db/unavailable.ts";

export interface HttpErrorResponse {
  statusCode: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Unexpected errors are logged with their stack; expected ones are not. */
  unexpected?: boolean;
  /** The database is unreachable: logged as one throttled warning, not per request. */
  outage?: boolean;
}

/** Thrown by the rate limiter; mapped here like every other error. */
export class RateLimitedError extends Error {
  readonly statusCode = 429;
  constructor(readonly retryAfterSeconds: number) {
    super("rate limited");
  }
}

export class RouteNotFoundError extends Error {}

const family = (code: string, message: string, extra: Record<string, unknown> = {}) => ({
  success: false,
  message,
  error: code,
  ...extra,
});

export function validationBody(problems: FieldProblem[], language: Language): Record<string, unknown> {
  const details = problems.map((problem) => ({
    field: problem.field,
    message: translate(problem.key, language, problem.params),
  }));
  const summary = details.map((detail) => `${detail.field} ${detail.message}`).join(LIST_SEPARATOR[language]);
  const message = translate("error.VALIDATION_ERROR", language, { details: summary });
  return family("VALIDATION_ERROR", message, { errorCode: null, failureReason: message, details });
}

/** The one place where errors become REST responses (SPEC §3 table, seed error shapes). */
export function mapErrorToHttp(error: unknown, language: Language, requestId: string): HttpErrorResponse {
  if (error instanceof DomainError) return mapDomainError(error, language) ?? internalError(language, requestId);
  if (error instanceof RateLimitedError) {
    return {
      statusCode: 429,
      body: family("RATE_LIMITED", translate("error.RATE_LIMITED", language, { seconds: error.retryAfterSeconds })),
      headers: { "retry-after": String(error.retryAfterSeconds) },
    };
  }
  if (error instanceof RouteNotFoundError) {
    return { statusCode: 404, body: family("NOT_FOUND", translate("error.NOT_FOUND.route", language)) };
  }
  const fastifyError = error as Partial<FastifyError> & { type?: string };
  switch (fastifyError.code) {
    // @fastify/static (the /docs assets) refuses paths outside its folder with 403, and unreadable names
    // (a NUL, ../) with other codes: whatever is not a file there is simply not found.
    case "FST_STATIC_FORBIDDEN_PATH":
      return { statusCode: 404, body: family("NOT_FOUND", translate("error.NOT_FOUND.route", language)) };
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return { statusCode: 400, body: validationBody([{ field: "body", key: "field.json" }], language) };
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return { statusCode: 415, body: family("UNSUPPORTED_MEDIA_TYPE", translate("error.UNSUPPORTED_MEDIA_TYPE", language)) };
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return { statusCode: 413, body: family("PAYLOAD_TOO_LARGE", translate("error.PAYLOAD_TOO_LARGE", language)) };
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return { statusCode: 400, body: validationBody([{ field: "body", key: "field.json" }], language) };
  }
  // JSON.parse failures from the content-type parser surface as SyntaxError with statusCode 400.
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return { statusCode: 400, body: validationBody([{ field: "body", key: "field.json" }], language) };
  }
  if (fastifyError.statusCode === 404) {
    return { statusCode: 404, body: family("NOT_FOUND", translate("error.NOT_FOUND.route", language)) };
  }
  if (fastifyError.statusCode === 413) {
    return { statusCode: 413, body: family("PAYLOAD_TOO_LARGE", translate("error.PAYLOAD_TOO_LARGE", language)) };
  }
  if (fastifyError.statusCode === 415) {
    return { statusCode: 415, body: family("UNSUPPORTED_MEDIA_TYPE", translate("error.UNSUPPORTED_MEDIA_TYPE", language)) };
  }
  if (isDatabaseUnavailable(error)) return serviceUnavailable(language);
  return internalError(language, requestId);
}

/** 503 SERVICE_UNAVAILABLE with Retry-After: the database is down or unreachable, the request may be repeated. */
export function serviceUnavailable(language: Language): HttpErrorResponse {
  const seconds = DATABASE_RETRY_AFTER_SECONDS;
  return {
    statusCode: 503,
    body: family("SERVICE_UNAVAILABLE", translate("error.SERVICE_UNAVAILABLE", language, { seconds })),
    headers: { "retry-after": String(seconds) },
    outage: true,
  };
}

function internalError(language: Language, requestId: string): HttpErrorResponse {
  return {
    statusCode: 500,
    body: family("INTERNAL_ERROR", translate("error.INTERNAL_ERROR", language, { requestId }), { requestId }),
    unexpected: true,
  };
}

function mapDomainError(error: DomainError, language: Language): HttpErrorResponse | null {
  if (error instanceof ValidationError) return { statusCode: 400, body: validationBody(error.problems, language) };
  if (error instanceof UnauthorizedError) {
    return { statusCode: 401, body: family("UNAUTHORIZED", translate(`error.UNAUTHORIZED.${error.reason}`, language)) };
  }
  if (error instanceof ConversationClosedError) {
    return { statusCode: 409, body: family(error.code, translate("error.CONVERSATION_CLOSED", language)) };
  }
  if (error instanceof SignInThrottledError || error instanceof ReplyRateLimitedError) {
    return {
      statusCode: 429,
      body: family("RATE_LIMITED", translate("error.RATE_LIMITED", language, { seconds: error.retryAfterSeconds })),
      headers: { "retry-after": String(error.retryAfterSeconds) },
    };
  }
  if (error instanceof ForbiddenError) {
    return { statusCode: 403, body: family("FORBIDDEN", translate(`error.FORBIDDEN.${error.reason}`, language, error.params)) };
  }
  if (error instanceof NotFoundError) {
    const key = error.resource === "order" ? "error.NOT_FOUND" : `error.NOT_FOUND.${error.resource}`;
    return { statusCode: 404, body: family("NOT_FOUND", translate(key, language)) };
  }
  if (error instanceof DuplicateExternalOrderIdError) {
    const message = translate("error.DUPLICATE_EXTERNAL_ORDER_ID", language, { externalOrderId: error.externalOrderId });
    return { statusCode: 409, body: family(error.code, message, { orderId: error.orderId }) };
  }
  if (error instanceof OrderNotPendingError) {
    const message = translate("error.ORDER_NOT_PENDING", language, { status: error.status });
    return { statusCode: 409, body: family(error.code, message, { status: error.status }) };
  }
  if (error instanceof IdempotencyKeyReusedError || error instanceof IdempotencyKeyInUseError) {
    return { statusCode: 409, body: family(error.code, translate(`error.${error.code}`, language)) };
  }
  if (error instanceof WebhookEndpointLimitError) {
    return { statusCode: 409, body: family(error.code, translate(`error.${error.code}`, language, { limit: error.limit })) };
  }
  if (error instanceof ProviderRejectedError) {
    // The seed's provider-rejection body: exactly these three fields.
    const message = translate("error.PROVIDER_REJECTED", language, { failureReason: error.failureReason });
    return { statusCode: 400, body: { message, errorCode: error.errorCode, failureReason: error.failureReason } };
  }
  if (error instanceof ProviderUnavailableError) {
    const message = translate(`error.PROVIDER_UNAVAILABLE.${error.reason}`, language, { failureReason: error.failureReason });
    return {
      statusCode: 502,
      body: family(error.code, message, { errorCode: error.errorCode, failureReason: error.failureReason }),
    };
  }
  return null;
}
