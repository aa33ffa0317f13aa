import type { FastifyPluginAsync } from "fastify";
import type { AppServices } from "../../app.ts";
import { withoutUnusedSchemas } from "../openapi.ts";

const publicRoute = { public: true } as const;

export function operationalRoutes(services: AppServices): FastifyPluginAsync {
  return async (app) => {
    app.get("/healthz", { config: publicRoute, schema: { tags: ["operations"], security: [] } }, async () => ({ status: "ok" }));

    app.get("/readyz", { config: publicRoute, schema: { tags: ["operations"], security: [] } }, async (_request, reply) => {
      try {
        await services.database.prisma.$queryRaw`SELECT 1`;
        return { status: "ready", database: "ok" };
      } catch {
        return reply.code(503).send({ status: "unavailable", database: "unreachable" });
      }
    });

    app.get("/metrics", { config: publicRoute, schema: { tags: ["operations"], security: [] } }, async (_request, reply) => {
      reply.header("content-type", services.metrics.registry.contentType);
      return services.metrics.registry.metrics();
    });

    app.get("/api/v1/openapi.json", { config: publicRoute, schema: { hide: true } }, async () => withoutUnusedSchemas(app.swagger()));
  };
}
