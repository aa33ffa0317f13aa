import type { MerchantScope } from "../orders/order.repository.ts";
import { confirmationPolicyInput, type ConfirmationPolicyInput, type StoredPolicy } from "./confirmation-policy.ts";
import { policyDelayMs } from "./policy-duration.ts";
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

  get(scope: MerchantScope): Promise<StoredPolicy> {
    return this.policies.get(scope);
  }

  /** SPEC §15: the instant before which a pending order's last message makes it need a person (now − followUpAfter). */
  async followUpCutoff(scope: MerchantScope): Promise<Date> {
    const delay = policyDelayMs(await this.policies.followUpAfter(scope)) ?? 0;
    return new Date(this.clock().getTime() - delay);
  }

  /** Stores a policy validated with `input` and returns it as stored. */
  async replace(scope: MerchantScope, policy: ConfirmationPolicyInput): Promise<StoredPolicy> {
    await this.policies.put(scope, policy, this.clock());
    return this.policies.get(scope);
  }
}
