import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import {
  getOperationAST,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
} from "graphql";
import { CloseCode, type Context, type SubscribePayload } from "graphql-ws";
import { useServer, type Extra } from "graphql-ws/use/ws";
import type { Logger } from "pino";
import { WebSocket, WebSocketServer, type RawData } from "ws";
import type { AppServices } from "../../app-services.ts";
import { UnauthorizedError } from "../../domain/errors.ts";
import { SlowConsumerError } from "../../domain/orders/live-order-events.ts";
import type { Language } from "../../i18n/messages.ts";
import { negotiateLanguage } from "../../http/language.ts";
import { isAllowedOrigin, sessionCookieName, sessionCookieOf } from "../../http/console-session.ts";
import { createGraphQLContext, type GraphQLCaller } from "../context.ts";
import { apiKeyEndMarker } from "../../domain/users/session-ends.ts";
import { isDatabaseUnavailable, warnDatabaseUnavailable } from "../../db/unavailable.ts";
import { throttledWarn } from "../../logger.ts";
import {
  forbiddenError,
  serviceUnavailableError,
  socketUnauthenticatedError,
  subscriberTooSlowError,
  subscriptionsOnlyError,
  toGraphQLError,
  tooManySubscriptionsError,
  unidentifiedOperationError,
} from "../error-mapper.ts";
import { costLimitRule, depthLimitRule } from "../hardening.ts";
import {
  documentTooLargeError,
  MAX_DOCUMENT_LENGTH,
  parseOptions,
  unparsableDocumentError,
  unstorableInputError,
} from "../input-checks.ts";
import { sharedSubscribe } from "./shared-execution.ts";
import { roleRefusal } from "../role-check.ts";
import { onSlowSubscriber } from "./subscription.resolvers.ts";

export const GRAPHQL_PATH = "/graphql";

export interface SubscriptionServerOptions {
  /** Time a new socket has to send `connection_init` (graphql-ws closes with 4408 after). */
  connectionInitWaitTimeoutMs?: number;
  /** Operations one socket may run at once; one more is answered with an error. */
  maxSubscriptionsPerSocket?: number;
  /** Largest message a client may send (a subscribe document is small). */
  maxPayloadBytes?: number;
  /** Server pings this often; a socket that does not answer within the same time is terminated. */
  keepAliveMs?: number;
  /** Each connection's key is checked again this often: a revoked key loses its sockets (4403). */
  recheckKeysEveryMs?: number;
  /** On close, sockets that have not finished their close handshake by then are cut. */
  closeGraceMs?: number;
  /**
   * Open connections one API key may hold on this instance (dashboards, tabs); one more is closed with 1008.
   * Bounds what a leaked or misused key can make the server hold in memory.
   */
  maxConnectionsPerKey?: number;
}

export interface SubscriptionServer {
  /** Open, authenticated connections. */
  readonly connections: number;
  /** Closes every socket with 1001 (going away) and stops accepting new ones. */
  close(): Promise<void>;
}

/**
 * connection_init payload: `{ "apiKey": "ek_..." }`, or nothing but the `ocs_session` cookie of the upgrade
 * request plus `mode` ("test" | "live", default test); optionally `language` ("en" | "ar", else Accept-Language).
 */
interface ConnectionParams extends Record<string, unknown> {
  apiKey?: unknown;
  mode?: unknown;
  language?: unknown;
}

/** What a connection authenticated with, checked again on every subscribe and periodically. */
type Credential = { kind: "apiKey"; apiKey: string } | { kind: "session"; token: string; mode: "test" | "live" };

interface ConnectionState extends Record<PropertyKey, unknown> {
  connectionId: string;
  credential: Credential;
  caller: GraphQLCaller;
  language: Language;
}

type SubscriptionContext = Context<ConnectionParams, Extra & Partial<ConnectionState>>;

const DEFAULTS: Required<SubscriptionServerOptions> = {
  connectionInitWaitTimeoutMs: 3_000,
  maxSubscriptionsPerSocket: 100,
  maxPayloadBytes: 64 * 1024,
  keepAliveMs: 12_000,
  recheckKeysEveryMs: 30_000,
  closeGraceMs: 2_000,
  maxConnectionsPerKey: 1_000,
};

/** graphql-transport-ws: a message the protocol does not allow. */
const BAD_REQUEST_CLOSE = 4400;
const SERVER_ONLY_TYPES = new Set(["connection_ack", "next", "error"]);

/** The type of a message only a server may send, or null (anything else is graphql-ws's to judge). */
function serverOnlyMessageType(data: RawData): string | null {
  const text = String(data);
  // Most messages name none of them: parsed here only when one appears.
  if (!/connection_ack|"next"|"error"/.test(text)) return null;
  try {
    const type: unknown = JSON.parse(text)?.type;
    return typeof type === "string" && SERVER_ONLY_TYPES.has(type) ? type : null;
  } catch {
    return null;
  }
}

/** 1013 "try again later": graphql-ws clients reconnect after it (unlike the 44xx codes). */
const SLOW_SUBSCRIBER_CLOSE = { code: 1013, reason: "Subscriber too slow" } as const;
const UNAUTHORIZED_CLOSE = { code: CloseCode.Unauthorized, reason: "Unauthorized" } as const;
const FORBIDDEN_CLOSE = { code: CloseCode.Forbidden, reason: "Forbidden" } as const;
const BAD_MODE_CLOSE = { code: CloseCode.BadRequest, reason: "mode must be test or live" } as const;
const TRY_AGAIN_LATER_CLOSE = { code: 1013, reason: "Service unavailable, try again later" } as const;
/** 1008 "policy violation": not 44xx, so graphql-ws clients retry later (when one of the key's sockets closed). */
const TOO_MANY_CONNECTIONS_CLOSE = { code: 1008, reason: "Too many connections for this API key" } as const;

/**
 * GraphQL subscriptions over the graphql-transport-ws protocol, on the HTTP server's port and the same
 * `/graphql` path as the HTTP endpoint (Fastify ignores `upgrade` requests; this server takes them).
 *
 * - Auth: `connection_init` carries `{ apiKey }`. No key: close 4401; an invalid, unknown or revoked key:
 *   close 4403 (graphql-ws's answer when onConnect refuses). The key is checked again on every subscribe
 *   and periodically, so a revocation also ends open sockets.
 * - Console auth: without `apiKey`, the upgrade request's `ocs_session` cookie, but only when the upgrade's
 *   Origin is the server's own or one of CONSOLE_ORIGINS (otherwise any site could open a socket with the
 *   visitor's cookie: cross-site websocket hijacking): 4403. `mode` in connection_init picks test or live
 *   (anything else: 4400). Sessions are re-checked like keys; an expired or revoked one closes with 4403.
 * - Only subscription operations: queries and mutations go over HTTP, where rate limits, idempotency keys
 *   and the query cost limits apply.
 * - Per socket at most `maxSubscriptionsPerSocket` operations; per subscription a bounded buffer: a client
 *   that cannot keep up is disconnected with 1013 rather than buffered without limit.
 */
export function startSubscriptionServer(
  httpServer: Server,
  services: AppServices,
  schema: GraphQLSchema,
  logger: Logger,
  options: SubscriptionServerOptions = {},
): SubscriptionServer {
  const settings = { ...DEFAULTS, ...options };
  const log = logger.child({ component: "graphql-ws" });
  const wss = new WebSocketServer({ server: httpServer, path: GRAPHQL_PATH, maxPayload: settings.maxPayloadBytes });
  const open = new Set<SubscriptionContext>();
  /** Open connections per API key id or console user (counted once authenticated, until closed). */
  const perKey = new Map<string, number>();
  const holderOf = (caller: GraphQLCaller) => (caller.keyId ? `key:${caller.keyId}` : `user:${caller.session?.user.id}`);
  const { allowedOrigins } = services.config.console;
  // The HTTP endpoint's depth and cost limits apply here too.
  const validationRules = [...specifiedRules, depthLimitRule(), costLimitRule()];

  const documents = new DocumentCache((query) => {
    // The same bounds as HTTP (input-checks.ts): refused unparsed when too long, parsed up to MAX_TOKENS.
    if (query.length > MAX_DOCUMENT_LENGTH) return { errors: [documentTooLargeError(query.length)] };
    let document: DocumentNode;
    try {
      document = parse(query, parseOptions);
    } catch (error) {
      if (error instanceof GraphQLError) return { errors: [withParseFailedCode(error)] };
      if (error instanceof RangeError) return { errors: [unparsableDocumentError()] };
      throw error;
    }
    const errors = validate(schema, document, validationRules);
    return errors.length ? { errors } : { document };
  });

  const authenticate = async (credential: Credential, touch = true): Promise<GraphQLCaller | null> => {
    if (credential.kind === "session") {
      const principal = await services.sessions.authenticate(credential.token, { touch });
      if (!principal) return null;
      return { merchantId: principal.merchant.id, mode: credential.mode, keyId: null, session: principal };
    }
    try {
      return { ...(await services.merchantService.authenticate(credential.apiKey)), session: null };
    } catch (error) {
      if (error instanceof UnauthorizedError) return null;
      throw error;
    }
  };

  /** authenticate(), or the outage (logged once per 30 s) when the database cannot be reached. */
  const authenticateUnlessDown = async (credential: Credential): Promise<GraphQLCaller | null | { unavailable: unknown }> => {
    try {
      return await authenticate(credential);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      warnDatabaseUnavailable(logger, error);
      return { unavailable: error };
    }
  };

  const formatResult = (ctx: SubscriptionContext, id: string, result: ExecutionResult) => {
    if (!result.errors?.length) return undefined;
    return { ...result, errors: result.errors.map((error) => formatError(ctx, id, error)) };
  };

  /** Our own and graphql-js's errors pass; anything else (a bug, the database) is masked and logged. */
  const formatError = (ctx: SubscriptionContext, id: string, error: GraphQLError): GraphQLFormattedError => {
    const original = error.originalError;
    if (!original || original instanceof GraphQLError) return error.toJSON();
    // Its socket is already closing with 1013; this error only reaches a client that is still reading.
    if (original instanceof SlowConsumerError) return subscriberTooSlowError(original.message);
    const { language = "en", connectionId = "" } = ctx.extra;
    const mapped = toGraphQLError(original, language, connectionId);
    if (!(mapped.extensions?.code === "UNAUTHENTICATED" || mapped.extensions?.code === "BAD_USER_INPUT")) {
      log.error({ err: original, connectionId, operationId: id }, "subscription failed");
    }
    return { ...mapped.toJSON(), ...(error.locations ? { locations: error.locations } : {}), ...(error.path ? { path: error.path } : {}) };
  };

  const disposable = useServer<ConnectionParams, ConnectionState>(
    {
      schema,
      // One execution per event and document shared by every subscriber (see shared-execution.ts).
      subscribe: sharedSubscribe,
      connectionInitWaitTimeout: settings.connectionInitWaitTimeoutMs,
      onConnect: async (ctx) => {
        const { apiKey, language, mode } = ctx.connectionParams ?? {};
        const { headers } = ctx.extra.request;
        const cookie = sessionCookieOf(headers, sessionCookieName(services.config));
        let credential: Credential;
        if (apiKey === undefined || apiKey === null || apiKey === "") {
          if (cookie === undefined) {
            // graphql-ws only knows "refused" (4403); a missing key is 4401, as SPEC §6 asks. The later 4403
            // close is ignored: the socket is already closing.
            ctx.extra.socket.close(UNAUTHORIZED_CLOSE.code, UNAUTHORIZED_CLOSE.reason);
            return false;
          }
          if (!isAllowedOrigin(headers, allowedOrigins)) {
            log.warn({ origin: headers.origin }, "websocket refused: session cookie from a foreign origin");
            return false;
          }
          if (mode !== undefined && mode !== null && mode !== "test" && mode !== "live") {
            ctx.extra.socket.close(BAD_MODE_CLOSE.code, BAD_MODE_CLOSE.reason);
            return false;
          }
          credential = { kind: "session", token: cookie, mode: mode === "live" ? "live" : "test" };
        } else {
          if (typeof apiKey !== "string") return false;
          credential = { kind: "apiKey", apiKey };
        }
        const caller = await authenticateUnlessDown(credential);
        if (caller && "unavailable" in caller) {
          // 1013 "try again later": clients reconnect after it, as they would from an HTTP 503.
          ctx.extra.socket.close(TRY_AGAIN_LATER_CLOSE.code, TRY_AGAIN_LATER_CLOSE.reason);
          return false;
        }
        if (!caller) return false;
        const state: ConnectionState = {
          connectionId: randomUUID(),
          credential,
          caller,
          language: negotiateLanguage(typeof language === "string" ? language : ctx.extra.request.headers["accept-language"]),
        };
        // The client may have gone while its key was checked: graphql-ws then already ran onClose.
        if (ctx.extra.socket.readyState !== WebSocket.OPEN) return false;
        const holder = holderOf(caller);
        const held = perKey.get(holder) ?? 0;
        if (held >= settings.maxConnectionsPerKey) {
          log.warn({ holder, limit: settings.maxConnectionsPerKey }, "websocket refused: too many connections for one key");
          ctx.extra.socket.close(TOO_MANY_CONNECTIONS_CLOSE.code, TOO_MANY_CONNECTIONS_CLOSE.reason);
          return false;
        }
        perKey.set(holder, held + 1);
        Object.assign(ctx.extra, state);
        open.add(ctx);
        return true;
      },
      onClose: (ctx) => {
        if (!open.delete(ctx)) return;
        const caller = ctx.extra.caller;
        if (!caller) return;
        const holder = holderOf(caller);
        const left = (perKey.get(holder) ?? 1) - 1;
        if (left > 0) perKey.set(holder, left);
        else perKey.delete(holder);
      },
      onSubscribe: async (ctx, id, payload) => {
        const { credential, language = "en", connectionId = "" } = ctx.extra;
        if (!credential) return [socketUnauthenticatedError("missing", language)];
        // The operation being started is already counted.
        if (Object.keys(ctx.subscriptions).length > settings.maxSubscriptionsPerSocket) {
          return [tooManySubscriptionsError(settings.maxSubscriptionsPerSocket, language)];
        }
        const caller = await authenticateUnlessDown(credential);
        if (caller && "unavailable" in caller) return [serviceUnavailableError(language, caller.unavailable)];
        if (!caller) {
          ctx.extra.socket.close(FORBIDDEN_CLOSE.code, FORBIDDEN_CLOSE.reason);
          return [socketUnauthenticatedError(credential.kind === "session" ? "session" : "invalid", language)];
        }
        const checked = documents.check(payload.query);
        if ("errors" in checked) return checked.errors;
        const { document } = checked;
        const unstorable = unstorableInputError(document, payload.variables, language);
        if (unstorable) return [unstorable];
        const operation = getOperationAST(document, payload.operationName);
        if (!operation) return [unidentifiedOperationError()];
        if (operation.operation !== "subscription") {
          return [subscriptionsOnlyError(language)];
        }
        // The console roles' rules, exactly as over HTTP (role-check.ts).
        const refused = roleRefusal(schema, document, caller, payload.variables);
        if (refused) return [forbiddenError(refused, language)];
        const contextValue = createGraphQLContext(services, caller, language, { requestId: connectionId });
        onSlowSubscriber(contextValue, () => {
          log.warn({ connectionId, operationId: id, merchantId: caller.merchantId }, "dropping a subscriber that cannot keep up");
          ctx.extra.socket.close(SLOW_SUBSCRIBER_CLOSE.code, SLOW_SUBSCRIBER_CLOSE.reason);
        });
        return {
          schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables ?? undefined,
          contextValue,
        };
      },
      onNext: (ctx, id, _payload: SubscribePayload, _args, result) => formatResult(ctx, id, result),
      onError: (ctx, id, _payload, errors) => errors.map((error) => formatError(ctx, id, error)),
    },
    wss,
    settings.keepAliveMs,
  );

  // graphql-ws prints a stack to stderr for any error a socket emits (and answers 1011). Most are what a client sent:
  // a frame over maxPayload, invalid UTF-8, a bad opcode or mask; ws has already closed the socket with the code
  // that says so (1009, 1007, 1002), so they need no more than a debug line. Registered after useServer's own
  // listener, this one replaces its error handler on every socket.
  wss.on("connection", (socket) => {
    // graphql-ws treats a client sending a server's message type (connection_ack, next, error) as its own failure:
    // a stack on stderr and 4500. The protocol calls it a bad request: 4400, closed before graphql-ws reads it.
    const handlers = socket.listeners("message") as ((data: RawData, isBinary: boolean) => void)[];
    socket.removeAllListeners("message");
    socket.on("message", (data: RawData, isBinary: boolean) => {
      const type = serverOnlyMessageType(data);
      if (type !== null) {
        socket.close(BAD_REQUEST_CLOSE, `Unexpected message of type ${type} received`);
        return;
      }
      for (const handler of handlers) handler.call(socket, data, isBinary);
    });
    socket.removeAllListeners("error");
    socket.on("error", (error: Error & { code?: unknown }) => {
      if (typeof error.code === "string" && error.code.startsWith("WS_ERR_")) {
        log.debug({ code: error.code, reason: error.message }, "websocket closed: the client broke the protocol");
        return;
      }
      log.error({ err: error }, "websocket error");
      socket.close(1011, "Internal server error");
    });
  });

  // One line per 30 s, not one per socket, while the database is down.
  const recheckFailed = throttledWarn(log);
  // A revoked key or session loses its sockets too (REST sees a key revocation within the 5 s key cache, and a
  // session's end at once; sockets within this).
  const recheck = setInterval(() => {
    for (const ctx of open) {
      const { credential, socket } = ctx.extra;
      if (!credential) continue;
      // Not a use of the session: an open tab alone must not keep it alive past its idle timeout.
      authenticate(credential, false).then(
        (caller) => {
          if (!caller) socket.close(FORBIDDEN_CLOSE.code, FORBIDDEN_CLOSE.reason);
        },
        (error: unknown) => recheckFailed({ err: error }, "could not re-check websockets' API keys or sessions"),
      );
    }
  }, settings.recheckKeysEveryMs);
  recheck.unref();
  // A session that ended (sign-out, removed user, new password) on any instance closes its sockets at once.
  const stopListening = services.sessionEnds.onEnded((sessionIds) => {
    const ended = new Set(sessionIds);
    for (const ctx of open) {
      const caller = ctx.extra.caller;
      const sessionId = caller?.session?.sessionId;
      const keyMarker = caller?.keyId ? apiKeyEndMarker(caller.keyId) : null;
      if ((sessionId && ended.has(sessionId)) || (keyMarker && ended.has(keyMarker))) {
        ctx.extra.socket.close(FORBIDDEN_CLOSE.code, FORBIDDEN_CLOSE.reason);
      }
    }
  });

  let closing: Promise<void> | null = null;
  return {
    get connections() {
      return open.size;
    },
    close() {
      closing ??= (async () => {
        clearInterval(recheck);
        stopListening();
        // Clients that do not answer the close handshake in time are cut, so shutdown never waits on them.
        const cut = setTimeout(() => {
          for (const socket of wss.clients) socket.terminate();
        }, settings.closeGraceMs);
        try {
          await disposable.dispose(); // 1001 "Going away" to every socket, then waits until all are closed
        } finally {
          clearTimeout(cut);
        }
      })();
      return closing;
    },
  };
}

/** graphql-js's syntax errors with the code Apollo gives them over HTTP. */
function withParseFailedCode(error: GraphQLError): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    extensions: { ...error.extensions, code: "GRAPHQL_PARSE_FAILED" },
  });
}

type CheckedDocument = { document: DocumentNode } | { errors: readonly GraphQLError[] };

/**
 * Parsed and validated documents by query text (least recently used first out). Subscribers of one client
 * application send the same few documents: thousands of subscriptions then share one AST instead of each
 * holding its own, and validation (depth and cost included) runs once per document.
 */
class DocumentCache {
  private readonly entries = new Map<string, CheckedDocument>();

  constructor(
    private readonly compile: (query: string) => CheckedDocument,
    private readonly maxEntries = 200,
    private readonly maxQueryLength = 8 * 1024,
  ) {}

  check(query: string): CheckedDocument {
    const cached = this.entries.get(query);
    if (cached) {
      this.entries.delete(query);
      this.entries.set(query, cached);
      return cached;
    }
    const checked = this.compile(query);
    if (query.length <= this.maxQueryLength) {
      this.entries.set(query, checked);
      if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
    return checked;
  }
}
