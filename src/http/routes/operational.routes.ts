import type { FastifyPluginAsync } from "fastify";
import type { AppServices } from "../../app-services.ts";
import { withoutUnusedSchemas } from "../openapi.ts";
import { createHash, timingSafeEqual } from "node:crypto";
import { UnauthorizedError } from "../../domain/errors.ts";

const publicRoute = { public: true } as const;
const READINESS_TIMEOUT_MS = 3_000;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export function operationalRoutes(services: AppServices): FastifyPluginAsync {
  return async (app) => {
    app.get("/healthz", { config: publicRoute, schema: { tags: ["operations"], security: [] } }, async () => ({ status: "ok" }));

    app.get("/readyz", { config: publicRoute, schema: { tags: ["operations"], security: [] } }, async (_request, reply) => {
      try {
        await withTimeout(services.database.prisma.$queryRaw`SELECT 1`, READINESS_TIMEOUT_MS);
        return { status: "ready", database: "ok" };
      } catch {
        return reply.code(503).send({ status: "unavailable", database: "unreachable" });
      }
    });

    const token = services.config.metricsToken ? createHash("sha256").update(services.config.metricsToken).digest() : null;
    app.get("/metrics", { config: publicRoute, schema: { tags: ["operations"], security: [] } }, async (request, reply) => {
      // METRICS_TOKEN set: only a scraper that sends it sees the figures (compared in constant time).
      if (token) {
        const sent = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? "")?.[1]?.trim() ?? "";
        if (!timingSafeEqual(createHash("sha256").update(sent).digest(), token)) {
          reply.header("www-authenticate", 'Bearer realm="metrics"');
          throw new UnauthorizedError("metrics_token");
        }
      }
      reply.header("content-type", services.metrics.registry.contentType);
      return services.metrics.registry.metrics();
    });

    app.get("/api/v1/openapi.json", { config: publicRoute, schema: { hide: true } }, async () => withoutUnusedSchemas(app.swagger()));
  };
}
