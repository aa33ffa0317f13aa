import type { AppServices } from "../../app-services.ts";
import { ForbiddenError, ValidationError } from "../../domain/errors.ts";
import { TooManyLinkCodesError } from "../../domain/stores/salla-link.ts";
import type { MutationResolvers } from "../../generated/graphql.ts";
import { translate } from "../../i18n/messages.ts";
import type { GraphQLCaller, GraphQLContext } from "../context.ts";
import { toUserErrors } from "../error-mapper.ts";
import { asAdmin } from "./caller-guard.ts";

/**
 * The WooCommerce and Salla doors (SPEC §13): `connectWooCommerceStore` and `createSallaLinkCode`, for admins, in
 * the caller's own mode only (as API keys are: a test session does not connect a live store).
 */
export function storePlatformResolvers(services: AppServices) {
  const Mutation: MutationResolvers = {
    connectWooCommerceStore: (_parent, { input }, context) =>
      asAdmin(context, async (caller) => {
        try {
          const scope = scopeFor(caller, input.mode.toLowerCase());
          const { mode: _mode, ...rest } = input;
          const connection = await services.wooCommerce.connect(scope, rest, actorOf(caller));
          return { connection, userErrors: [] };
        } catch (error) {
          return { connection: null, userErrors: userErrorsOf(error, context) };
        }
      }),
    createSallaLinkCode: (_parent, { mode }, context) =>
      asAdmin(context, async (caller) => {
        try {
          const scope = scopeFor(caller, mode.toLowerCase());
          if (!services.sallaLinks) {
            throw new ValidationError([{ field: "mode", key: "field.store.not_configured", params: { platform: "Salla" } }]);
          }
          const { code, expiresAt } = await services.sallaLinks.createCode(scope);
          return { code, expiresAt: expiresAt.toISOString(), userErrors: [] };
        } catch (error) {
          if (error instanceof TooManyLinkCodesError) {
            return { code: null, expiresAt: null, userErrors: [{ code: "LIMIT_REACHED", message: translate("error.SALLA_LINK_CODES", context.language), field: null, errorCode: null }] };
          }
          return { code: null, expiresAt: null, userErrors: userErrorsOf(error, context) };
        }
      }),
  };
  return { Mutation };
}

function scopeFor(caller: GraphQLCaller, mode: string) {
  if (mode !== caller.mode) throw new ForbiddenError("mode", { mode: caller.mode, requested: mode });
  return { merchantId: caller.merchantId, mode: caller.mode };
}

function actorOf(caller: GraphQLCaller) {
  return { kind: "USER" as const, id: caller.session?.user.id ?? caller.keyId ?? "" };
}

function userErrorsOf(error: unknown, context: GraphQLContext) {
  const userErrors = toUserErrors(error, context.language);
  if (!userErrors) throw error;
  return userErrors;
}
