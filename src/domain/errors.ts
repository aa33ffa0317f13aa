import type { FieldProblem } from "../i18n/field-problem.ts";

/**
 * Typed domain errors. Each transport maps them once (src/http/error-mapper.ts, and the GraphQL mapper):
 * the domain never knows about status codes.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;
}

export class NotFoundError extends DomainError {
  readonly code = "NOT_FOUND";
  constructor(readonly resource: "order" | "merchant" | "apiKey" | "webhookEndpoint" | "webhookDelivery" | "user" = "order") {
    super(`${resource} not found`);
  }
}

/**
 * `missing`/`invalid`: the API key; `credentials`: a console sign-in with a wrong e-mail or password (one
 * reason for both, so the answer never tells which); `session`: a console session cookie that expired, was
 * signed out or revoked.
 */
export class UnauthorizedError extends DomainError {
  readonly code = "UNAUTHORIZED";
  constructor(readonly reason: "missing" | "invalid" | "credentials" | "session" | "metrics_token") {
    super(
      {
        metrics_token: "The metrics token is missing or wrong",
        missing: "API key missing",
        invalid: "API key invalid or revoked",
        credentials: "Wrong e-mail or password",
        session: "Session expired, signed out or revoked",
      }[reason],
    );
  }
}

/**
 * `test_mode_only`: a simulator route with a live key; `viewer`: a console viewer attempted a change; `agent`: a
 * console agent reached past the follow-up desk (keys, webhooks, settings, …; see users/permissions.ts);
 * `origin`: a browser request from an origin that may not use console sessions; `mode`: an API key of one mode
 * managing keys of the other; `api_key`: an API key managing keys or users (only admin console sessions and the CLI
 * may); `admin_only`: a non-admin reading what only admins may (the audit log).
 */
export class ForbiddenError extends DomainError {
  readonly code = "FORBIDDEN";
  constructor(
    readonly reason: "test_mode_only" | "viewer" | "agent" | "origin" | "mode" | "api_key" | "admin_only",
    readonly params: Record<string, string> = {},
  ) {
    super(
      {
        test_mode_only: "This operation needs a test-mode API key",
        viewer: "Viewers may only read",
        agent: "Agents work on orders only",
        origin: "Requests from this origin may not use console sessions",
        mode: "This caller may only manage keys of its own mode",
        api_key: "API keys cannot manage API keys or console users",
        admin_only: "Only admins may do this",
      }[reason],
    );
  }
}

export class DuplicateExternalOrderIdError extends DomainError {
  readonly code = "DUPLICATE_EXTERNAL_ORDER_ID";
  constructor(readonly orderId: string, readonly externalOrderId: string) {
    super(`externalOrderId ${externalOrderId} is already used by order ${orderId}`);
  }
}

export class OrderNotPendingError extends DomainError {
  readonly code = "ORDER_NOT_PENDING";
  constructor(readonly orderId: string, readonly status: string) {
    super(`Order ${orderId} is ${status}, not pending`);
  }
}

export class IdempotencyKeyReusedError extends DomainError {
  readonly code = "IDEMPOTENCY_KEY_REUSED";
  constructor() {
    super("This Idempotency-Key was already used with a different request");
  }
}

export class IdempotencyKeyInUseError extends DomainError {
  readonly code = "IDEMPOTENCY_KEY_IN_USE";
  constructor() {
    super("A request with this Idempotency-Key is still being processed");
  }
}

/** The provider refused the send synchronously (seed: 400, order stored failed, no event). */
export class ProviderRejectedError extends DomainError {
  readonly code = "PROVIDER_REJECTED";
  constructor(readonly order: unknown, readonly errorCode: number | null, readonly failureReason: string) {
    super(`The messaging provider rejected the message: ${failureReason}`);
  }
}

/** The provider could not be reached, timed out, kept failing transiently, or is not configured. */
export class ProviderUnavailableError extends DomainError {
  readonly code = "PROVIDER_UNAVAILABLE";
  constructor(
    readonly order: unknown,
    readonly errorCode: number | null,
    readonly failureReason: string,
    readonly reason: "unreachable" | "not_configured",
  ) {
    super(`The messaging provider is unavailable: ${failureReason}`);
  }
}

export type { FieldProblem };

export class ValidationError extends DomainError {
  readonly code = "VALIDATION_ERROR";
  constructor(readonly problems: FieldProblem[]) {
    super(`Invalid request: ${problems.map((problem) => `${problem.field}: ${problem.key}`).join("; ")}`);
  }
}

/** A merchant (per mode) may register a bounded number of webhook endpoints. */
export class WebhookEndpointLimitError extends DomainError {
  readonly code = "WEBHOOK_ENDPOINT_LIMIT_REACHED";
  constructor(readonly limit: number) {
    super(`At most ${limit} webhook endpoints per mode`);
  }
}

/** Another console user (of any merchant) already signs in with this e-mail. */
export class EmailTakenError extends DomainError {
  readonly code = "EMAIL_TAKEN";
  constructor(readonly email: string) {
    super(`A user with the e-mail ${email} already exists`);
  }
}

/** A merchant has a bounded number of console users. */
export class UserLimitError extends DomainError {
  readonly code = "USER_LIMIT_REACHED";
  constructor(readonly limit: number) {
    super(`At most ${limit} console users per merchant`);
  }
}

/** Too many sign-in attempts for one e-mail or from one address; try again after `retryAfterSeconds`. */
export class SignInThrottledError extends DomainError {
  readonly code = "RATE_LIMITED";
  constructor(readonly retryAfterSeconds: number) {
    super(`Too many sign-in attempts; retry in ${retryAfterSeconds} s`);
  }
}
