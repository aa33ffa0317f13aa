import type { Caller } from "../domain/merchants/merchant.service.ts";

/** What every resolver receives: the authenticated caller (null when no valid key was sent). */
export interface GraphQLContext {
  caller: Caller | null;
}
