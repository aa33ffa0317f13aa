import { readFile } from "node:fs/promises";
import type { FastifyPluginAsync } from "fastify";

/**
 * SPEC §5.4: the `/simulator` page, a simulated phone in the browser for test mode. Static files with no build
 * step; the page holds no data of its own: it asks the operator for a test-mode API key (kept in
 * sessionStorage) and does everything through /api/v1 with it, so it only ever shows that merchant's orders.
 */
const ASSETS = {
  "/simulator": { file: "index.html", type: "text/html; charset=utf-8" },
  "/simulator/simulator.js": { file: "simulator.js", type: "text/javascript; charset=utf-8" },
  "/simulator/simulator.css": { file: "simulator.css", type: "text/css; charset=utf-8" },
} as const;

// The page handles an API key: no inline or third-party script may run in it, and no other site may frame it.
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export function simulatorPageRoutes(): FastifyPluginAsync {
  return async (app) => {
    const directory = new URL("../simulator-page/", import.meta.url);
    for (const [path, asset] of Object.entries(ASSETS)) {
      const body = await readFile(new URL(asset.file, directory));
      app.get(path, { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
        reply
          .header("content-type", asset.type)
          .header("cache-control", "no-cache")
          .header("content-security-policy", CONTENT_SECURITY_POLICY)
          .header("referrer-policy", "no-referrer")
          .header("x-content-type-options", "nosniff")
          .send(body),
      );
    }
  };
}
