import { GettingStartedService } from "./domain/onboarding/getting-started.service.ts";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Config } from "./config.ts";
import { openDatabase, type Database } from "./db/database.ts";
import { IdempotencyService } from "./domain/idempotency/idempotency.service.ts";
import { MerchantRepository } from "./domain/merchants/merchant.repository.ts";
import { MerchantService } from "./domain/merchants/merchant.service.ts";
import type { MessagingProvider } from "./domain/messaging/messaging-provider.ts";
import { OrderEventBus } from "./domain/orders/order-events.bus.ts";
import { LiveOrderEvents } from "./domain/orders/live-order-events.ts";
import { OrderRepository } from "./domain/orders/order.repository.ts";
import { OrderService } from "./domain/orders/order.service.ts";
import { OrderStatBucketsRepository } from "./domain/stats/order-stat-buckets.repository.ts";
import { StatBucketCache } from "./domain/stats/stat-bucket-cache.ts";
import { OrderStatSlots } from "./domain/stats/order-stat-slots.ts";
import { OrderStatsService } from "./domain/stats/order-stats.service.ts";
import type { AppServices } from "./app-services.ts";
import { buildHttpServer, type App } from "./http/server.ts";
import { createGraphQLSchema } from "./graphql/schema.ts";
import { startSubscriptionServer, type SubscriptionServerOptions } from "./graphql/subscriptions/websocket-server.ts";
import { drain } from "./http/in-flight.ts";
import { PublicUrls } from "./domain/public-urls.ts";
import { loadSecretBox } from "./runtime/secrets-key.ts";
import { sealPlaintextSecrets } from "./domain/secrets/stored-secrets.ts";
import { throttledWarn } from "./logger.ts";
import { createMetrics, registerScheduleGauge, registerWebhookQueueGauges, type Metrics } from "./metrics.ts";
import { ConfirmationPolicyRepository } from "./domain/confirmation/confirmation-policy.repository.ts";
import { ConfirmationPageService } from "./domain/confirmation-page/confirmation-page.service.ts";
import { ConfirmationPageRepository } from "./domain/confirmation-page/confirmation-page.repository.ts";
import { PageTokens } from "./domain/confirmation-page/page-token.ts";
import { SmsOutboxRepository } from "./domain/sms/sms-outbox.repository.ts";
import { SmsService } from "./domain/sms/sms.service.ts";
import type { SmsProvider } from "./domain/messaging/sms-provider.ts";
import { SimulatorSmsProvider } from "./providers/simulator/simulator-sms.provider.ts";
import { TwilioSmsProvider } from "./providers/twilio/twilio-sms.provider.ts";
import { SmsSender } from "./workers/sms-sender.ts";
import { ConfirmationPolicyService } from "./domain/confirmation/confirmation-policy.service.ts";
import { OrderExpiryRepository } from "./domain/confirmation/order-expiry.repository.ts";
import { OrderTaskRepository } from "./domain/confirmation/order-task.repository.ts";
import { ConfirmationScheduler } from "./workers/confirmation-scheduler.ts";
import { ReminderService } from "./domain/confirmation/reminder.service.ts";
import { SimulatedPhones } from "./providers/simulator/simulated-phones.ts";
import { SimulatorProvider } from "./providers/simulator/simulator.provider.ts";
import { SimulatorService } from "./providers/simulator/simulator.service.ts";
import { UnconfiguredProvider } from "./providers/unconfigured.provider.ts";
import { WhatsAppCloudProvider } from "./providers/whatsapp/whatsapp-cloud.provider.ts";
import { WebhookEndpointRepository } from "./domain/webhooks/webhook-endpoint.repository.ts";
import { WebhookEndpointService } from "./domain/webhooks/webhook-endpoint.service.ts";
import { WebhookDeliveryRepository } from "./domain/webhooks/webhook-delivery.repository.ts";
import { WebhookDeliveryService } from "./domain/webhooks/webhook-delivery.service.ts";
import { WebhookDispatcher } from "./workers/webhook-dispatcher.ts";
import { UserRepository } from "./domain/users/user.repository.ts";
import { UserService } from "./domain/users/user.service.ts";
import { SessionService } from "./domain/users/session.service.ts";
import { MemoryAttemptCounter, RedisAttemptCounter } from "./domain/users/attempt-counter.ts";
import { SessionEnds } from "./domain/users/session-ends.ts";
import { AuditLogService } from "./domain/audit/audit-log.service.ts";
import { AuditLogRepository } from "./domain/audit/audit-log.repository.ts";
import { abandonedSendAgeMs, startMaintenance } from "./workers/maintenance.worker.ts";
import { ConversationRepository } from "./domain/conversation/conversation.repository.ts";
import { ConversationService } from "./domain/conversation/conversation.service.ts";
import { ConversationSender } from "./workers/conversation-sender.ts";
import { buildStores } from "./domain/stores/store-composition.ts";
import { storeAuditLog } from "./domain/stores/store-audit.ts";

/** How long app.close() lets open HTTP connections end by themselves before cutting them. */
const HTTP_CLOSE_GRACE_MS = 3_000;

export interface RunningApp {
  services: AppServices;
  http: App;
  /** Stops accepting requests, then closes workers, Redis and the database, in that order. */
  close(): Promise<void>;
}

export interface CreateAppOptions {
  logger: Logger;
  /** Replaces the live-mode provider (by default the WhatsApp Cloud API when configured). */
  liveProvider?: MessagingProvider;
  /** An already-open database (tests share one per file). */
  database?: Database;
  /** Limits of the GraphQL websocket server (tests and benchmarks change them). */
  subscriptions?: SubscriptionServerOptions;
}

/** The composition root: builds every service once and wires them; transports only receive services. */
export async function createApp(config: Config, options: CreateAppOptions): Promise<RunningApp> {
  const { logger } = options;
  const database =
    options.database ??
    (await openDatabase(config.database, {
      timeouts: config.databaseTimeouts,
      onMigrated: ({ applied, modified }) => {
        if (applied.length) logger.info({ applied }, "database migrations applied");
        if (modified.length) logger.warn({ modified }, "applied migrations were edited afterwards (checksum differs)");
      },
    }));
  const secrets = loadSecretBox(config, logger);
  // Secrets written before sealing existed (or by an older instance) are sealed now: SQL migrations cannot.
  const sealed = await sealPlaintextSecrets(database.prisma, secrets);
  if (sealed.sealed) logger.info({ sealed: sealed.sealed }, "sealed stored secrets that were still in plain text");
  let listening: App | null = null;
  const publicUrls = new PublicUrls(config.publicBaseUrl, () => {
    const address = listening?.server.address();
    return address && typeof address === "object" ? address.port : null;
  });
  const redis = config.redisUrl ? connectRedis(config.redisUrl, logger) : null;
  const metrics = createMetrics();
  const bus = new OrderEventBus();
  bus.subscribe((event) => metrics.orderEvents.labels(event.envelope.event).inc());
  const liveEvents = await LiveOrderEvents.start(bus, { redis, logger });

  const phones = new SimulatedPhones();
  const simulatorProvider = new SimulatorProvider(phones);
  const liveProvider = options.liveProvider ?? liveProviderFor(config);
  const providers = { forMode: (mode: "live" | "test") => (mode === "test" ? simulatorProvider : liveProvider) };
  const orderTasks = new OrderTaskRepository(database.pool);
  // SMS (SPEC §12): the simulated phone in test mode, Twilio in live mode when SMS_PROVIDER is set.
  const simulatorSms = new SimulatorSmsProvider(phones);
  const liveSms = liveSmsProviderFor(config, publicUrls);
  const smsProviders = { forMode: (mode: "live" | "test"): SmsProvider | null => (mode === "test" ? simulatorSms : liveSms) };
  const smsModes = new Set<"live" | "test">(liveSms ? ["test", "live"] : ["test"]);
  const orderService = new OrderService(
    new OrderRepository(database.prisma, database.pool, database.prepareStatements, smsModes),
    providers,
    bus,
    logger,
    { createOutcome: (mode, outcome) => metrics.ordersCreated.labels(mode, outcome).inc() },
  );
  const webhookDeliveryRepository = new WebhookDeliveryRepository(database.prisma, database.pool, database.prepareStatements);
  registerWebhookQueueGauges(metrics, () => webhookDeliveryRepository.queueStats());
  const webhookDispatcher = new WebhookDispatcher(
    { deliveries: webhookDeliveryRepository, bus, logger, metrics, secrets },
    config.webhooks,
  );
  registerScheduleGauge(metrics, () => orderTasks.oldestDueSeconds(new Date()));
  const confirmationScheduler = new ConfirmationScheduler(
    { tasks: orderTasks, expiries: new OrderExpiryRepository(database.pool), providers, bus, logger, metrics },
    {
      maxSendsPerSecond: config.whatsapp.maxSendsPerSecond,
      // The provider's bounded retry: three attempts within its 3 s budget, each up to the timeout.
      sendTimeoutMs: config.whatsapp.timeoutMs * 3 + 3_000,
    },
  );
  const conversationRepository = new ConversationRepository(database.prisma, database.pool);
  const conversationSender = new ConversationSender({ repository: conversationRepository, providers, logger });
  const conversations = new ConversationService({
    repository: conversationRepository,
    orders: orderService,
    providers,
    bus,
    logger,
    queued: () => conversationSender.wake(),
    smsOf: (orderId) => smsOutbox.ofOrder(orderId),
  });
  const confirmationPages = new ConfirmationPageService(
    new PageTokens(secrets.current.key),
    new ConfirmationPageRepository(database.pool, database.prepareStatements),
    orderService,
    publicUrls,
  );
  const smsOutbox = new SmsOutboxRepository(database.prisma, database.pool);
  const smsSender = new SmsSender(
    { outbox: smsOutbox, providers: smsProviders, pageUrl: (orderId) => confirmationPages.urlOf(orderId), bus, logger },
    { sendTimeoutMs: config.whatsapp.timeoutMs * 3 + 3_000 },
  );
  orderService.onSmsQueued = () => smsSender.wake();
  const merchantRepository = new MerchantRepository(database.prisma);
  const userRepository = new UserRepository(database.prisma);
  const sessionEnds = new SessionEnds(redis, logger);
  await sessionEnds.start();
  // Whole buckets' figures between reads (never stale: checked against the rows' versions in each read's snapshot).
  const statBucketCache = new StatBucketCache();
  const signInAttempts = redis ? new RedisAttemptCounter(redis, new MemoryAttemptCounter()) : new MemoryAttemptCounter();
  const stores = buildStores({ config, database, secrets, publicUrls, orderService, bus, logger, audit: storeAuditLog() });
  const services: AppServices = {
    config,
    database,
    redis,
    metrics,
    secrets,
    publicUrls,
    bus,
    liveEvents,
    merchantService: new MerchantService(merchantRepository),
    orderService,
    orderStats: new OrderStatsService(new OrderStatBucketsRepository(database.pool, statBucketCache, database.prepareStatements)),
    statBucketCache,
    orderStatSlots: new OrderStatSlots(database.pool),
    idempotency: new IdempotencyService(database.prisma, abandonedSendAgeMs(config.whatsapp.timeoutMs)),
    phones,
    simulator: new SimulatorService({ orders: orderService, phones, bus, conversations }),
    webhookEndpoints: new WebhookEndpointService(new WebhookEndpointRepository(database.prisma), {
      allowPrivateUrls: config.webhooks.allowPrivateUrls,
      dnsServers: config.webhooks.dnsServers,
      secrets,
    }),
    webhookDispatcher,
    webhookDeliveries: new WebhookDeliveryService(webhookDeliveryRepository, {
      retryRequested: () => webhookDispatcher.wake(),
    }),
    confirmationPolicies: new ConfirmationPolicyService(
      new ConfirmationPolicyRepository(database.pool),
      config.confirmation.minDelayMs,
    ),
    reminders: new ReminderService(orderTasks),
    confirmationPages,
    sms: new SmsService(smsOutbox, orderService, bus),
    smsSender,
    confirmationScheduler,
    users: new UserService(userRepository, (merchantId) => merchantRepository.exists(merchantId), undefined, (ids) => sessionEnds.ended(ids)),
    sessionEnds,
    auditLog: new AuditLogService(new AuditLogRepository(database.prisma)),
    sessions: new SessionService(
      userRepository,
      signInAttempts,
      {
        idleTimeoutMs: config.console.sessionIdleTimeoutMs,
        maxAgeMs: config.console.sessionMaxAgeMs,
        signInRateLimit: config.console.signInRateLimit,
      },
      logger,
      undefined,
      sessionEnds,
    ),
    gettingStarted: new GettingStartedService(database.pool),
    conversations,
    stores: stores.service,
    storeIntake: stores.intake,
    storeWriteback: stores.writeback,
    wooCommerce: stores.wooCommerce,
    sallaLinks: stores.sallaLinks,
  };
  const graphqlSchema = createGraphQLSchema(services);
  const http = await buildHttpServer(services, config, logger, graphqlSchema, stores.routesFor(services));
  listening = http;
  // graphql-transport-ws on the same port and path as HTTP /graphql (Fastify ignores upgrade requests).
  const subscriptions = startSubscriptionServer(http.server, services, graphqlSchema, logger, options.subscriptions);
  const maintenance = startMaintenance(services, logger);
  webhookDispatcher.start();
  confirmationScheduler.start();
  conversationSender.start();
  stores.start();
  smsSender.start();

  return {
    services,
    http,
    async close() {
      // Websockets first (1001): an open upgraded socket would keep the HTTP server from closing.
      await subscriptions.close();
      // The dispatcher winds down alongside the HTTP server: attempts under way finish or are handed back.
      const dispatcherStopped = webhookDispatcher.stop();
      const schedulerStopped = confirmationScheduler.stop();
      const senderStopped = conversationSender.stop();
      const storesStopped = stores.stop();
      const smsStopped = smsSender.stop();
      // Connections still open after a grace period (a keep-alive socket Node does not count as idle, a client
      // that never finishes its request) are cut, so shutdown never waits on a client; handlers still running
      // are waited for below.
      const cut = setTimeout(() => http.server.closeAllConnections(), HTTP_CLOSE_GRACE_MS);
      await http.close();
      clearTimeout(cut);
      // Handlers of clients that went away still run: let them finish before their database goes.
      await drain("shutdown", http.inFlight, 10_000, (message) => logger.warn(message));
      await dispatcherStopped;
      await schedulerStopped;
      await senderStopped;
      await storesStopped;
      await smsStopped;
      await maintenance.stop();
      await liveEvents.close();
      sessionEnds.close();
      redis?.disconnect();
      if (!options.database) await database.close();
    },
  };
}

/** Live mode sends through the WhatsApp Cloud API once its sender is configured; test mode never does. */
function liveProviderFor(config: Config): MessagingProvider {
  const { apiUrl, phoneNumberId, accessToken, templateName, reminderTemplateName, timeoutMs } = config.whatsapp;
  if (!phoneNumberId || !accessToken) return new UnconfiguredProvider();
  return new WhatsAppCloudProvider({ apiUrl, phoneNumberId, accessToken, templateName, reminderTemplateName, timeoutMs });
}

/** Live SMS through Twilio once SMS_PROVIDER=twilio is configured; null otherwise (no live fallback). */
function liveSmsProviderFor(config: Config, publicUrls: PublicUrls): SmsProvider | null {
  const twilio = config.sms.twilio;
  if (!twilio) return null;
  return new TwilioSmsProvider({
    ...twilio,
    statusCallbackUrl: () => publicUrls.to("/webhooks/twilio"),
    timeoutMs: config.whatsapp.timeoutMs,
  });
}

/** Redis errors are logged (at most every 30 s while it stays down), never thrown at the process. */
function connectRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 2 });
  const warn = throttledWarn(logger);
  redis.on("error", (error: Error) => {
    warn({ err: error }, "redis unavailable; rate limits are not counted and events are not relayed meanwhile");
  });
  return redis;
}
