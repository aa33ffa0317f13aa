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
  return new Promise<AttemptResult>((resolve, reject) => {
    let settled = false;
    let response: { statusCode: number; retryAfter: string | null; chunks: Buffer[] } | null = null;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      request.destroy();
      outcome();
    };
    const finishResponse = () => {
      if (!response) return;
      const { statusCode, retryAfter, chunks } = response;
      settle(() => resolve(failed(describeStatus(statusCode, Buffer.concat(chunks).toString("utf8")), statusCode, retryAfter)));
    };
    const onAbort = () => settle(() => reject(new AttemptAbortedError()));

    // agent: false, a fresh connection per attempt: a pooled socket could have been closed by the receiver
    // meanwhile, and a reset on reuse would count as the merchant's failure.
    const request = transport.request(
      url,
      {
        method: "POST",
        agent: false,
        headers: { ...target.headers, "content-length": String(body.length) },
        lookup: guardedLookup({ allowPrivate: options.allowPrivateUrls, dnsServers: options.dnsServers }),
      },
      (res) => {
        const statusCode = res.statusCode ?? 0;
        res.on("error", () => finishResponse());
        if (isSuccess(statusCode)) {
          // Success is the status: the receiver's body is not waited for.
          settle(() => resolve({ statusCode, durationMs: elapsed(), error: null, retryAfter: null }));
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
        res.on("end", finishResponse);
      },
    );
    request.on("error", (error) => {
      if (response) finishResponse();
      else settle(() => resolve(failed(describeError(error as NodeJS.ErrnoException, url.hostname))));
    });
    const timer = setTimeout(() => {
      // A status that already arrived stands; only its slow body is cut short.
      if (response) finishResponse();
      else settle(() => resolve(failed(`timeout after ${options.timeoutMs} ms`)));
    }, options.timeoutMs);
    signal?.addEventListener("abort", onAbort, { once: true });
    request.end(body);
  });
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
