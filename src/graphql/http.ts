// Apollo Server requires "crypto" for every request's query hash: resolve built-ins without tsx (see the module).
import "../runtime/builtin-require.ts";
import { ApolloServer, type ApolloServerPlugin, type GraphQLRequestContextWillSendResponse } from "@apollo/server";
import { fastifyApolloHandler } from "@as-integrations/fastify";
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
  ApolloServerPluginSchemaReportingDisabled,
  ApolloServerPluginUsageReportingDisabled,
} from "@apollo/server/plugin/disabled";
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import { GraphQLError, Kind, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from "graphql";
import type { AppServices } from "../app-services.ts";
import type { Config } from "../config.ts";
import { ForbiddenError, UnauthorizedError, ValidationError } from "../domain/errors.ts";
import type { SessionPrincipal } from "../domain/users/session.service.ts";
import { headerValue } from "../http/auth.ts";
import { isAllowedOrigin, requestedMode, sessionCookieName, sessionCookieOf } from "../http/console-session.ts";
import { RateLimitedError } from "../http/error-mapper.ts";
import { createGraphQLContext, type GraphQLCaller, type GraphQLContext } from "./context.ts";
import {
  forbiddenError,
  formatGraphQLError,
  GraphQLErrorCode,
  rateLimitedBody,
  requestErrorResponse,
  subscriptionOverHttpError,
  unauthenticatedError,
  unknownOperationError,
} from "./error-mapper.ts";
import { compiledExecutionGateway } from "./compiled-execution.ts";
import { costLimitRule, depthLimitRule } from "./hardening.ts";
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable, warnDatabaseUnavailable } from "../db/unavailable.ts";
import { documentTooLargeError, MAX_DOCUMENT_LENGTH, parseOptions, unstorableInputError } from "./input-checks.ts";
import { roleRefusal } from "./role-check.ts";
import { documentPolicy, isExplorerRequest, loadTrustedDocuments, resolveTrustedDocument } from "./trusted-documents.ts";
import { CONSOLE_DIST } from "../http/routes/console-page.routes.ts";
import { translate } from "../i18n/messages.ts";
import { join } from "node:path";

declare module "fastify" {
  interface FastifyRequest {
    /** /graphql only: why the X-API-Key was refused, reported once an operation touches data. */
    graphqlAuthError?: UnauthorizedError | null;
    /** /graphql only: the console user of a valid `ocs_session` cookie, and the mode it asked for. */
    graphqlSession?: { principal: SessionPrincipal; mode: "test" | "live" } | null;
  }
}

/** The caller of a /graphql request: its API key, else its console session, else nobody. */
function graphqlCallerOf(request: FastifyRequest): GraphQLCaller | null {
  if (request.caller) return { ...request.caller, session: null };
  const session = request.graphqlSession;
  if (!session) return null;
  return { merchantId: session.principal.merchant.id, mode: session.mode, keyId: null, session: session.principal };
}

export const GRAPHQL_PATH = "/graphql";

/**
 * Apollo Server at POST/GET /graphql on the service's Fastify instance (SPEC §6), with the REST API's key
 * authentication and per-key rate limit.
 *
 * Authentication happens in the request, but refusal in the operation: a request without a valid key still
 * reaches Apollo, and any operation that selects a data field (anything but `__typename` and introspection)
 * is answered 401 with a single `UNAUTHENTICATED` error and no data. That keeps GraphQL-over-HTTP semantics
 * (content negotiation, 400 for bad documents, CSRF and batching refusals) for every client, the audits'
 * key-less requests included, and never runs a resolver without a caller.
 */
export async function graphqlRoutes(
  services: AppServices,
  config: Config,
  logger: Logger,
  schema: GraphQLSchema,
): Promise<FastifyPluginAsync> {
  const apollo = new ApolloServer<GraphQLContext>({
    // The schema, executed by graphql-jit (see compiled-execution.ts).
    gateway: compiledExecutionGateway(schema),
    introspection: !config.production,
    // Field suggestions ("Did you mean …?") would describe the schema to whoever probes it.
    hideSchemaDetailsFromClientErrors: config.production,
    includeStacktraceInErrorResponses: false,
    formatError: formatGraphQLError,
    validationRules: [depthLimitRule(), costLimitRule()],
    // A bounded parse: a document of thousands of nested selections stops at the token limit instead of
    // exhausting the parser's stack (see input-checks.ts; the length is checked before Apollo runs).
    parseOptions,
    // Automatic persisted queries are off (SPEC §14): their cache is shared by every caller, so a hash stored by one
    // merchant's key would run for anyone who sends it. A hash the service does not know, with no document, runs
    // nothing (PERSISTED_QUERY_NOT_SUPPORTED); the console's own hashes are its trusted documents (below).
    persistedQueries: false,
    // Both are Apollo's defaults, stated because tests rely on them: no array bodies, no simple requests.
    allowBatchedHttpRequests: false,
    csrfPrevention: true,
    // The app closes Apollo itself (Fastify onClose), after the HTTP server stopped, before the database.
    stopOnTerminationSignals: false,
    plugins: [
      requestChecks(logger),
      // No Apollo landing page (it loads Apollo's sandbox from a CDN): a browser opening /graphql is sent to the
      // console's own explorer instead (see the route below).
      ApolloServerPluginLandingPageDisabled(),
      // Nothing reports to Apollo's cloud. Cache hints are unused (responses are per merchant and private), and the
      // cache-control plugin Apollo installs by default hooks every field resolution: off, for throughput.
      ApolloServerPluginUsageReportingDisabled(),
      ApolloServerPluginSchemaReportingDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      // Federation tracing (installed by default, active only for subgraphs, still called on every request).
      ApolloServerPluginInlineTraceDisabled(),
    ],
  });
  await apollo.start();

  const handler = fastifyApolloHandler(apollo, {
    context: async (request: FastifyRequest) =>
      createGraphQLContext(services, graphqlCallerOf(request), request.language, {
        authError: request.graphqlAuthError ?? null,
        requestId: request.id,
        idempotencyKey: headerValue(request, "idempotency-key") ?? null,
        address: request.ip,
      }),
  });

  // The console build's hash → document manifest (empty without a build: then sessions can send only documents,
  // and only while CONSOLE_TRUSTED_DOCUMENTS is off).
  const trustedDocuments = loadTrustedDocuments(join(CONSOLE_DIST, "trusted-documents.json"));

  return async (app: FastifyInstance) => {
    app.addHook("onClose", () => apollo.stop());
    app.decorateRequest("graphqlAuthError", null);
    app.decorateRequest("graphqlSession", null);
    // Before the rate limiter (a route-level hook): a valid key makes the limit count per key, like REST (and a
    // valid session per user).
    app.addHook("onRequest", async (request) => {
      const mode = requestedMode(request.headers);
      if (mode === "invalid") throw new ValidationError([{ field: "X-OCS-Mode", key: "field.ocs_mode" }]);
      const key = headerValue(request, "x-api-key");
      // An explicit key wins over a cookie the browser may also send; the key decides the mode.
      const cookie = key === undefined ? sessionCookieOf(request.headers, sessionCookieName(config)) : undefined;
      if (cookie !== undefined) {
        // Another site's page must not use the session (SameSite=Lax already keeps the cookie off its POSTs).
        if (!isAllowedOrigin(request.headers, config.console.allowedOrigins)) throw new ForbiddenError("origin");
        const principal = await services.sessions.authenticate(cookie);
        if (principal) request.graphqlSession = { principal, mode };
        else request.graphqlAuthError = new UnauthorizedError("session");
        return;
      }
      try {
        request.caller = await services.merchantService.authenticate(key);
      } catch (error) {
        if (!(error instanceof UnauthorizedError)) throw error;
        request.graphqlAuthError = error;
      }
    });
    // Browsers (a console session, or nobody yet: the console before sign-in): a document hash becomes the console's
    // document; a session's other documents only while not enforced, or from an admin's API explorer (see
    // trusted-documents.ts). API-key requests are left as they are.
    app.addHook("preHandler", async (request, reply) => {
      if (request.caller) return;
      const session = request.graphqlSession;
      // A session runs GraphQL over POST only (SPEC §14): a GET carries its document and extensions in the URL, where
      // links, logs and the trusted-document check of a body do not belong.
      if (session && request.method === "GET" && !isBrowserPageRequest(request)) {
        return reply
          .code(405)
          .header("allow", "POST")
          .send({ errors: [{ message: translate("error.SESSION_POST_ONLY", request.language), extensions: { code: "METHOD_NOT_ALLOWED" } }] });
      }
      const policy = documentPolicy({
        enforced: config.console.trustedDocuments,
        session: Boolean(session),
        admin: session?.principal.user.role === "admin",
        explorer: isExplorerRequest(request),
      });
      const refused = resolveTrustedDocument(request, trustedDocuments, policy, request.language);
      if (refused) return reply.code(400).send({ errors: [{ message: refused.message, extensions: { code: refused.extensions.code } }] });
    });
    // Errors before Apollo (rate limit, body too large, not JSON, unparsable JSON) in GraphQL's response shape.
    app.setErrorHandler((error, request, reply) => {
      if (error instanceof RateLimitedError) {
        return reply
          .code(429)
          .header("retry-after", String(error.retryAfterSeconds))
          .send(rateLimitedBody(error.retryAfterSeconds, request.language));
      }
      const mapped = requestErrorResponse(error, request.language, request.id);
      if (mapped.unexpected) request.log.error({ err: error }, "unexpected error");
      if (mapped.outage) warnDatabaseUnavailable(logger, error);
      return reply.code(mapped.statusCode).headers(mapped.headers).send(mapped.body);
    });
    app.route({
      method: ["GET", "POST", "OPTIONS"],
      url: GRAPHQL_PATH,
      // Not part of the REST OpenAPI document: GraphQL describes itself (schema.graphql, introspection).
      schema: { hide: true },
      // An oversized document is refused before Apollo parses it.
      preHandler: async (request, reply) => {
        if (isBrowserPageRequest(request)) return reply.redirect(EXPLORER_PATH, 302);
        const length = documentLength(request);
        if (length <= MAX_DOCUMENT_LENGTH) return;
        const error = documentTooLargeError(length);
        return reply.code(400).send({ errors: [{ message: error.message, extensions: { code: error.extensions.code } }] } as never);
      },
      handler,
    });
  };
}

/** Where a browser that opens /graphql is sent: the console's API explorer (GraphiQL, signed in by the session). */
export const EXPLORER_PATH = "/console/explorer";

/**
 * A person's browser opening /graphql (what Apollo's landing page answered): a GET that asks for HTML and carries no
 * operation. A GET with `query` is an API request whatever it accepts.
 */
function isBrowserPageRequest(request: FastifyRequest): boolean {
  if (request.method !== "GET") return false;
  const params = request.query as Record<string, unknown> | undefined;
  if (params && params.query !== undefined) return false;
  return /\btext\/html\b/.test(headerValue(request, "accept") ?? "");
}

/** Characters of the request's `query` (JSON body or GET parameter), 0 when there is none. */
function documentLength(request: FastifyRequest): number {
  const source = request.method === "GET" ? request.query : request.body;
  const query = source && typeof source === "object" ? (source as { query?: unknown }).query : undefined;
  return typeof query === "string" ? query.length : 0;
}

/**
 * Our per-request checks, in one plugin (Apollo calls every plugin on every request):
 *
 * - a field the console user's role may not reach (a viewer's mutation, an agent's keys or settings, see
 *   domain/users/permissions.ts) is refused with 403 `FORBIDDEN`;
 * - an operation that selects any data field needs a valid key or session: without one, the whole request is answered
 *   401 `UNAUTHENTICATED` before execution (no partial data); `{ __typename }` and introspection need none;
 * - bugs reach the log with their cause and the request id; the client only ever sees the masked message.
 */
function requestChecks(logger: Logger): ApolloServerPlugin<GraphQLContext> {
  const listener = {
    async didResolveOperation({
      operation,
      document,
      request,
      contextValue,
      schema,
    }: {
      operation?: OperationDefinitionNode;
      document: DocumentNode;
      request: { variables?: Record<string, unknown>; operationName?: string };
      contextValue: GraphQLContext;
      schema: GraphQLSchema;
    }) {
      // No operation of that name (or none named in a document of several): 400 naming it, never a 500.
      if (!operation) throw unknownOperationError(request.operationName, contextValue.language);
      // Executed over HTTP a subscription would run its resolver once, without an event to resolve.
      if (operation?.operation === "subscription") throw subscriptionOverHttpError(contextValue.language);
      // Console roles (viewers read only; agents the follow-up desk): every field is checked before anything runs.
      const refused = roleRefusal(schema, document, contextValue.caller, request.variables);
      if (refused) throw forbiddenError(refused, contextValue.language);
      if (!contextValue.caller && operation) {
        const touchesData = operation.selectionSet.selections.some(
          (selection) => selection.kind !== Kind.FIELD || !selection.name.value.startsWith("__"),
        );
        if (touchesData) throw unauthenticatedError(contextValue.authError, contextValue.language);
      }
      const unstorable = unstorableInputError(document, request.variables, contextValue.language);
      if (unstorable) throw unstorable;
    },
    async didEncounterErrors({ errors, contextValue }: { errors: readonly GraphQLError[]; contextValue: GraphQLContext }) {
      for (const error of errors) {
        let cause: unknown = error;
        while (cause instanceof GraphQLError && cause.originalError) cause = cause.originalError;
        if (isDatabaseUnavailable(cause)) warnDatabaseUnavailable(logger, cause);
        if (error.extensions?.code === "INTERNAL_SERVER_ERROR" && !(cause instanceof GraphQLError)) {
          logger.error({ err: cause, requestId: contextValue.requestId, path: error.path }, "unexpected GraphQL error");
        }
      }
    },
  };
  return { requestDidStart: async () => ({ ...listener, willSendResponse: answerOutagesWith503 }) };
}

/** Any SERVICE_UNAVAILABLE error makes the whole answer a 503 with Retry-After, like REST's. */
async function answerOutagesWith503({ response }: GraphQLRequestContextWillSendResponse<GraphQLContext>): Promise<void> {
  if (response.body.kind !== "single") return;
  const outage = response.body.singleResult.errors?.find((error) => error.extensions?.code === GraphQLErrorCode.SERVICE_UNAVAILABLE);
  if (!outage) return;
  response.http.status = 503;
  response.http.headers.set("retry-after", String(outage.extensions?.retryAfter ?? DATABASE_RETRY_AFTER_SECONDS));
}
