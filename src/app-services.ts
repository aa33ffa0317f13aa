import type { GettingStartedService } from "./domain/onboarding/getting-started.service.ts";
import type { Redis } from "ioredis";
import type { Config } from "./config.ts";
import type { Database } from "./db/database.ts";
import type { ConfirmationPageService } from "./domain/confirmation-page/confirmation-page.service.ts";
import type { SmsService } from "./domain/sms/sms.service.ts";
import type { SmsSender } from "./workers/sms-sender.ts";
import type { ConfirmationPolicyService } from "./domain/confirmation/confirmation-policy.service.ts";
import type { ReminderService } from "./domain/confirmation/reminder.service.ts";
import type { ConversationService } from "./domain/conversation/conversation.service.ts";
import type { IdempotencyService } from "./domain/idempotency/idempotency.service.ts";
import type { MerchantService } from "./domain/merchants/merchant.service.ts";
import type { LiveOrderEvents } from "./domain/orders/live-order-events.ts";
import type { OrderEventBus } from "./domain/orders/order-events.bus.ts";
import type { OrderService } from "./domain/orders/order.service.ts";
import type { PublicUrls } from "./domain/public-urls.ts";
import type { SecretBox } from "./domain/secrets/secret-box.ts";
import type { OrderStatsService } from "./domain/stats/order-stats.service.ts";
import type { OrderStatSlots } from "./domain/stats/order-stat-slots.ts";
import type { StatBucketCache } from "./domain/stats/stat-bucket-cache.ts";
import type { SessionService } from "./domain/users/session.service.ts";
import type { SessionEnds } from "./domain/users/session-ends.ts";
import type { AuditLogService } from "./domain/audit/audit-log.service.ts";
import type { UserService } from "./domain/users/user.service.ts";
import type { WebhookDeliveryService } from "./domain/webhooks/webhook-delivery.service.ts";
import type { WebhookEndpointService } from "./domain/webhooks/webhook-endpoint.service.ts";
import type { Metrics } from "./metrics.ts";
import type { SimulatedPhones } from "./providers/simulator/simulated-phones.ts";
import type { SimulatorService } from "./providers/simulator/simulator.service.ts";
import type { ConfirmationScheduler } from "./workers/confirmation-scheduler.ts";
import type { WebhookDispatcher } from "./workers/webhook-dispatcher.ts";
import type { StoreService } from "./domain/stores/store.service.ts";
import type { StoreIntakeWorker } from "./workers/store-intake.worker.ts";
import type { StoreWritebackWorker } from "./workers/store-writeback.worker.ts";
import type { WooCommerceConnect } from "./domain/stores/woocommerce-connect.ts";
import type { SallaLinks } from "./domain/stores/salla-link.ts";

/**
 * Every service the transports (REST, GraphQL, websockets, workers) receive. It lives apart from the composition
 * root (app.ts), which builds it, so that the doors depend on the services' types and never on the wiring.
 */
export interface AppServices {
  config: Config;
  database: Database;
  redis: Redis | null;
  metrics: Metrics;
  /** Seals and opens secrets kept at rest (endpoint secrets, store credentials). */
  secrets: SecretBox;
  /** Links and callback URLs handed to customers, providers and stores. */
  publicUrls: PublicUrls;
  bus: OrderEventBus;
  /** Committed order events from every instance (through Redis when configured), for live subscribers. */
  liveEvents: LiveOrderEvents;
  merchantService: MerchantService;
  orderService: OrderService;
  idempotency: IdempotencyService;
  /** Dashboard figures of the caller's orders (REST and GraphQL). */
  orderStats: OrderStatsService;
  /** Folds the slots of closed statistics buckets (maintenance). */
  orderStatSlots: OrderStatSlots;
  /** orderStats' whole buckets between reads (stat-bucket-cache.ts). */
  statBucketCache: StatBucketCache;
  phones: SimulatedPhones;
  simulator: SimulatorService;
  webhookEndpoints: WebhookEndpointService;
  /** Delivers the outbox to merchants' endpoints; `wake()` after writing anything it should act on now. */
  webhookDispatcher: WebhookDispatcher;
  webhookDeliveries: WebhookDeliveryService;
  /** Merchants' confirmation policies (reminders, quiet hours, expiry). */
  confirmationPolicies: ConfirmationPolicyService;
  /** Reminder messages as provider callbacks see them. */
  reminders: ReminderService;
  /** The customer's confirmation page `/c/<token>` and its link (SPEC §12). */
  confirmationPages: ConfirmationPageService;
  /** SMS status reports (Twilio callbacks, test mode) and each order's SMS records (SPEC §12). */
  sms: SmsService;
  /** Sends the SMS outbox; `wake()` after queuing an SMS. */
  smsSender: SmsSender;
  /** Sends due reminders and expires unanswered orders; `wake()` to look for due work now. */
  confirmationScheduler: ConfirmationScheduler;
  /** Console accounts (the CLI manages them; the first start creates the demo user). */
  users: UserService;
  /** Console sign-in and the sessions behind the `ocs_session` cookie. */
  sessions: SessionService;
  /** The getting-started checklist, ticked from the merchant's data (SPEC §15). */
  gettingStarted: GettingStartedService;
  /** Sessions that ended (sign-out, removal, new password), on every instance: their websockets close at once. */
  sessionEnds: SessionEnds;
  /** The merchants' security history (SPEC §14); entries are written by the changes' own transactions. */
  auditLog: AuditLogService;
  /** The orders' conversations: customers' texts, automatic replies, merchant replies (SPEC §11). */
  conversations: ConversationService;
  /** Store connections (SPEC §13): connections, inbound store orders, settings. */
  stores: StoreService;
  /** Processes received store deliveries; `wake()` after storing one. */
  storeIntake: StoreIntakeWorker;
  /** Drains the store write-back outbox. */
  storeWriteback: StoreWritebackWorker;
  /** Connecting WooCommerce stores (connectWooCommerceStore). */
  wooCommerce: WooCommerceConnect;
  /** Linking Salla stores by one-time codes; null when Salla is not configured (SALLA_* settings). */
  sallaLinks: SallaLinks | null;
}
