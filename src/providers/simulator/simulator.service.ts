import { ForbiddenError } from "../../domain/errors.ts";
import type { MerchantScope } from "../../domain/orders/order.repository.ts";
import type { OrderService } from "../../domain/orders/order.service.ts";
import type { DeliveryStatus } from "../../domain/orders/order-state.ts";
import type { OrderView } from "../../domain/orders/order.view.ts";

/** Titles Meta sends in `errors[0]` of a failed status, for the codes the simulator can report. */
const ASYNC_FAILURES: Record<number, string> = {
  131000: "Something went wrong",
  131026: "Message undeliverable",
  131047: "Re-engagement message",
  131049: "This message was not delivered to maintain healthy ecosystem engagement.",
  131050: "User has stopped receiving marketing messages",
  132015: "Template is Paused",
};

/**
 * The simulated customer: what a phone would report to the provider, fed through the same domain calls
 * as real WhatsApp callbacks. Only test-mode orders can be driven.
 */
export class SimulatorService {
  constructor(private readonly orders: OrderService) {}

  async tap(scope: MerchantScope, orderId: string, action: "approve" | "cancel"): Promise<OrderView> {
    assertTestMode(scope);
    return this.orders.settle(await this.orders.applyCustomerAction(orderId, action, scope));
  }

  async report(scope: MerchantScope, orderId: string, status: DeliveryStatus, errorCode?: number): Promise<OrderView> {
    assertTestMode(scope);
    const failure =
      status === "failed"
        ? { errorCode: errorCode ?? 131026, failureReason: ASYNC_FAILURES[errorCode ?? 131026] ?? "Unknown failure" }
        : undefined;
    return this.orders.settle(await this.orders.applyDeliveryStatus(orderId, status, failure, scope));
  }
}

function assertTestMode(scope: MerchantScope): void {
  if (scope.mode !== "test") throw new ForbiddenError("test_mode_only");
}
