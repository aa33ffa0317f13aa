/**
 * Graph API error bodies (`{ error: { code, message, error_user_title, ... } }`) and how each one is
 * treated: transient ones are retried, every other one is a rejection of this message (SPEC §5.1).
 */
export interface GraphError {
  code: number;
  message: string | null;
  title: string | null;
  details: string | null;
}

/**
 * Codes retried before giving up: 1 unknown, 2 service, 4 app call rate, 80007 WABA rate, 130429 number
 * throughput, 131000 something went wrong, 133004 server temporarily unavailable.
 */
export const TRANSIENT_GRAPH_CODES: ReadonlySet<number> = new Set([1, 2, 4, 80007, 130429, 131000, 133004]);

export const UNKNOWN_FAILURE = "Unknown failure";

const text = (value: unknown): string | null => (typeof value === "string" && value.trim() ? value.trim() : null);

/** The Graph error of a response body, or null when the body is not one (HTML from a proxy, empty, ...). */
export function parseGraphError(body: unknown): GraphError | null {
  if (!body || typeof body !== "object") return null;
  const error = (body as { error?: unknown }).error;
  if (!error || typeof error !== "object") return null;
  const fields = error as Record<string, unknown>;
  const code = typeof fields.code === "number" ? fields.code : typeof fields.code === "string" ? Number(fields.code) : NaN;
  if (!Number.isInteger(code)) return null;
  const errorData = fields.error_data && typeof fields.error_data === "object" ? (fields.error_data as Record<string, unknown>) : {};
  return {
    code,
    message: text(fields.message),
    title: text(fields.error_user_title) ?? text(fields.title),
    details: text(errorData.details),
  };
}

/** The seed's rule: the error's message, else its title, else "Unknown failure". */
export function failureReasonOf(error: GraphError | null): string {
  return error?.message ?? error?.title ?? UNKNOWN_FAILURE;
}

export type AttemptOutcome =
  | { kind: "accepted"; providerMessageId: string }
  /** Worth another attempt: a transient Graph code, HTTP 5xx/429 without a code, a timeout, a network error. */
  | { kind: "transient"; error: GraphError | null; detail: string }
  /** Permanent for this message. */
  | { kind: "rejected"; error: GraphError | null; detail: string }
  /** HTTP 200 without a wamid: the message may have gone out, so it is not sent again. */
  | { kind: "unknown"; detail: string };

/** Classifies one HTTP answer of `POST /{phone-number-id}/messages`. */
export function classifyResponse(status: number, body: unknown): AttemptOutcome {
  if (status >= 200 && status < 300) {
    const id = (body as { messages?: { id?: unknown }[] } | null)?.messages?.[0]?.id;
    if (typeof id === "string" && id) return { kind: "accepted", providerMessageId: id };
    return { kind: "unknown", detail: `HTTP ${status} without messages[0].id` };
  }
  const error = parseGraphError(body);
  const detail = `HTTP ${status}${error ? ` Graph error ${error.code}: ${error.message ?? error.title ?? "no message"}` : " without a Graph error body"}`;
  // Meta's guidance: branch on the Graph code, not the HTTP status (131045 "template not approved" comes
  // with HTTP 500 and is the seed's rejection). Only an answer without a Graph body falls back to the status.
  if (error) return TRANSIENT_GRAPH_CODES.has(error.code) ? { kind: "transient", error, detail } : { kind: "rejected", error, detail };
  if (status >= 500) return { kind: "transient", error: null, detail };
  // A 4xx that is not a Graph error (a proxy, a wrong WHATSAPP_API_URL): only a rate limit is worth retrying.
  return status === 429 ? { kind: "transient", error: null, detail } : { kind: "rejected", error: null, detail };
}
