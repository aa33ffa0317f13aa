import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { AppServices } from "../../app-services.ts";
import { ForbiddenError } from "../../domain/errors.ts";
import { clearedSessionCookie, isAllowedOrigin, sessionCookie, sessionCookieName, sessionCookieOf } from "../console-session.ts";
import { errorSchema, validationErrorSchema } from "../schemas.ts";

const signInBody = z
  .object({
    email: z.string().min(1).max(320).meta({ description: "The console user's e-mail (any case)" }),
    password: z.string().min(1).max(1024),
  })
  .meta({ id: "SignInRequest" });

const signedInSchema = z
  .object({
    user: z.object({ id: z.string(), email: z.string(), role: z.enum(["admin", "viewer", "agent"]) }),
    merchant: z.object({ id: z.string(), name: z.string() }),
  })
  .meta({ id: "SignedIn" });

const tags = ["console session"];
// Sign-in is throttled by its own rules (per e-mail and address), not by the per-key limiter.
const config = { public: true } as const;

/**
 * Console sign-in and sign-out (SPEC §10): the only REST routes that need no API key and the only ones that
 * deal in cookies. Browser requests from another site are refused before anything else (a cross-site sign-in
 * would sign the victim into the attacker's account: login CSRF).
 */
export function sessionRoutes(services: AppServices): FastifyPluginAsync {
  const { sessions, config: appConfig } = services;
  const refuseForeignOrigin = async (request: FastifyRequest) => {
    if (!isAllowedOrigin(request.headers, appConfig.console.allowedOrigins)) throw new ForbiddenError("origin");
  };

  return async (plain) => {
    const app = plain.withTypeProvider<ZodTypeProvider>();

    app.post(
      "/session",
      {
        config,
        onRequest: refuseForeignOrigin,
        schema: {
          tags,
          security: [],
          summary: "Sign in to the console: sets the HttpOnly ocs_session cookie",
          description:
            "A wrong e-mail and a wrong password get the same 401. Attempts are throttled per e-mail and per address (429 with Retry-After). " +
            "Browser requests must come from the server's own origin or one of CONSOLE_ORIGINS.",
          body: signInBody,
          response: { 200: signedInSchema, 400: validationErrorSchema, 401: errorSchema, 403: errorSchema, 415: errorSchema, 429: errorSchema, 500: errorSchema },
        },
      },
      async (request, reply) => {
        const signedIn = await sessions.signIn(request.body.email, request.body.password, request.ip);
        const { user, merchant } = signedIn.principal;
        return reply
          .header("set-cookie", sessionCookie(signedIn.token, appConfig))
          .header("cache-control", "no-store")
          .send({ user, merchant });
      },
    );

    app.delete(
      "/session",
      {
        config,
        onRequest: refuseForeignOrigin,
        schema: {
          tags,
          security: [],
          summary: "Sign out: ends the session of the ocs_session cookie and clears the cookie (204 even without one)",
          response: { 204: z.null().meta({ description: "Signed out" }), 403: errorSchema, 500: errorSchema },
        },
      },
      async (request, reply) => {
        await sessions.signOut(sessionCookieOf(request.headers, sessionCookieName(appConfig)));
        return reply.code(204).header("set-cookie", clearedSessionCookie(appConfig)).send(null);
      },
    );
  };
}
