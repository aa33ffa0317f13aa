import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";

/**
 * The merchant console at `/console`: a single-page app built from `console/` by `vite build` (run by the
 * postinstall script) into `console/dist`. The server only serves those files; it never imports console code.
 * Everything is read into memory at start-up (about 7.5 MB, most of it the API explorer's editor), so serving is a
 * map lookup.
 *
 * - `/console/assets/*` are content-hashed by Vite: cached for a year and immutable.
 * - `/console` and every other `/console/*` path answer index.html (client-side routing), never cached, so a new
 *   build is picked up on the next load.
 */
export const CONSOLE_DIST = fileURLToPath(new URL("../../../console/dist/", import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
  ".json": "application/json; charset=utf-8",
};

/**
 * The console signs in with a session cookie and shows secrets once: no inline or third-party script may run,
 * no other site may frame it, and it talks only to this origin (HTTP and the same-origin websocket, named
 * explicitly because older browsers do not let 'self' cover ws:/wss:).
 *
 * The API explorer's page (`/console/explorer`) differs in two directives, for GraphiQL's editor (Monaco) only:
 * - `style-src 'self' 'unsafe-inline'`: Monaco writes its theme and layout rules into `<style>` elements it creates
 *   at run time and has no nonce option (monaco-editor issue #271); styles only, scripts stay 'self';
 * - `worker-src 'self'`: its language workers are files of the build (bundled by Vite), never blob: URLs.
 * The console loads the explorer with a full page load and leaves it the same way, so no other page runs under
 * this policy.
 */
export function consoleContentSecurityPolicy(host: string | undefined, page: "app" | "explorer" = "app"): string {
  const sameOriginSockets = host && /^[A-Za-z0-9.:[\]-]+$/.test(host) ? ` ws://${host} wss://${host}` : "";
  return [
    "default-src 'none'",
    "script-src 'self'",
    page === "explorer" ? "style-src 'self' 'unsafe-inline'" : "style-src 'self'",
    ...(page === "explorer" ? ["worker-src 'self'"] : []),
    `connect-src 'self'${sameOriginSockets}`,
    "img-src 'self' data:",
    "font-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** `/console/explorer`, with or without a query string or a trailing path. */
function isExplorerPage(url: string): boolean {
  return /^\/console\/explorer(?:[/?#]|$)/.test(url);
}

interface Asset {
  body: Buffer;
  type: string;
}

async function readBuild(directory: string): Promise<Map<string, Asset>> {
  const assets = new Map<string, Asset>();
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const urlPath = relative(directory, path).split(sep).join("/");
    assets.set(urlPath, { body: await readFile(path), type: CONTENT_TYPES[extname(path)] ?? "application/octet-stream" });
  }
  return assets;
}

export function consolePageRoutes(directory: string = CONSOLE_DIST): FastifyPluginAsync {
  return async (app) => {
    // A checkout without the build (e.g. `npm install --ignore-scripts`) still serves the API; /console says why.
    const assets = existsSync(join(directory, "index.html")) ? await readBuild(directory) : null;
    const options = { config: { public: true }, schema: { hide: true } } as const;

    const securityHeaders = (request: FastifyRequest, reply: FastifyReply, page: "app" | "explorer" = "app") =>
      reply
        .header("content-security-policy", consoleContentSecurityPolicy(request.headers.host, page))
        .header("referrer-policy", "no-referrer")
        .header("x-content-type-options", "nosniff")
        .header("x-frame-options", "DENY");

    const sendIndex = async (request: FastifyRequest, reply: FastifyReply) => {
      const index = assets?.get("index.html");
      if (!index) {
        return reply
          .code(503)
          .header("retry-after", "60")
          .type("text/plain; charset=utf-8")
          .send("The console is not built: run `npm run build:console` (npm install does it), then restart.\n");
      }
      return securityHeaders(request, reply, isExplorerPage(request.url) ? "explorer" : "app")
        .header("cache-control", "no-cache")
        .type(index.type)
        .send(index.body);
    };

    app.get("/console", options, sendIndex);
    app.get("/console/*", options, async (request, reply) => {
      const path = (request.params as { "*": string })["*"];
      if (path.startsWith("assets/")) {
        const asset = assets?.get(path);
        if (!asset) return reply.callNotFound();
        return securityHeaders(request, reply)
          .header("cache-control", "public, max-age=31536000, immutable")
          .type(asset.type)
          .send(asset.body);
      }
      return sendIndex(request, reply);
    });
  };
}
