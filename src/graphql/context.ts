import DataLoader from "dataloader";
import type { AppServices } from "../app-services.ts";
import { NotFoundError, type UnauthorizedError } from "../domain/errors.ts";
import type { MerchantScope } from "../domain/orders/order.repository.ts";
import type { OrderView } from "../domain/orders/order.view.ts";
import type { SessionPrincipal } from "../domain/users/session.service.ts";
import type { Language } from "../i18n/messages.ts";
import type { AuditSource } from "../domain/audit/audit-log.ts";

/**
 * Who is calling and in which scope: an API key (its merchant and mode) or a signed-in console user (its
 * merchant, the mode it chose with X-OCS-Mode or connection_init, and its role). Resolvers scope every read and
 * write by `merchantId` and `mode` alike, whichever it is.
 */
export interface GraphQLCaller extends MerchantScope {
  /** The API key's id; null for a console session. */
  keyId: string | null;
  /** The API key's displayable prefix; null for a console session. */
  keyPrefix?: string | null;
  /** The signed-in console user; null for an API key. */
  session: SessionPrincipal | null;
}

/** Who acts and from where, as the audit log records it. */
export function auditSourceOf(caller: GraphQLCaller, address: string | null): AuditSource {
  if (caller.session) {
    return { actor: { kind: "user", id: caller.session.user.id, label: caller.session.user.email }, address };
  }
  return { actor: { kind: "api_key", id: caller.keyId, label: caller.keyPrefix ?? "API key" }, address };
}

/** What every resolver receives (HTTP and websocket alike). */
export interface GraphQLContext {
  /** The authenticated caller; null when no valid key or session was sent. */
  caller: GraphQLCaller | null;
  /** Why the key was refused (missing or invalid); reported when an operation touches data. */
  authError: UnauthorizedError | null;
  /** From Accept-Language (HTTP) or the connection (websocket): the language of every message. */
  language: Language;
  /** Quoted in internal-error messages and logs (the HTTP x-request-id). */
  requestId: string;
  /** The HTTP request's `Idempotency-Key` header (as sent; createOrder validates it), null when absent. */
  idempotencyKey: string | null;
  /** The client's address (request.ip under TRUST_PROXY), for the audit log; null when unknown. */
  address: string | null;
  /** Per-request batching of order reads by id: created on first use, never shared between requests. */
  readonly orderLoader: DataLoader<string, OrderView | null>;
}

export interface GraphQLContextOptions {
  authError?: UnauthorizedError | null;
  requestId?: string;
  idempotencyKey?: string | null;
  address?: string | null;
}

/**
 * Builds a request's context. Cheap by design (it runs on every request): the loader is created only when a
 * resolver first asks for it. A class, so the lazy getter lives on the prototype and survives Apollo's
 * per-request copy of the context (Object.assign would otherwise call it).
 */
export function createGraphQLContext(
  services: AppServices,
  caller: GraphQLCaller | null,
  language: Language,
  options: GraphQLContextOptions = {},
): GraphQLContext {
  return new RequestContext(
    services,
    caller,
    language,
    options.authError ?? null,
    options.requestId ?? "",
    options.idempotencyKey ?? null,
    options.address ?? null,
  );
}

class RequestContext implements GraphQLContext {
  private loader: DataLoader<string, OrderView | null> | null = null;

  constructor(
    private readonly services: AppServices,
    readonly caller: GraphQLCaller | null,
    readonly language: Language,
    readonly authError: UnauthorizedError | null,
    readonly requestId: string,
    readonly idempotencyKey: string | null,
    readonly address: string | null,
  ) {}

  get orderLoader(): DataLoader<string, OrderView | null> {
    this.loader ??= createOrderLoader(this.services, this.caller);
    return this.loader;
  }
}

/**
 * Orders of the caller by id, in one statement per batch: a single id uses the order read that REST's GET uses
 * (order and items as one row); several (aliases, lists of ids) one query for all of them. Unknown, foreign
 * and malformed ids load as null.
 */
function createOrderLoader(services: AppServices, caller: MerchantScope | null): DataLoader<string, OrderView | null> {
  return new DataLoader<string, OrderView | null>(async (ids) => {
    if (!caller) throw new Error("order loader used without a caller");
    if (ids.length === 1) {
      const order = await services.orderService.get(caller, ids[0]).catch((error: unknown) => {
        if (error instanceof NotFoundError) return null;
        throw error;
      });
      return [order];
    }
    const found = await services.orderService.getMany(caller, [...ids]);
    return ids.map((id) => found.get(id.toLowerCase()) ?? null);
  });
}
