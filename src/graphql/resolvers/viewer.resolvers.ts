import type { AppServices } from "../../app-services.ts";
import type { KeyMode, QueryResolvers, UserRole } from "../../generated/graphql.ts";
import { asCaller } from "./caller-guard.ts";

/** `Query.viewer`: who is calling, for which merchant, in which mode. */
export function viewerResolvers(services: AppServices) {
  const Query: QueryResolvers = {
    viewer: (_parent, _args, context) =>
      asCaller(context, async (caller) => {
        const mode = caller.mode.toUpperCase() as KeyMode;
        if (caller.session) {
          const { user, merchant } = caller.session;
          return { user: { ...user, role: user.role.toUpperCase() as UserRole }, merchant, mode };
        }
        return { user: null, merchant: await services.merchantService.getMerchant(caller.merchantId), mode };
      }),
  };
  return { Query };
}
