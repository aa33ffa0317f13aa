import type { ProviderEventKey } from "../orders/order.repository.ts";
import type { OrderTaskRepository, SentReminder } from "./order-task.repository.ts";

/** What provider callbacks need to know about reminder messages (their statuses never change the order). */
export class ReminderService {
  constructor(
    private readonly tasks: OrderTaskRepository,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The sent reminder a provider message id belongs to, or null. */
  findByProviderMessage(providerMessageId: string): Promise<SentReminder | null> {
    return providerMessageId ? this.tasks.findSentReminder(providerMessageId) : Promise.resolve(null);
  }

  /** The sent reminders among many provider message ids (a callback batch), in one query. */
  findByProviderMessages(providerMessageIds: string[]): Promise<Map<string, SentReminder>> {
    return this.tasks.findSentReminders(providerMessageIds.filter(Boolean));
  }

  /** Whether reminder `position` of the order is being sent, its result (and message id) not yet recorded. */
  isBeingSent(orderId: string, position: number): Promise<boolean> {
    return this.tasks.isSending(orderId, position);
  }

  /**
   * A status of a reminder message: a timeline step (reminder_delivered, reminder_read, reminder_failed),
   * recorded once per provider event. Returns false for a repeat.
   */
  applyStatus(
    reminder: SentReminder,
    status: "sent" | "delivered" | "read" | "failed",
    failure: { errorCode: number | null; failureReason: string } | undefined,
    providerEvent: ProviderEventKey,
  ): Promise<boolean> {
    return this.tasks.applyReminderStatus(reminder, status, failure, providerEvent, this.clock());
  }
}
