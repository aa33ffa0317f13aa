-- Statistics rows written from several database sessions are spread over slots (migration 20261125250000); the
-- maintenance worker folds the slots of buckets that have closed into slot 0 (src/domain/stats/order-stat-slots.ts),
-- so a long range reads one row per bucket. These partial indexes find the spread rows without reading the rest.
CREATE INDEX order_stat_buckets_spread_idx ON order_stat_buckets (start) WHERE slot <> 0;
CREATE INDEX order_stat_failures_spread_idx ON order_stat_failures (start) WHERE slot <> 0;
