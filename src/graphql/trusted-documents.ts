import { existsSync, readFileSync } from "node:fs";
import type { FastifyRequest } from "fastify";
import { GraphQLError } from "graphql";
import type { Language } from "../i18n/messages.ts";
import { translate } from "../i18n/messages.ts";

/**
 * Trusted documents for console sessions. The console's operations are hashed at build time (graphql-codegen's
 * client preset writes a hash → document manifest; `vite build` copies it to console/dist/trusted-documents.json);
 * the console sends only the hash (`extensions.persistedQuery.sha256Hash`, Apollo's format) and the server runs the
 * document the manifest names. With enforcement on (`CONSOLE_TRUSTED_DOCUMENTS`, default on in production), a
 * session request carrying any other document is refused, so a stolen or abused session can run only what the
 * console itself runs. API-key requests are not affected: integrations send any document within the cost limits.
 *
 * The API explorer (/console/explorer, GraphiQL) sends the documents its user writes, marked `X-OCS-Explorer: 1`.
 * With enforcement on, those are accepted from **admin** sessions only: an admin can already create an API key in the
 * console and run any document with it, so the explorer gives a stolen admin session nothing it did not have, and
 * its documents meet the same depth and cost limits as an API key's (and the per-user rate limit). A viewer cannot
 * create keys, so a viewer session stays on the console's own documents (its explorer shows the schema only).
 */
export type TrustedDocuments = ReadonlyMap<string, string>;

/** Which documents a request may carry besides the console's own (hash) ones. */
export type DocumentPolicy = "any" | "trusted-only" | "explorer-admin-only";

export const EXPLORER_HEADER = "x-ocs-explorer";

export function documentPolicy(options: { enforced: boolean; session: boolean; admin: boolean; explorer: boolean }): DocumentPolicy {
  if (!options.enforced || !options.session) return "any";
  if (!options.explorer) return "trusted-only";
  return options.admin ? "any" : "explorer-admin-only";
}

/** The explorer marks its requests; the header is not a credential (the session cookie is), only a choice of rule. */
export function isExplorerRequest(request: FastifyRequest): boolean {
  return request.headers[EXPLORER_HEADER] === "1";
}

const HASH = /^(?:sha256:)?([0-9a-f]{64})$/;

export function loadTrustedDocuments(path: string): TrustedDocuments {
  if (!existsSync(path)) return new Map();
  const manifest = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  const documents = new Map<string, string>();
  for (const [key, document] of Object.entries(manifest)) {
    const hash = HASH.exec(key)?.[1];
    if (hash && typeof document === "string") documents.set(hash, document);
  }
  return documents;
}

interface GraphQLBody {
  query?: unknown;
  extensions?: { persistedQuery?: { sha256Hash?: unknown } } & Record<string, unknown>;
}

/**
 * For a console-session request: replace a known hash by its document, and refuse a document that is not one of
 * the console's unless the policy allows any. Returns the error to answer with, or null to go on.
 */
export function resolveTrustedDocument(
  request: FastifyRequest,
  documents: TrustedDocuments,
  policy: DocumentPolicy,
  language: Language,
): GraphQLError | null {
  const body = graphqlBody(request);
  if (!body) return null;
  const hash = body.extensions?.persistedQuery?.sha256Hash;
  if (typeof hash === "string") {
    const document = documents.get(HASH.exec(hash)?.[1] ?? "");
    if (!document) return trustedDocumentError("PERSISTED_QUERY_NOT_FOUND", "error.TRUSTED_DOCUMENTS.unknown", language);
    body.query = document;
    // Apollo's automatic persisted queries would otherwise look the hash up in its own cache.
    delete body.extensions!.persistedQuery;
    return null;
  }
  if (policy !== "any" && body.query !== undefined) {
    const key = policy === "explorer-admin-only" ? "error.TRUSTED_DOCUMENTS.explorer_admin_only" : "error.TRUSTED_DOCUMENTS.required";
    return trustedDocumentError("PERSISTED_QUERY_NOT_SUPPORTED", key, language);
  }
  return null;
}

/**
 * POST bodies are objects (the console's requests). A GET only carries `query` in its query string: it is checked,
 * never rewritten (the console does not use GET).
 */
function graphqlBody(request: FastifyRequest): GraphQLBody | null {
  if (request.method === "POST") {
    return request.body && typeof request.body === "object" && !Array.isArray(request.body) ? (request.body as GraphQLBody) : null;
  }
  if (request.method === "GET") return { query: (request.query as Record<string, unknown>).query };
  return null;
}

function trustedDocumentError(code: string, key: string, language: Language): GraphQLError {
  return new GraphQLError(translate(key, language), { extensions: { code, http: { status: 400 } } });
}
