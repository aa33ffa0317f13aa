import type { FastifyReply, FastifyRequest } from "fastify";
import type { PublicUrls } from "../domain/public-urls.ts";

/** One year: what HSTS preload lists ask for; the service is only ever reached over https once it says so. */
const HSTS = "max-age=31536000";

/**
 * Headers every response carries (SPEC §14), set before any handler runs so that errors carry them too:
 *
 * - `X-Content-Type-Options: nosniff` everywhere (a JSON error must never be sniffed into HTML);
 * - `Cache-Control: no-store` on /api and /graphql: answers are per merchant, and some carry secrets (a new key, an
 *   endpoint's signing secret) that no proxy or browser cache may keep;
 * - `Strict-Transport-Security` when PUBLIC_BASE_URL is https (behind a TLS proxy the request itself may be http).
 *
 * /docs gets its CSP (with `frame-ancestors 'none'`) from swagger-ui's own hook: see docsContentSecurityPolicy.
 */
export function securityHeaders(publicUrls: PublicUrls) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header("x-content-type-options", "nosniff");
    const path = request.url;
    if (isApiPath(path)) reply.header("cache-control", "no-store");
    if (publicUrls.isHttps()) reply.header("strict-transport-security", HSTS);
  };
}

function isApiPath(path: string): boolean {
  return /^\/(api|graphql)(?:[/?#]|$)/.test(path);
}

/**
 * swagger-ui's CSP (hashes of its inline script) with framing refused: /docs must not be framed by
 * another site (clickjacking of a page that holds a pasted API key). `upgrade-insecure-requests` only when the
 * service is https, so that http://localhost keeps working.
 */
export function docsContentSecurityPolicy(header: string | number | string[], https: boolean): string {
  const policy = String(header)
    .replace(/frame-ancestors [^;]*;/, "frame-ancestors 'none';")
    // swagger-ui sets style attributes at run time (hashes cannot cover those, and a hash would void
    // 'unsafe-inline'); scripts stay limited to its own files and hashed inline code.
    .replace(/style-src [^;]*;/, "style-src 'self' 'unsafe-inline';")
    .replace(/\s*upgrade-insecure-requests;?/, "");
  return https ? `${policy.trim()} upgrade-insecure-requests;` : policy.trim();
}
