import { ForbiddenError, NotFoundError } from "../errors.ts";
import { isUuid } from "../ids.ts";
import type { OrderEventBus } from "../orders/order-events.bus.ts";
import type { MerchantScope } from "../orders/order.repository.ts";
import type { OrderService } from "../orders/order.service.ts";
import type { OrderView } from "../orders/order.view.ts";
import type { SmsOutboxRepository, SmsRecord } from "./sms-outbox.repository.ts";

/** A provider's delivery report of an SMS (Twilio's MessageStatus, as far as it matters to us). */
export type SmsReport = "delivered" | "failed" | "undelivered";

export type SmsReportOutcome = "applied" | "duplicate" | "not_found";

/** Twilio's texts for the delivery errors it reports most (its error dictionary), else a generic one. */
const SMS_ERRORS: Record<number, string> = {
  30003: "Unreachable destination handset",
  30004: "Message blocked",
  30005: "Unknown destination handset",
  30006: "Landline or unreachable carrier",
  30007: "Message filtered",
  30008: "Unknown error",
  21211: "Invalid 'To' phone number",
  21408: "Permission to send an SMS has not been enabled for the region",
  21610: "Attempt to send to unsubscribed recipient",
  21612: "The 'To' phone number is not currently reachable via SMS",
  21614: "'To' number is not a valid mobile number",
};

export function smsFailureReason(status: string, errorCode: number | null): string {
  if (errorCode !== null && SMS_ERRORS[errorCode]) return SMS_ERRORS[errorCode];
  return status === "undelivered" ? "SMS undelivered" : "SMS failed";
}

/** Status reports of SMS (Twilio's callbacks, test mode's route) and the SMS records of an order. */
export class SmsService {
  constructor(
    private readonly outbox: SmsOutboxRepository,
    private readonly orders: OrderService,
    private readonly bus: OrderEventBus,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** A report on the SMS with this provider message id; unknown ids are `not_found` (and ignored by callers). */
  async applyReport(providerMessageId: string, report: SmsReport, errorCode: number | null): Promise<SmsReportOutcome> {
    const sms = await this.outbox.findByProviderMessageId(providerMessageId);
    if (!sms) return "not_found";
    return this.apply(sms.id, report, errorCode);
  }

  /** Test mode: the simulated carrier reports on the order's latest SMS; answers the order as it is then. */
  async testReport(scope: MerchantScope, orderId: string, report: SmsReport, errorCode: number | null): Promise<OrderView> {
    if (scope.mode !== "test") throw new ForbiddenError("test_mode_only");
    const order = await this.orders.get(scope, orderId);
    const sms = isUuid(orderId) ? await this.outbox.latestSent(scope, order.id) : null;
    if (!sms) throw new NotFoundError("order");
    await this.apply(sms.id, report, errorCode);
    return this.orders.get(scope, order.id);
  }

  /** The order's SMS (text, status, times), oldest first; the caller has checked the order's visibility. */
  ofOrder(orderId: string): Promise<SmsRecord[]> {
    return this.outbox.ofOrder(orderId);
  }

  private async apply(smsId: string, report: SmsReport, errorCode: number | null): Promise<SmsReportOutcome> {
    const now = this.clock();
    if (report === "delivered") return (await this.outbox.recordDelivered(smsId, now)) ? "applied" : "duplicate";
    const result = await this.outbox.recordFailed(smsId, { errorCode, failureReason: smsFailureReason(report, errorCode) }, now);
    if (result.event) this.bus.publish(result.event);
    return result.applied ? "applied" : "duplicate";
  }
}
