import type { FastifyRequest } from "fastify";
import type { Caller, MerchantService } from "../domain/merchants/merchant.service.ts";

declare module "fastify" {
  interface FastifyRequest {
    caller: Caller | null;
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

/** preParsing hook: every non-public route resolves X-API-Key to the calling merchant or answers 401. */
export function authenticate(merchants: MerchantService) {
  return async (request: FastifyRequest) => {
    if (request.routeOptions.config?.public) return;
    request.caller = await merchants.authenticate(headerValue(request, "x-api-key"));
  };
}

export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Error("route used without authentication");
  return request.caller;
}
