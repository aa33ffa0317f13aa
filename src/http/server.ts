import { conversationRoutes } from "./routes/conversation.routes.ts";
import Fastify, { LogController, type FastifyInstance, type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from "fastify";
import rateLimit from "@fastify/rate-limit";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { jsonSchemaTransform, jsonSchemaTransformObject, type ZodTypeProvider } from "fastify-type-provider-zod";
import type { Logger } from "pino";
import { randomUUID } from "node:crypto";
import type { Config } from "../config.ts";
import type { AppServices } from "../app-services.ts";
import type { Language } from "../i18n/messages.ts";
import { docsContentSecurityPolicy, securityHeaders } from "./security-headers.ts";
import { identifyCaller, rejectUnauthenticated } from "./auth.ts";
import { mapErrorToHttp, RateLimitedError, RouteNotFoundError } from "./error-mapper.ts";
import { NotFoundError } from "../domain/errors.ts";
import { warnDatabaseUnavailable } from "../db/unavailable.ts";
import { requestLanguage } from "./language.ts";
import { jsonSerializerCompiler, zodValidatorCompiler } from "./validation.ts";
import { withoutUnusedSchemas } from "./openapi.ts";
import { trackInFlight, type InFlight } from "./in-flight.ts";
import { confirmationPolicyRoutes } from "./routes/confirmation-policy.routes.ts";
import { orderRoutes } from "./routes/orders.routes.ts";
import { simulatorTestRoutes } from "./routes/simulator-test.routes.ts";
import { simulatorPageRoutes } from "./routes/simulator-page.routes.ts";
import { consolePageRoutes } from "./routes/console-page.routes.ts";
import { operationalRoutes } from "./routes/operational.routes.ts";
import { whatsappWebhookRoutes } from "./routes/whatsapp-webhook.routes.ts";
import type { GraphQLSchema } from "graphql";
import { GRAPHQL_PATH, graphqlRoutes } from "../graphql/http.ts";
import { refuseUnstorableInput } from "./input-guard.ts";
import { limitConnectionsPerAddress } from "./connection-limits.ts";
import { webhookEndpointRoutes } from "./routes/webhook-endpoints.routes.ts";
import { webhookDeliveryRoutes } from "./routes/webhook-deliveries.routes.ts";
import { sessionRoutes } from "./routes/session.routes.ts";
import { statsRoutes } from "./routes/stats.routes.ts";
import { confirmationLinkRoutes, confirmationPageRoutes } from "./routes/confirmation-page.routes.ts";
import { twilioWebhookRoutes } from "./routes/twilio-webhook.routes.ts";
import { smsTestRoutes } from "./routes/sms-test.routes.ts";
import { followUpRoutes } from "./routes/follow-up.routes.ts";

declare module "fastify" {
  interface FastifyRequest {
    language: Language;
  }
  interface FastifyInstance {
    inFlight: InFlight;
  }
}

export const BODY_LIMIT = 1024 * 1024;
const INCOMING_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export type App = FastifyInstance<any, any, any, Logger, ZodTypeProvider>;

export async function buildHttpServer(
  services: AppServices,
  config: Config,
  logger: Logger,
  /** The executable GraphQL schema, shared with the websocket server (built once). */
  graphqlSchema: GraphQLSchema,
  /** Routes of the store connectors (`/integrations/…`, `/webhooks/<store>`), built with their repositories. */
  storeRoutes: FastifyPluginAsync[] = [],
): Promise<App> {
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: BODY_LIMIT,
    // A client must send its headers within HTTP_HEADERS_TIMEOUT and its whole request within
    // HTTP_REQUEST_TIMEOUT (Node answers 408 and closes); idle keep-alive connections close after
    // HTTP_KEEP_ALIVE_TIMEOUT. Node checks the first two every connectionsCheckingInterval.
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    http: {
      headersTimeout: config.http.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, config.http.headersTimeoutMs),
    },
    // Per-request access logs only at debug: metrics cover traffic, and logging every call costs throughput.
    logController: new LogController({ disableRequestLogging: !["debug", "trace"].includes(config.logLevel) }),
    // A caller's own request id is kept (for tracing across systems) when it looks like one.
    genReqId: (request) => {
      const incoming = request.headers["x-request-id"];
      return typeof incoming === "string" && INCOMING_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    // Only the proxies TRUST_PROXY names (a hop count or their addresses): otherwise any client could pick its
    // rate-limit, sign-in throttle and audit address with X-Forwarded-For (SPEC §14).
    trustProxy: trustedProxies(config.http.trustProxy),
    // The router refuses over-long or badly percent-encoded path segments before any hook runs; an `{id}`
    // like that is malformed, which SPEC §3 answers as 404 NOT_FOUND in the usual error body.
    frameworkErrors: (error, request, reply) => {
      const language = requestLanguage(request);
      const orderPath = /^\/api\/v1\/(test\/)?orders\//.test(request.url);
      const notFound = orderPath ? new NotFoundError("order") : new RouteNotFoundError();
      const mapped = mapErrorToHttp(error.code === "FST_ERR_ASYNC_CONSTRAINT" ? error : notFound, language, request.id);
      if (mapped.unexpected) request.log.error({ err: error }, "unexpected error");
      (reply as unknown as FastifyReply)
        .code(mapped.statusCode)
        .headers({ "x-request-id": request.id, "content-language": language, ...mapped.headers })
        .send(mapped.body);
    },
  }).withTypeProvider<ZodTypeProvider>() as unknown as App;

  limitConnectionsPerAddress(app.server, config.http.maxConnectionsPerAddress);
  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(jsonSerializerCompiler);
  // Only JSON bodies are accepted: anything else is a 415, never a string that fails validation.
  app.removeContentTypeParser("text/plain");
  // Many clients send Content-Type: application/json on every request, DELETE included: an empty body is
  // "no body" (routes with a body schema still answer that it is required), not a JSON syntax error.
  const strictJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    if (typeof body === "string" && body.trim() === "") return done(null, undefined);
    strictJson(request, body as string, done);
  });
  app.decorateRequest("caller", null);
  app.decorateRequest("authError", null);
  app.decorateRequest("language", "en");

  app.decorate("inFlight", trackInFlight(app));
  app.addHook("onRequest", async (request, reply) => {
    request.language = requestLanguage(request);
    reply.header("x-request-id", request.id);
    reply.header("content-language", request.language);
  });
  app.addHook("onRequest", securityHeaders(services.publicUrls));
  app.addHook("onResponse", async (request, reply) => {
    services.metrics.httpDuration
      .labels(request.method, request.routeOptions.url ?? "unmatched", String(reply.statusCode))
      .observe(reply.elapsedTime / 1000);
  });

  app.setErrorHandler((error, request, reply) => {
    const mapped = mapErrorToHttp(error, request.language ?? "en", request.id);
    if (mapped.unexpected) request.log.error({ err: error }, "unexpected error");
    if (mapped.outage) warnDatabaseUnavailable(logger, error);
    reply.code(mapped.statusCode).headers(mapped.headers ?? {}).send(mapped.body);
  });
  app.setNotFoundHandler((request, reply) => {
    const mapped = mapErrorToHttp(new RouteNotFoundError(), request.language ?? "en", request.id);
    reply.code(mapped.statusCode).send(mapped.body);
  });

  app.addHook("onRequest", identifyCaller(services.merchantService));
  await app.register(rateLimit, {
    global: true,
    max: config.rateLimit.max,
    timeWindow: config.rateLimit.windowMs,
    ...(services.redis ? { redis: services.redis, nameSpace: "ocs-rate-limit:" } : {}),
    keyGenerator: rateLimitKey,
    // A Redis outage must not take the API down with it: requests pass uncounted meanwhile.
    skipOnError: true,
    allowList: (request) => Boolean(request.routeOptions.config?.public),
    errorResponseBuilder: (_request, context) => new RateLimitedError(Math.max(1, Math.ceil(context.ttl / 1000))),
  });

  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Order Confirmation Service",
        version: "1.0.0",
        description:
          "Create orders, send the customer a WhatsApp confirmation with Approve / Cancel buttons, and follow the answer. " +
          "Errors use { success: false, message, error: CODE }; messages are localised with Accept-Language (en, ar).",
      },
      components: { securitySchemes: { ApiKey: { type: "apiKey", in: "header", name: "X-API-Key" } } },
      security: [{ ApiKey: [] }],
      tags: [
        { name: "orders", description: "Orders and their confirmation" },
        { name: "stats", description: "Figures of the caller's orders for dashboards" },
        { name: "console session", description: "Browser sign-in for the console (cookie sessions; no API key)" },
        { name: "webhook deliveries", description: "The log of webhook deliveries and their attempts; manual redelivery" },
        { name: "test mode", description: "Drive the simulated customer (test-mode keys only)" },
        { name: "operations", description: "Health, readiness and metrics" },
      ],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  // swagger-ui's own routes are public documentation.
  app.addHook("onRoute", (route) => {
    if (route.url.startsWith("/docs")) route.config = { ...(route.config ?? {}), public: true };
  });
  // Before the body is parsed or validated (but after the rate limiter's onRequest hook): a caller without a
  // valid key gets 401, never validation details about a body we should not have read.
  app.addHook("preParsing", rejectUnauthenticated);
  app.addHook("preValidation", refuseUnstorableInput((url) => url === GRAPHQL_PATH));
  await app.register(swaggerUi, {
    routePrefix: "/docs",
    uiConfig: { docExpansion: "list", deepLinking: true },
    staticCSP: true,
    transformStaticCSP: (header) => docsContentSecurityPolicy(header, services.publicUrls.isHttps()),
    transformSpecification: (document) => withoutUnusedSchemas(document),
  });

  await app.register(operationalRoutes(services));
  await app.register(orderRoutes(services), { prefix: "/api/v1" });
  await app.register(conversationRoutes(services), { prefix: "/api/v1" });
  await app.register(webhookEndpointRoutes(services), { prefix: "/api/v1" });
  await app.register(confirmationPolicyRoutes(services), { prefix: "/api/v1" });
  await app.register(webhookDeliveryRoutes(services), { prefix: "/api/v1" });
  await app.register(sessionRoutes(services), { prefix: "/api/v1" });
  await app.register(statsRoutes(services), { prefix: "/api/v1" });
  await app.register(confirmationLinkRoutes(services), { prefix: "/api/v1" });
  await app.register(followUpRoutes(services), { prefix: "/api/v1" });
  await app.register(simulatorTestRoutes(services), { prefix: "/api/v1/test" });
  await app.register(smsTestRoutes(services), { prefix: "/api/v1/test" });
  await app.register(simulatorPageRoutes());
  await app.register(consolePageRoutes());
  await app.register(whatsappWebhookRoutes(services));
  for (const routes of storeRoutes) await app.register(routes);
  await app.register(confirmationPageRoutes(services));
  await app.register(twilioWebhookRoutes(services));
  // GraphQL (SPEC §6): Apollo at /graphql, closed by app.close() through Fastify's onClose.
  await app.register(await graphqlRoutes(services, config, logger, graphqlSchema));
  return app;
}

/** Limits are per API key (or console user on /graphql); requests without either count against their address. */
function rateLimitKey(request: FastifyRequest): string {
  if (request.caller) return `key:${request.caller.keyId}`;
  if (request.graphqlSession) return `user:${request.graphqlSession.principal.user.id}`;
  return `ip:${request.ip}`;
}

/** TRUST_PROXY as Fastify takes it: a hop count becomes "the nearest n addresses are proxies" (proxy-addr's index). */
function trustedProxies(setting: false | number | string[]): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== "number") return setting;
  return setting === 0 ? false : (_address: string, hop: number) => hop < setting;
}
