import Negotiator from "negotiator";
import type { FastifyRequest } from "fastify";
import { LANGUAGES, type Language } from "../i18n/messages.ts";

/** Full Accept-Language negotiation (ar-EG, q-values); anything we do not speak falls back to English. */
export function negotiateLanguage(header: string | string[] | undefined): Language {
  const value = Array.isArray(header) ? header.join(",") : header;
  if (!value) return "en";
  const chosen = new Negotiator({ headers: { "accept-language": value } }).language([...LANGUAGES]);
  return (chosen as Language | undefined) ?? "en";
}

export function requestLanguage(request: FastifyRequest): Language {
  return negotiateLanguage(request.headers["accept-language"]);
}
