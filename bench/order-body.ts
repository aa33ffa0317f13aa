import { orderInput } from "../test/support/fixtures.ts";

/**
 * The create-order body every benchmark request sends: the tests' fixture with a caller-chosen
 * externalOrderId, so each POST is a new order. Shared by the seeding code and the load worker.
 */
export function benchOrderBody(externalOrderId: string) {
  return orderInput({ externalOrderId });
}

export type BenchOrderBody = ReturnType<typeof benchOrderBody>;
