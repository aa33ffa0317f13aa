import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";

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
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
