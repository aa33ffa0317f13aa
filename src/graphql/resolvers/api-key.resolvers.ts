import type { AppServices } from "../../app-services.ts";
import type { ApiKeyRecord } from "../../domain/merchants/merchant.repository.ts";
import type { ApiKey, KeyMode, MutationResolvers, QueryResolvers } from "../../generated/graphql.ts";
import { toUserErrors } from "../error-mapper.ts";
import { asCaller, asSessionAdmin } from "./caller-guard.ts";
import { auditSourceOf } from "../context.ts";
import { apiKeyEndMarker } from "../../domain/users/session-ends.ts";

/**
 * API keys over GraphQL: thin doors over MerchantService, which scopes them to the caller's merchant and mode
 * (see MerchantService.listKeysOf). Keys are created and revoked by admin console sessions only (an API key gets
 * FORBIDDEN, SPEC §14); the full key is returned once, by createApiKey.
 */
export function apiKeyResolvers(services: AppServices) {
  const { merchantService } = services;

  const Query: QueryResolvers = {
    apiKeys: (_parent, _args, context) => asCaller(context, async (caller) => (await merchantService.listKeysOf(caller)).map(toGraphQLApiKey)),
  };

  const Mutation: MutationResolvers = {
    createApiKey: (_parent, { mode }, context) =>
      asSessionAdmin(context, async (caller) => {
        try {
          const created = await merchantService.createKeyFor(caller, mode === "LIVE" ? "live" : "test", auditSourceOf(caller, context.address));
          return { apiKey: toGraphQLApiKey(created.record), key: created.key, userErrors: [] };
        } catch (error) {
          const userErrors = toUserErrors(error, context.language);
          if (!userErrors) throw error;
          return { apiKey: null, key: null, userErrors };
        }
      }),

    revokeApiKey: (_parent, { id }, context) =>
      asSessionAdmin(context, async (caller) => {
        try {
          const revoked = await merchantService.revokeKeyOf(caller, id, auditSourceOf(caller, context.address));
          // Its websockets close now on every instance, not at their next periodic check.
          services.sessionEnds.ended([apiKeyEndMarker(revoked.id)]);
          return { apiKey: toGraphQLApiKey(revoked), userErrors: [] };
        } catch (error) {
          const userErrors = toUserErrors(error, context.language);
          if (!userErrors) throw error;
          return { apiKey: null, userErrors };
        }
      }),
  };

  return { Query, Mutation };
}

export function toGraphQLApiKey(record: ApiKeyRecord): ApiKey {
  return {
    id: record.id,
    prefix: record.prefix,
    mode: record.mode.toUpperCase() as KeyMode,
    createdAt: record.createdAt.toISOString(),
    lastUsedAt: record.lastUsedAt?.toISOString() ?? null,
    revokedAt: record.revokedAt?.toISOString() ?? null,
  };
}
