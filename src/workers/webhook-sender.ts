import http from "node:http";
import https from "node:https";
import { performance } from "node:perf_hooks";
import { blockedLiteralHost, guardedLookup } from "../domain/webhooks/url-guard.ts";
import { isSuccess, type AttemptResult } from "../domain/webhooks/webhook-retry-policy.ts";
import { packageVersion } from "../version.ts";

/**
 * One HTTP POST to a merchant's endpoint, reduced to what the delivery log records. Plain node:http(s) rather
 * than fetch, because it needs a `lookup` hook: the SSRF guard resolves the name itself and refuses a blocked
 * address, so the address checked is the address connected to (no DNS-rebinding window). Never follows a
 * redirect (3xx is a failure, as Standard Webhooks says), and reads at most ERROR_BODY_BYTES of a failure's body.
 */
export interface WebhookRequest {
  url: string;
  /** The exact bytes the signature was computed over. */
  body: string;
  headers: Record<string, string>;
}

export interface SenderOptions {
  /** The whole attempt: connect, send, and the response's status line and headers. */
  timeoutMs: number;
  allowPrivateUrls: boolean;
  /** WEBHOOK_DNS_SERVERS: who resolves the endpoint's host (the system's servers when null). */
  dnsServers?: readonly string[] | null;
  /** See UrlGuardOptions.exemptAddresses (tests of the guard only). */
  exemptAddresses?: readonly string[];
  /** The endpoint's keep-alive agent (webhook-connections.ts); without one, a fresh connection per attempt. */
  agent?: http.Agent;
}

/** Thrown when `signal` aborts the attempt (shutdown): nothing is known about its outcome. */
export class AttemptAbortedError extends Error {
  constructor() {
    super("webhook attempt aborted");
  }
}

/** Enough of a failure's body to tell the merchant what the receiver said; the rest is never read. */
const ERROR_BODY_BYTES = 1024;
const ERROR_TEXT_MAX = 500; // webhook_attempts.error is VARCHAR(500)
const ERROR_SNIPPET_CHARS = 200;

export const USER_AGENT = `order-confirmation-service/${packageVersion()} (+webhooks)`;

export function postWebhook(target: WebhookRequest, options: SenderOptions, signal?: AbortSignal): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = (error: string, statusCode: number | null = null, retryAfter: string | null = null): AttemptResult => ({
    statusCode,
    durationMs: elapsed(),
    error: error.slice(0, ERROR_TEXT_MAX),
    retryAfter,
  });

  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return Promise.resolve(failed("invalid URL"));
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return Promise.resolve(failed("invalid URL"));
  // IP-literal hosts never go through `lookup`: judged here.
  const blocked = blockedLiteralHost(url, { allowPrivate: options.allowPrivateUrls });
  if (blocked) return Promise.resolve(failed(blocked.message));
  if (signal?.aborted) return Promise.reject(new AttemptAbortedError());

  const body = Buffer.from(target.body, "utf8");
  const transport = url.protocol === "https:" ? https : http;
  const lookup = guardedLookup({
    allowPrivate: options.allowPrivateUrls,
    dnsServers: options.dnsServers,
    exemptAddresses: options.exemptAddresses,
  });
  return new Promise<AttemptResult>((resolve, reject) => {
    let settled = false;
    let request: http.ClientRequest;
    let response: { statusCode: number; retryAfter: string | null; chunks: Buffer[] } | null = null;
    const settle = (outcome: () => void, keepSocket = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      if (!keepSocket) request.destroy();
      outcome();
    };
    const finishResponse = (ended = false) => {
      if (!response) return;
      const { statusCode, retryAfter, chunks } = response;
      // A body read to its end leaves the socket reusable; one cut short (too long, too slow) closes it.
      settle(() => resolve(failed(describeStatus(statusCode, Buffer.concat(chunks).toString("utf8")), statusCode, retryAfter)), ended);
    };
    const onAbort = () => settle(() => reject(new AttemptAbortedError()));

    const send = (retriesLeft: number) => {
      // With an agent, a keep-alive socket to the endpoint (see webhook-connections.ts); without one, a fresh
      // connection for this attempt alone. Either way a new socket is opened through the guarded lookup.
      request = transport.request(
        url,
        {
          method: "POST",
          agent: options.agent ?? false,
          headers: { ...target.headers, "content-length": String(body.length) },
          lookup,
        },
        (res) => onResponse(res),
      );
      request.on("error", (error: NodeJS.ErrnoException) => {
        if (settled) return;
        if (response) return finishResponse();
        // The receiver closed an idle keep-alive socket just as we reused it: nothing reached it, so the request
        // goes again on another socket (bounded: at most one per socket the endpoint may have, plus a fresh one).
        if (request.reusedSocket && retriesLeft > 0 && RESET_ON_REUSE.has(error.code ?? "")) return send(retriesLeft - 1);
        settle(() => resolve(failed(describeError(error, url.hostname))));
      });
      request.end(body);
    };

    const onResponse = (res: http.IncomingMessage) => {
      if (settled) {
        res.resume();
        return;
      }
      const statusCode = res.statusCode ?? 0;
      res.on("error", () => finishResponse());
      if (isSuccess(statusCode)) {
        // Success is the status: the receiver's body is not waited for.
        settle(() => resolve({ statusCode, durationMs: elapsed(), error: null, retryAfter: null }), options.agent !== undefined);
        if (options.agent) drainForReuse(res);
        return;
      }
      const retryAfter = res.headers["retry-after"];
      response = { statusCode, retryAfter: typeof retryAfter === "string" ? retryAfter : null, chunks: [] };
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        response!.chunks.push(chunk);
        size += chunk.length;
        if (size >= ERROR_BODY_BYTES) finishResponse();
      });
      res.on("end", () => finishResponse(true));
    };

    const timer = setTimeout(() => {
      // A status that already arrived stands; only its slow body is cut short.
      if (response) finishResponse();
      else settle(() => resolve(failed(`timeout after ${options.timeoutMs} ms`)));
    }, options.timeoutMs);
    signal?.addEventListener("abort", onAbort, { once: true });
    send(RETRIES_ON_STALE_SOCKET);
  });
}

/** Errors that mean a reused idle socket had been closed by the receiver before our request reached it. */
const RESET_ON_REUSE = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED"]);
/** Every other socket of the endpoint could be just as stale (idle sockets close together). */
const RETRIES_ON_STALE_SOCKET = 8;
/** A success's body is read and dropped, so its socket can serve the next delivery: up to this much, this long. */
const DRAIN_BODY_BYTES = 64 * 1024;
const DRAIN_MS = 1_000;

/** Reads a success's body to its end in the background; one too long or too slow closes its socket instead. */
function drainForReuse(res: http.IncomingMessage): void {
  let size = 0;
  const cut = () => res.destroy();
  const timer = setTimeout(cut, DRAIN_MS);
  timer.unref();
  res.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > DRAIN_BODY_BYTES) cut();
  });
  res.on("close", () => clearTimeout(timer));
}

function describeStatus(statusCode: number, body: string): string {
  if (statusCode >= 300 && statusCode < 400) return `redirect (${statusCode}) not followed`;
  const snippet = body.slice(0, ERROR_BODY_BYTES).replace(/\s+/g, " ").trim().slice(0, ERROR_SNIPPET_CHARS);
  return snippet ? `HTTP ${statusCode}: ${snippet}` : `HTTP ${statusCode}`;
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
      return `DNS lookup failed for ${host}`;
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return "host unreachable";
  }
  if (error.code?.startsWith("HPE_")) return "invalid HTTP response";
  if (/CERT|SSL|TLS/.test(error.code ?? "")) return `TLS error: ${error.code}`;
  return error.message || error.code || "request failed";
}
