-- CreateEnum
CREATE TYPE "StorePlatform" AS ENUM ('shopify', 'woocommerce', 'salla');

-- CreateEnum
CREATE TYPE "StoreConnectionStatus" AS ENUM ('active', 'disconnected', 'error');

-- CreateTable
CREATE TABLE "store_connections" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "mode" "KeyMode" NOT NULL,
    "platform" "StorePlatform" NOT NULL,
    "shop" VARCHAR(255) NOT NULL,
    "active_shop" VARCHAR(255),
    "status" "StoreConnectionStatus" NOT NULL DEFAULT 'active',
    "settings" JSONB NOT NULL,
    "credentials" TEXT,
    "token_expires_at" TIMESTAMPTZ(3),
    "throttled_until" TIMESTAMPTZ(3),
    "refresh_lease_until" TIMESTAMPTZ(3),
    "last_order_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "store_connections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "store_activity" (
    "id" UUID NOT NULL,
    "connection_id" UUID NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "kind" VARCHAR(40) NOT NULL,
    "store_order_id" VARCHAR(64),
    "order_id" UUID,
    "detail" JSONB NOT NULL,

    CONSTRAINT "store_activity_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "store_deliveries" (
    "id" UUID NOT NULL,
    "platform" "StorePlatform" NOT NULL,
    "webhook_id" VARCHAR(255) NOT NULL,
    "topic" VARCHAR(100) NOT NULL,
    "shop" VARCHAR(255) NOT NULL,
    "connection_id" UUID,
    "status" VARCHAR(16) NOT NULL,
    "payload" TEXT,
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL,
    "lease_until" TIMESTAMPTZ(3),
    "received_at" TIMESTAMPTZ(3) NOT NULL,
    "processed_at" TIMESTAMPTZ(3),

    CONSTRAINT "store_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "store_orders" (
    "id" UUID NOT NULL,
    "connection_id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "mode" "KeyMode" NOT NULL,
    "store_order_id" VARCHAR(64) NOT NULL,
    "external_order_id" VARCHAR(100) NOT NULL,
    "order_id" UUID,
    "delivery_id" UUID NOT NULL,
    "skipped" VARCHAR(40),
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "store_orders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "store_writebacks" (
    "id" UUID NOT NULL,
    "sequence" BIGSERIAL NOT NULL,
    "connection_id" UUID NOT NULL,
    "order_id" UUID NOT NULL,
    "store_order_id" VARCHAR(64) NOT NULL,
    "outcome" VARCHAR(16) NOT NULL,
    "event_id" UUID,
    "status" VARCHAR(16) NOT NULL DEFAULT 'pending',
    "done_effects" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lease_until" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "store_writebacks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "store_installs" (
    "state" VARCHAR(64) NOT NULL,
    "session_hash" VARCHAR(64) NOT NULL,
    "merchant_id" UUID NOT NULL,
    "mode" "KeyMode" NOT NULL,
    "platform" "StorePlatform" NOT NULL,
    "shop" VARCHAR(255) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "store_installs_pkey" PRIMARY KEY ("state")
);

-- CreateIndex
CREATE UNIQUE INDEX "store_connections_merchant_id_mode_platform_shop_key" ON "store_connections"("merchant_id", "mode", "platform", "shop");

-- CreateIndex
CREATE UNIQUE INDEX "store_connections_platform_active_shop_key" ON "store_connections"("platform", "active_shop");

-- CreateIndex
CREATE INDEX "store_activity_connection_id_at_idx" ON "store_activity"("connection_id", "at" DESC);

-- CreateIndex
CREATE INDEX "store_deliveries_status_next_attempt_at_idx" ON "store_deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "store_deliveries_received_at_idx" ON "store_deliveries"("received_at");

-- CreateIndex
CREATE UNIQUE INDEX "store_deliveries_platform_webhook_id_key" ON "store_deliveries"("platform", "webhook_id");

-- CreateIndex
CREATE UNIQUE INDEX "store_orders_connection_id_store_order_id_key" ON "store_orders"("connection_id", "store_order_id");

-- CreateIndex
CREATE UNIQUE INDEX "store_orders_merchant_id_mode_external_order_id_key" ON "store_orders"("merchant_id", "mode", "external_order_id");

-- CreateIndex
CREATE INDEX "store_writebacks_status_next_attempt_at_idx" ON "store_writebacks"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "store_writebacks_order_id_sequence_idx" ON "store_writebacks"("order_id", "sequence");

-- CreateIndex
CREATE UNIQUE INDEX "store_writebacks_sequence_key" ON "store_writebacks"("sequence");

-- CreateIndex
CREATE UNIQUE INDEX "store_writebacks_order_id_outcome_key" ON "store_writebacks"("order_id", "outcome");

-- CreateIndex
CREATE INDEX "store_installs_expires_at_idx" ON "store_installs"("expires_at");

-- AddForeignKey
ALTER TABLE "store_connections" ADD CONSTRAINT "store_connections_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "store_activity" ADD CONSTRAINT "store_activity_connection_id_fkey" FOREIGN KEY ("connection_id") REFERENCES "store_connections"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "store_orders" ADD CONSTRAINT "store_orders_connection_id_fkey" FOREIGN KEY ("connection_id") REFERENCES "store_connections"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "store_writebacks" ADD CONSTRAINT "store_writebacks_connection_id_fkey" FOREIGN KEY ("connection_id") REFERENCES "store_connections"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Write-back intents (SPEC §13), written in the transaction of the order's state change: every order event of an
-- order that came from a connected store adds one row per outcome to the write-back outbox, which the store
-- write-back worker drains (src/workers/store-writeback.worker.ts). A merchant with no store connection pays one
-- index probe per event. `order.created` adds the fulfillment hold only when the connection's settings ask for it.
CREATE OR REPLACE FUNCTION store_writeback_intent() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM store_connections c WHERE c.merchant_id = NEW.merchant_id) THEN
    RETURN NULL;
  END IF;
  INSERT INTO store_writebacks (id, connection_id, order_id, store_order_id, outcome, event_id, status, next_attempt_at,
    created_at, updated_at)
  SELECT gen_random_uuid(), so.connection_id, NEW.order_id, so.store_order_id,
    CASE NEW.type WHEN 'order.created' THEN 'hold' WHEN 'order.confirmed' THEN 'confirmed'
      WHEN 'order.canceled' THEN 'canceled' WHEN 'order.expired' THEN 'expired' ELSE 'failed' END,
    NEW.id, 'pending', now(), now(), now()
  FROM orders o
  JOIN store_orders so ON so.merchant_id = o.merchant_id AND so.mode = o.mode AND so.external_order_id = o.external_order_id
  JOIN store_connections c ON c.id = so.connection_id AND c.status = 'active'
  WHERE o.id = NEW.order_id
    AND (NEW.type <> 'order.created' OR coalesce((c.settings ->> 'holdFulfillmentUntilConfirmed')::boolean, false))
  ON CONFLICT (order_id, outcome) DO NOTHING;
  RETURN NULL;
END
$$;

CREATE TRIGGER order_events_store_writeback AFTER INSERT ON order_events
  FOR EACH ROW WHEN (NEW.type IN ('order.created', 'order.confirmed', 'order.canceled', 'order.expired', 'order.failed'))
  EXECUTE FUNCTION store_writeback_intent();
