import type { FastifyRequest } from "fastify";
import type { Caller, MerchantService } from "../domain/merchants/merchant.service.ts";
import type { AuditSource } from "../domain/audit/audit-log.ts";

declare module "fastify" {
  interface FastifyRequest {
    caller: Caller | null;
    /** Why the key was refused; raised once the rate limiter has counted the request. */
    authError: Error | null;
  }
  interface FastifyContextConfig {
    /** Routes that need no API key (health, metrics, docs). */
    public?: boolean;
  }
}

export function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

const needsKey = (request: FastifyRequest) =>
  !request.routeOptions.config?.public && Boolean(request.routeOptions.url?.startsWith("/api/"));

/**
 * onRequest, before the rate limiter: resolves X-API-Key so the limiter can count per key, and keeps a refusal
 * for `rejectUnauthenticated` (requests with bad keys are then counted per address, not per made-up key).
 */
export function identifyCaller(merchants: MerchantService) {
  return async (request: FastifyRequest) => {
    if (!needsKey(request)) return;
    try {
      request.caller = await merchants.authenticate(headerValue(request, "x-api-key"));
    } catch (error) {
      request.authError = error as Error;
    }
  };
}

/** preParsing: a request without a valid key gets 401 before its body is read or validated. */
export async function rejectUnauthenticated(request: FastifyRequest): Promise<void> {
  if (request.authError) throw request.authError;
}

export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Error("route used without authentication");
  return request.caller;
}

/** The request's API key and address, as the audit log records them. */
export function apiKeyAuditSource(request: FastifyRequest): AuditSource {
  const caller = callerOf(request);
  return { actor: { kind: "api_key", id: caller.keyId, label: caller.keyPrefix }, address: request.ip };
}
