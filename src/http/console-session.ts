import type { IncomingHttpHeaders } from "node:http";
import type { Config } from "../config.ts";

/**
 * The browser side of console sessions (SPEC §10): the `ocs_session` cookie and the Origin rule that keeps other
 * sites from using it. Shared by the sign-in routes, GraphQL over HTTP and the GraphQL websocket.
 */
export const SESSION_COOKIE = "ocs_session";
/**
 * The name when the cookie is Secure (SPEC §14): browsers accept a `__Host-` cookie only from a secure origin,
 * with Path=/ and no Domain, so a sibling subdomain cannot plant (toss) one that this host would take for its own.
 */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

/** `__Host-ocs_session`, or `ocs_session` with COOKIE_SECURE=false (plain http on a development machine). */
export function sessionCookieName(config: Pick<Config, "console">): string {
  return config.console.cookieSecure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** The value of the session cookie `name` in a Cookie header, or undefined (a cookie of the other name is ignored). */
export function sessionCookieOf(headers: IncomingHttpHeaders, name: string = SESSION_COOKIE): string | undefined {
  const header = headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const separator = part.indexOf("=");
    if (separator < 0) continue;
    if (part.slice(0, separator).trim() !== name) continue;
    return part.slice(separator + 1).trim().replace(/^"(.*)"$/, "$1");
  }
  return undefined;
}

/** Set-Cookie for a new session: lives until the session's absolute expiry; Secure unless COOKIE_SECURE=false. */
export function sessionCookie(token: string, config: Config): string {
  const maxAge = Math.floor(config.console.sessionMaxAgeMs / 1000);
  return [`${sessionCookieName(config)}=${token}`, "HttpOnly", "SameSite=Lax", "Path=/", `Max-Age=${maxAge}`, ...(config.console.cookieSecure ? ["Secure"] : [])].join("; ");
}

/** Set-Cookie that makes the browser forget the session cookie. */
export function clearedSessionCookie(config: Config): string {
  return [`${sessionCookieName(config)}=`, "HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=0", ...(config.console.cookieSecure ? ["Secure"] : [])].join("; ");
}

/**
 * Whether a request may use (or obtain) a console session, judged by where the browser says it comes from:
 *
 * - no Origin header: not a cross-site browser request (curl, scripts; browsers send Origin on every POST,
 *   DELETE and websocket), unless Sec-Fetch-Site says cross-site;
 * - an Origin whose host (and port) is the request's Host: the server's own pages, whatever the scheme (a TLS
 *   proxy in front makes the browser's scheme differ from ours);
 * - an Origin listed in CONSOLE_ORIGINS (exact scheme, host and port).
 *
 * Everything else (another site, `null` from sandboxed frames or files) is refused.
 */
export function isAllowedOrigin(headers: IncomingHttpHeaders, allowedOrigins: readonly string[]): boolean {
  const origin = first(headers.origin);
  if (origin === undefined) return first(headers["sec-fetch-site"]) !== "cross-site";
  const normalised = origin.trim().toLowerCase();
  if (allowedOrigins.includes(normalised)) return true;
  const host = first(headers.host)?.trim().toLowerCase();
  if (!host || !URL.canParse(normalised)) return false;
  const parsed = new URL(normalised);
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return false;
  return parsed.host === host || withoutDefaultPort(host, parsed.protocol) === parsed.host;
}

function withoutDefaultPort(host: string, protocol: string): string {
  const port = protocol === "https:" ? ":443" : ":80";
  return host.endsWith(port) ? host.slice(0, -port.length) : host;
}

/** The `X-OCS-Mode` header: absent means test; anything but test or live is refused. */
export function requestedMode(headers: IncomingHttpHeaders): "test" | "live" | "invalid" {
  const value = first(headers["x-ocs-mode"]);
  if (value === undefined) return "test";
  const mode = value.trim().toLowerCase();
  return mode === "test" || mode === "live" ? mode : "invalid";
}
