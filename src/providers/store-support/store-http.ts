import http from "node:http";
import https from "node:https";
import { blockedLiteralHost, guardedLookup, type UrlGuardOptions } from "../../domain/webhooks/url-guard.ts";
import { parseRetryAfter } from "../../domain/webhooks/webhook-retry-policy.ts";
import { packageVersion } from "../../version.ts";

/**
 * One HTTP exchange with a store's API, reduced to what the connectors need: the status, the headers they read
 * (Retry-After, rate-limit counters) and a bounded body. Connectors talk through a `StoreTransport`, so the same
 * client code runs over the SSRF-guarded transport (a merchant's own WooCommerce URL) or the platform fetch (a
 * fixed API such as Salla's, from configuration). Transports never retry and never follow redirects: retries are
 * the outbox's, and a redirect could lead a request carrying a store's credentials somewhere else.
 */
export interface StoreRequest {
  method: "GET" | "POST" | "PUT" | "DELETE";
  url: string;
  headers?: Record<string, string>;
  /** JSON or form text; sent as UTF-8. */
  body?: string;
}

export interface StoreResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

export type StoreTransport = (request: StoreRequest) => Promise<StoreResponse>;

/** No answer at all: `timeout` and `network` are worth another try later, `blocked` (SSRF guard) never is. */
export class StoreNetworkError extends Error {
  constructor(
    readonly kind: "timeout" | "network" | "blocked" | "too_large",
    message: string,
  ) {
    super(message);
  }
}

export interface TransportOptions {
  timeoutMs: number;
  /** A response body past this is cut off and the exchange fails (`too_large`). */
  maxResponseBytes?: number;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
export const USER_AGENT = `order-confirmation-service/${packageVersion()} (+stores)`;

/**
 * For URLs a merchant chose (their WooCommerce store): node:http(s) with the guarded lookup of url-guard.ts, so
 * the address that is checked is the address connected to (no DNS-rebinding window), and IP-literal hosts judged
 * before connecting. A fresh connection per request: store calls are rare (a check, a webhook, a note per outcome).
 */
export function guardedTransport(options: TransportOptions & UrlGuardOptions): StoreTransport {
  const lookup = guardedLookup(options);
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  return (request) =>
    new Promise<StoreResponse>((resolve, reject) => {
      let url: URL;
      try {
        url = new URL(request.url);
      } catch {
        return reject(new StoreNetworkError("network", "invalid URL"));
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") return reject(new StoreNetworkError("network", "invalid URL"));
      const blocked = blockedLiteralHost(url, options);
      if (blocked) return reject(new StoreNetworkError("blocked", blocked.message));
      const body = request.body === undefined ? undefined : Buffer.from(request.body, "utf8");
      const transport = url.protocol === "https:" ? https : http;
      let settled = false;
      const fail = (error: StoreNetworkError) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outgoing.destroy();
        reject(error);
      };
      const outgoing = transport.request(
        url,
        {
          method: request.method,
          agent: false,
          lookup,
          headers: {
            "user-agent": USER_AGENT,
            accept: "application/json",
            ...request.headers,
            ...(body ? { "content-length": String(body.length) } : {}),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBytes) return fail(new StoreNetworkError("too_large", `response larger than ${maxBytes} bytes`));
            chunks.push(chunk);
          });
          response.on("error", () => fail(new StoreNetworkError("network", "connection reset")));
          response.on("end", () => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve({ status: response.statusCode ?? 0, headers: flatHeaders(response.headers), body: Buffer.concat(chunks).toString("utf8") });
          });
        },
      );
      const timer = setTimeout(() => fail(new StoreNetworkError("timeout", `timeout after ${options.timeoutMs} ms`)), options.timeoutMs);
      outgoing.on("error", (error: NodeJS.ErrnoException) =>
        fail(new StoreNetworkError(error.code === "EWEBHOOKBLOCKED" ? "blocked" : "network", describeError(error, url.hostname))),
      );
      outgoing.end(body);
    });
}

/** For fixed, configured API URLs (Salla's): the platform fetch, with the same bounds and no redirects. */
export function fetchTransport(options: TransportOptions): StoreTransport {
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  return async (request) => {
    let response: Response;
    const signal = AbortSignal.timeout(options.timeoutMs);
    try {
      response = await fetch(request.url, {
        method: request.method,
        headers: { "user-agent": USER_AGENT, accept: "application/json", ...request.headers },
        body: request.body,
        redirect: "manual",
        signal,
      });
    } catch (error) {
      throw fetchError(error, options.timeoutMs);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for await (const chunk of response.body ?? []) {
        size += chunk.length;
        if (size > maxBytes) {
          await response.body?.cancel().catch(() => undefined);
          throw new StoreNetworkError("too_large", `response larger than ${maxBytes} bytes`);
        }
        chunks.push(chunk);
      }
    } catch (error) {
      if (error instanceof StoreNetworkError) throw error;
      throw fetchError(error, options.timeoutMs);
    }
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
    return { status: response.status, headers, body: Buffer.concat(chunks).toString("utf8") };
  };
}

function fetchError(error: unknown, timeoutMs: number): StoreNetworkError {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return new StoreNetworkError("timeout", `timeout after ${timeoutMs} ms`);
  }
  const cause = error instanceof Error ? (error.cause as NodeJS.ErrnoException | undefined) : undefined;
  return new StoreNetworkError("network", cause?.code ? describeError(cause, "") : "request failed");
}

function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

function describeError(error: NodeJS.ErrnoException, host: string): string {
  switch (error.code) {
    case "EWEBHOOKBLOCKED":
      return error.message;
    case "ECONNREFUSED":
      return "connection refused";
    case "ECONNRESET":
    case "EPIPE":
      return "connection reset";
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_NONAME":
      return host ? `DNS lookup failed for ${host}` : "DNS lookup failed";
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return "host unreachable";
  }
  if (/CERT|SSL|TLS/.test(error.code ?? "")) return `TLS error: ${error.code}`;
  return error.code ?? "request failed";
}

/**
 * What a store call came to, as the write-back outbox and the connect flows need it. Retryable: no answer
 * (timeout, network), 408, 429 and 5xx (with the Retry-After the store asked for, in ms, when it gave one).
 * Everything else that is not 2xx is permanent for this request; `unauthorized` marks 401 (a token to refresh,
 * or credentials revoked) so callers can tell it apart.
 */
export type StoreCallResult<T> =
  | { ok: true; value: T }
  | { ok: false; retryable: boolean; unauthorized: boolean; status: number | null; retryAfterMs: number | null; detail: string };

export type StoreCallFailure = Extract<StoreCallResult<never>, { ok: false }>;

export function failureOfStatus(response: StoreResponse, detail: string, now: Date = new Date()): StoreCallFailure {
  const status = response.status;
  const retryable = status === 408 || status === 429 || status >= 500;
  return {
    ok: false,
    retryable,
    unauthorized: status === 401,
    status,
    retryAfterMs: retryable ? parseRetryAfter(response.headers["retry-after"], now) : null,
    detail: `HTTP ${status}${detail ? `: ${detail}` : ""}`.slice(0, MAX_DETAIL),
  };
}

export function failureOfError(error: unknown): StoreCallFailure {
  if (error instanceof StoreNetworkError) {
    const retryable = error.kind === "timeout" || error.kind === "network";
    return { ok: false, retryable, unauthorized: false, status: null, retryAfterMs: null, detail: error.message.slice(0, MAX_DETAIL) };
  }
  throw error;
}

/** Details end up in activity rows and logs: short, and never a response body in full. */
export const MAX_DETAIL = 300;

/** A JSON body, or null when it is not JSON. */
export function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
