import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/** One registry per app instance (tests run several in one process). */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpDuration: new Histogram({
      name: "http_request_duration_seconds",
      help: "HTTP request duration by route and status",
      labelNames: ["method", "route", "status"] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    ordersCreated: new Counter({
      name: "orders_created_total",
      help: "Orders created, by mode and outcome of the message send",
      labelNames: ["mode", "outcome"] as const,
      registers: [registry],
    }),
    orderEvents: new Counter({
      name: "order_events_total",
      help: "Order events written to the outbox, by event name",
      labelNames: ["event"] as const,
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: "webhook_attempts_total",
      help: "Webhook delivery attempts, by outcome: succeeded, failed (a retry is scheduled) or dead (no retry left, or 410)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    webhookDeliveriesDead: new Counter({
      name: "webhook_deliveries_dead_total",
      help: "Webhook deliveries given up, by reason: exhausted (every attempt failed) or gone (the endpoint answered 410)",
      labelNames: ["reason"] as const,
      registers: [registry],
    }),
    webhookAttemptDuration: new Histogram({
      name: "webhook_attempt_duration_seconds",
      help: "Duration of webhook delivery attempts, until the response status (or the failure)",
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
      registers: [registry],
    }),
    webhookDeliveryLag: new Histogram({
      name: "webhook_delivery_lag_seconds",
      help: "Time from an order event being written to the first attempt of its delivery to an endpoint",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    remindersSent: new Counter({
      name: "reminders_sent_total",
      help: "Reminder sends of confirmation policies, by outcome: sent, rejected (the provider refused it), unavailable (no answer or transient failure), skipped (the order was no longer pending, or a later reminder superseded it)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    ordersExpired: new Counter({
      name: "orders_expired_total",
      help: "Orders moved to expired because the customer did not answer within the merchant's expireAfter",
      registers: [registry],
    }),
    webhookAttemptsInFlight: new Gauge({
      name: "webhook_attempts_in_flight",
      help: "Webhook delivery attempts under way in this instance",
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** The webhook queue as the database holds it (shared by every instance), read when /metrics is scraped. */
export interface WebhookQueueStats {
  /** Pending deliveries whose attempt is due (or under way). */
  due: number;
  /** How long the oldest due delivery nobody is attempting has waited, in seconds (0 when none). */
  oldestDueSeconds: number;
  /** How long the oldest outbox event not yet fanned out has waited, in seconds (0 when none). */
  oldestUndispatchedSeconds: number;
}

/**
 * Queue-lag gauges, computed at scrape time: they show a queue that stalled (no attempts at all), which
 * per-attempt metrics cannot. A failed read leaves the gauges at their last values.
 */
export function registerWebhookQueueGauges(metrics: Metrics, read: () => Promise<WebhookQueueStats>, cacheMs = GAUGE_CACHE_MS): void {
  // One read per GAUGE_CACHE_MS for the three gauges, however often (and by however many) /metrics is scraped.
  const stats = cachedRead(read, cacheMs);
  const gauge = (name: string, help: string, pick: (stats: WebhookQueueStats) => number) =>
    new Gauge({
      name,
      help,
      registers: [metrics.registry],
      async collect() {
        const current = await stats();
        if (current) this.set(pick(current));
      },
    });
  gauge("webhook_deliveries_due", "Pending webhook deliveries whose attempt is due or under way (all instances)", (s) => s.due);
  gauge(
    "webhook_queue_oldest_due_seconds",
    "Age of the oldest due webhook delivery that no instance is attempting (0 when none)",
    (s) => s.oldestDueSeconds,
  );
  gauge(
    "webhook_outbox_oldest_undispatched_seconds",
    "Age of the oldest order event not yet fanned out to webhook deliveries (0 when none)",
    (s) => s.oldestUndispatchedSeconds,
  );
}

/** Age of the oldest due-but-not-done reminder or expiry (all instances), read from the database at scrape time. */
export function registerScheduleGauge(metrics: Metrics, read: () => Promise<number>, cacheMs = GAUGE_CACHE_MS): void {
  const cached = cachedRead(read, cacheMs);
  new Gauge({
    name: "confirmation_schedule_oldest_due_seconds",
    help: "How long the oldest due reminder or expiry has been waiting to be worked (0 when none is due)",
    registers: [metrics.registry],
    async collect() {
      const seconds = await cached();
      if (seconds !== null) this.set(seconds);
    },
  });
}

/** Gauges read from the database are read at most this often (SPEC §14: a scrape must stay cheap). */
export const GAUGE_CACHE_MS = 10_000;

/**
 * `read` at most once per `ttlMs`: calls in between share the last answer (or the read under way). A failed read
 * answers null (the gauge keeps its value) and is not cached.
 */
export function cachedRead<T>(read: () => Promise<T>, ttlMs: number, clock: () => number = Date.now): () => Promise<T | null> {
  let last: { at: number; value: Promise<T | null> } | null = null;
  return () => {
    const now = clock();
    if (last && now - last.at < ttlMs) return last.value;
    const value = read().catch(() => {
      last = null;
      return null;
    });
    last = { at: now, value };
    return value;
  };
}
