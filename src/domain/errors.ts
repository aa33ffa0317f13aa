/**
 * Typed domain errors. Each transport maps them once (src/http/error-mapper.ts, and the GraphQL mapper):
 * the domain never knows about status codes.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;
}

export class NotFoundError extends DomainError {
  readonly code = "NOT_FOUND";
  constructor(readonly resource: "order" | "merchant" | "apiKey" | "webhookEndpoint" | "webhookDelivery" = "order") {
    super(`${resource} not found`);
  }
}

export class UnauthorizedError extends DomainError {
  readonly code = "UNAUTHORIZED";
  constructor(readonly reason: "missing" | "invalid") {
    super(reason === "missing" ? "API key missing" : "API key invalid or revoked");
  }
}

export class ForbiddenError extends DomainError {
  readonly code = "FORBIDDEN";
  constructor(readonly reason: "test_mode_only") {
    super("This operation needs a test-mode API key");
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

export interface FieldProblem {
  /** Dotted path with indexes, e.g. `items[0].quantity`. */
  field: string;
  /** Catalogue key and parameters, localised by the transport. */
  key: string;
  params?: Record<string, string | number>;
}

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
