import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { AppServices } from "../../app-services.ts";
import type { StoreInstallRepository } from "../../domain/stores/store-install.repository.ts";
import { hashSessionToken } from "../../domain/users/session-token.ts";
import { exchangeCode, authorizeUrl, ShopifyTokenError } from "../../providers/shopify/shopify-oauth.ts";
import { isWellFormedWebhookHmac, validShopDomain, verifyQueryHmac, verifyWebhookHmac } from "../../providers/shopify/shopify-signatures.ts";
import type { ShopifyConnector } from "../../providers/shopify/shopify.connector.ts";
import { headerValue } from "../auth.ts";
import { isAllowedOrigin, sessionCookieOf } from "../console-session.ts";

/** Shopify's webhook bodies are small (an order with 100 lines is ~100 KB); 2 MB leaves room, then 413. */
export const SHOPIFY_BODY_LIMIT = 2 * 1024 * 1024;
/** An install has this long between the console's click and Shopify's redirect back. */
const INSTALL_TTL_MS = 10 * 60 * 1000;
/** The webhook topics we subscribe at install (the compliance topics are set in the app's configuration). */
const SUBSCRIBED_TOPICS = ["ORDERS_CREATE", "APP_UNINSTALLED"];

type Problem = { status: number; error: string; message: string };

function refuse(reply: FastifyReply, { status, error, message }: Problem) {
  return reply.code(status).header("cache-control", "no-store").send({ success: false, error, message });
}

/**
 * Shopify (SPEC §13): the install started by a signed-in admin, Shopify's OAuth redirect back, and its webhooks.
 * Public routes (no API key): the install is authorised by the console session, the callback by its `hmac` and
 * the state bound to that session, the webhooks by `X-Shopify-Hmac-Sha256`.
 */
export function shopifyRoutes(services: AppServices, installs: StoreInstallRepository, connector: ShopifyConnector | null): FastifyPluginAsync {
  const { config, sessions, stores, publicUrls } = services;
  const app = config.stores.shopify;
  const configured = Boolean(app.clientId && app.clientSecret && connector);
  const appOptions = () => ({
    clientId: app.clientId ?? "",
    clientSecret: app.clientSecret ?? "",
    shopOrigin: app.shopOrigin,
    scopes: app.scopes,
    timeoutMs: config.stores.timeoutMs,
  });
  const notConfigured: Problem = {
    status: 409,
    error: "STORE_PLATFORM_NOT_CONFIGURED",
    message: "Shopify is not configured on this server (SHOPIFY_CLIENT_ID and SHOPIFY_CLIENT_SECRET)",
  };

  return async (plugin) => {
    // The webhook signature covers the exact bytes: this plugin keeps bodies as Buffers, parsed once verified.
    plugin.removeAllContentTypeParsers();
    plugin.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: SHOPIFY_BODY_LIMIT }, (_request, body, done) => done(null, body));

    plugin.get("/integrations/shopify/install", { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      if (!isAllowedOrigin(request.headers, config.console.allowedOrigins)) {
        return refuse(reply, { status: 403, error: "FORBIDDEN", message: "Start the install from the console" });
      }
      const cookie = sessionCookieOf(request.headers);
      const principal = cookie ? await sessions.authenticate(cookie) : null;
      if (!principal || !cookie) return refuse(reply, { status: 401, error: "UNAUTHORIZED", message: "Sign in to the console first" });
      if (principal.user.role !== "admin") return refuse(reply, { status: 403, error: "FORBIDDEN", message: "Only admins can connect a store" });
      const shop = validShopDomain(query.shop);
      const mode = query.mode === undefined ? "test" : query.mode;
      if (!shop) {
        return refuse(reply, { status: 400, error: "VALIDATION_ERROR", message: "shop must be your store's <name>.myshopify.com domain" });
      }
      if (mode !== "live" && mode !== "test") return refuse(reply, { status: 400, error: "VALIDATION_ERROR", message: "mode must be live or test" });
      if (!configured) return refuse(reply, notConfigured);
      const state = randomBytes(32).toString("hex");
      await installs.create({
        state,
        sessionHash: hashSessionToken(cookie),
        merchantId: principal.merchant.id,
        mode,
        platform: "shopify",
        shop,
        expiresAt: new Date(Date.now() + INSTALL_TTL_MS),
      });
      const redirectUri = publicUrls.to("/integrations/shopify/callback");
      return reply.code(302).header("cache-control", "no-store").header("location", authorizeUrl(appOptions(), shop, redirectUri, state)).send();
    });

    plugin.get("/integrations/shopify/callback", { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
      if (!configured) return refuse(reply, notConfigured);
      const params = new URLSearchParams(request.url.slice(request.url.indexOf("?") + 1));
      if (!request.url.includes("?") || !verifyQueryHmac(params, app.clientSecret ?? "")) {
        request.log.warn("shopify install callback with a missing or bad hmac");
        return refuse(reply, { status: 401, error: "UNAUTHORIZED", message: "Invalid hmac" });
      }
      const shop = validShopDomain(params.get("shop"));
      const state = params.get("state") ?? "";
      const code = params.get("code") ?? "";
      if (!shop || !code || !/^[0-9a-f]{64}$/.test(state)) {
        return refuse(reply, { status: 400, error: "VALIDATION_ERROR", message: "shop, code and state are required" });
      }
      // Single use: taken (deleted) whatever happens next.
      const install = await installs.take(state);
      const cookie = sessionCookieOf(request.headers);
      if (!install || install.expiresAt.getTime() < Date.now() || !cookie || !sameHash(install.sessionHash, hashSessionToken(cookie)) || install.shop !== shop) {
        return refuse(reply, { status: 403, error: "FORBIDDEN", message: "This install was not started from your console session, or it expired: start it again" });
      }
      const principal = await sessions.authenticate(cookie);
      if (!principal || principal.user.role !== "admin" || principal.merchant.id !== install.merchantId) {
        return refuse(reply, { status: 403, error: "FORBIDDEN", message: "Only the admin who started the install can finish it" });
      }
      const scope = { merchantId: install.merchantId, mode: install.mode };
      // Checked before the code is exchanged, so a refused install leaves the shop's tokens alone.
      const owner = await stores.ownerOfShop("shopify", shop);
      if (owner && (owner.merchantId !== scope.merchantId || owner.mode !== scope.mode)) {
        return refuse(reply, { status: 409, error: "STORE_ALREADY_CONNECTED", message: "This shop is connected to another account or mode: disconnect it there first" });
      }
      let credentials;
      try {
        credentials = await exchangeCode(appOptions(), shop, code);
      } catch (error) {
        request.log.warn({ err: error, shop }, "shopify code exchange failed");
        if (error instanceof ShopifyTokenError && error.retriable) {
          return reply.code(503).header("retry-after", "5").send({ success: false, error: "STORE_UNAVAILABLE", message: "Shopify did not answer: try the install again" });
        }
        return refuse(reply, { status: 400, error: "STORE_REFUSED", message: "Shopify refused the authorization code: start the install again" });
      }
      const connection = await stores.connect(scope, "shopify", shop, credentials, { kind: "USER", id: principal.user.id });
      if (!connection) {
        return refuse(reply, { status: 409, error: "STORE_ALREADY_CONNECTED", message: "This shop is connected to another account or mode: disconnect it there first" });
      }
      const callback = publicUrls.to("/webhooks/shopify");
      for (const topic of SUBSCRIBED_TOPICS) {
        const result = await connector!.subscribe(shop, credentials.accessToken, topic, callback);
        if (result.kind !== "done") {
          request.log.warn({ shop, topic, result: result.kind }, "shopify webhook subscription failed");
          await stores.activity(connection.id, "error", null, null, { step: `subscribe ${topic}`, error: "error" in result ? result.error : "failed" });
        }
      }
      return reply.code(302).header("cache-control", "no-store").header("location", `/console/stores?connected=${connection.id}`).send();
    });

    plugin.post(
      "/webhooks/shopify",
      {
        config: { public: true },
        schema: { hide: true },
        bodyLimit: SHOPIFY_BODY_LIMIT,
        // Refused before the body is read when the signature header is missing or malformed (SPEC §14).
        onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
          if (!isWellFormedWebhookHmac(headerValue(request, "x-shopify-hmac-sha256"))) {
            return refuse(reply, { status: 401, error: "UNAUTHORIZED", message: "Invalid signature" });
          }
        },
      },
      async (request, reply) => {
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        if (!app.clientSecret || !verifyWebhookHmac(raw, headerValue(request, "x-shopify-hmac-sha256"), app.clientSecret)) {
          request.log.warn({ configured: Boolean(app.clientSecret) }, "shopify webhook with a bad signature");
          return refuse(reply, { status: 401, error: "UNAUTHORIZED", message: "Invalid signature" });
        }
        const topic = (headerValue(request, "x-shopify-topic") ?? "").trim().toLowerCase().slice(0, 100);
        const shop = validShopDomain(headerValue(request, "x-shopify-shop-domain"));
        // Verified but unusable (no topic or shop): nothing to do, and a retry would not change that.
        if (!topic || !shop) return reply.code(200).send();
        const webhookId =
          (headerValue(request, "x-shopify-webhook-id") ?? headerValue(request, "x-shopify-event-id") ?? "").trim().slice(0, 255) ||
          `sha256:${createHash("sha256").update(raw).digest("hex")}`;
        const fresh = await stores.receive("shopify", webhookId, topic, shop, raw.toString("utf8"));
        // Processed after this answer (Shopify gives up on webhooks slower than 5 s).
        if (fresh) services.storeIntake.wake();
        return reply.code(200).send();
      },
    );
  };
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
