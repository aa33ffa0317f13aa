import type { MerchantScope } from "../orders/order.repository.ts";
import { confirmationPolicyInput, type ConfirmationPolicy, type ConfirmationPolicyInput } from "./confirmation-policy.ts";
import type { ConfirmationPolicyRepository } from "./confirmation-policy.repository.ts";

/**
 * Reads and replaces a merchant's confirmation policy (REST and GraphQL call the same two methods). A new
 * policy applies to orders created afterwards: each order keeps the schedule it was created with.
 */
export class ConfirmationPolicyService {
  /** The PUT body's schema, bounded by CONFIRMATION_MIN_DELAY: each door validates with it before `replace`. */
  readonly input: ReturnType<typeof confirmationPolicyInput>;

  constructor(
    private readonly policies: ConfirmationPolicyRepository,
    minDelayMs: number,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.input = confirmationPolicyInput(minDelayMs);
  }

  get(scope: MerchantScope): Promise<ConfirmationPolicy> {
    return this.policies.get(scope);
  }

  /** Stores a policy validated with `input` and returns it as stored. */
  async replace(scope: MerchantScope, policy: ConfirmationPolicyInput): Promise<ConfirmationPolicy> {
    await this.policies.put(scope, policy, this.clock());
    return this.policies.get(scope);
  }
}
