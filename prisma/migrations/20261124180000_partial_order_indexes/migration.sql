-- An order is first stored in the `sending` state (it claims its externalOrderId before the message is sent), then
-- updated once the provider answered. That update changes indexed columns (send_state, provider_message_id,
-- created_at), so every index of `orders` got an entry for the invisible `sending` row and another for the visible
-- one. The list, filter and search indexes serve only visible orders (every query through them says
-- `send_state <> 'sending'`, see order-filter-sql.ts and the stats): they now hold visible orders only, and the
-- abandoned-send sweep's index holds only the orders still being sent. pg_stat_statements under bench:rest's POST
-- load: the claim statement went from 20.2 to 15.0 WAL records (2,124 to 1,435 WAL bytes) and from 0.24 to 0.19-0.21 ms;
-- bench:rest POST: PostgreSQL CPU per order from 1.53-1.73× the baseline's to 1.36-1.40×.
--
-- Not the name search's index on lower(customer_name): the planner takes the statistics of an expression only from
-- a full index (it ignores a partial index's, which may not describe the whole table). Without them it guessed
-- 1,040 matches for a prefix that has none and walked the newest-first index instead (a search page at 200,000
-- orders: 17 ms instead of 1 ms).
--
-- Prisma 6 cannot express partial indexes: these are written here by hand, and scripts/check-migrations.ts allows
-- exactly them. Each is rebuilt under the same name (the sweep's under a new one), in this migration's transaction.
DROP INDEX "orders_merchant_id_mode_created_at_id_idx";
CREATE INDEX "orders_merchant_id_mode_created_at_id_idx" ON "orders"("merchant_id", "mode", "created_at" DESC, "id" DESC)
  WHERE "send_state" <> 'sending';

DROP INDEX "orders_merchant_id_mode_status_created_at_id_idx";
CREATE INDEX "orders_merchant_id_mode_status_created_at_id_idx" ON "orders"("merchant_id", "mode", "status", "created_at" DESC, "id" DESC)
  WHERE "send_state" <> 'sending';

DROP INDEX "orders_merchant_id_mode_customer_phone_created_at_idx";
CREATE INDEX "orders_merchant_id_mode_customer_phone_created_at_idx" ON "orders"("merchant_id", "mode", "customer_phone", "created_at" DESC)
  WHERE "send_state" <> 'sending';

DROP INDEX "orders_search_external_order_id_idx";
CREATE INDEX "orders_search_external_order_id_idx" ON "orders"("merchant_id", "mode", "external_order_id" text_pattern_ops)
  WHERE "send_state" <> 'sending';

DROP INDEX "orders_search_customer_phone_idx";
CREATE INDEX "orders_search_customer_phone_idx" ON "orders"("merchant_id", "mode", "customer_phone" text_pattern_ops)
  WHERE "send_state" <> 'sending';

-- The sweep (`send_state = 'sending' AND created_at < $1`) needs only the few orders being sent.
DROP INDEX "orders_send_state_created_at_idx";
CREATE INDEX "orders_sending_created_at_idx" ON "orders"("created_at") WHERE "send_state" = 'sending';
