-- Prefix search of the order list (OrderFilter.search, GET /orders?search=): one btree per searched field,
-- led by the caller's scope, with the pattern operator class so `LIKE 'prefix%'` is an index range whatever the
-- database's collation. Hand-written: Prisma 6 cannot express operator classes on btree indexes nor expression
-- indexes, so scripts/check-migrations.ts lists these three names as the allowed difference from schema.prisma.

-- CreateIndex
CREATE INDEX "orders_search_external_order_id_idx" ON "orders"("merchant_id", "mode", "external_order_id" text_pattern_ops);

-- CreateIndex
CREATE INDEX "orders_search_customer_phone_idx" ON "orders"("merchant_id", "mode", "customer_phone" text_pattern_ops);

-- CreateIndex
CREATE INDEX "orders_search_customer_name_idx" ON "orders"("merchant_id", "mode", lower("customer_name") text_pattern_ops);
