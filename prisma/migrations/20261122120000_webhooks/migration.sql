-- Merchant webhooks: endpoints, one delivery per (endpoint, event) with its attempt log, and the index the
-- dispatcher's fan-out reads undispatched outbox events by.
-- CreateEnum
CREATE TYPE "WebhookDeliveryStatus" AS ENUM ('pending', 'succeeded', 'dead');

-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "mode" "KeyMode" NOT NULL,
    "url" VARCHAR(2048) NOT NULL,
    "description" VARCHAR(500),
    "events" VARCHAR(40)[],
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabled_reason" VARCHAR(300),
    "secret" VARCHAR(120) NOT NULL,
    "previous_secret" VARCHAR(120),
    "previous_secret_expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "mode" "KeyMode" NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "event_type" VARCHAR(40) NOT NULL,
    "event_sequence" BIGINT NOT NULL,
    "order_id" UUID NOT NULL,
    "status" "WebhookDeliveryStatus" NOT NULL DEFAULT 'pending',
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "max_attempts" INTEGER NOT NULL,
    "next_attempt_at" TIMESTAMPTZ(3),
    "lease_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_attempts" (
    "id" UUID NOT NULL,
    "delivery_id" UUID NOT NULL,
    "attempted_at" TIMESTAMPTZ(3) NOT NULL,
    "status_code" INTEGER,
    "duration_ms" INTEGER NOT NULL,
    "error" VARCHAR(500),

    CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "order_events_dispatched_at_sequence_idx" ON "order_events"("dispatched_at", "sequence");

-- CreateIndex
CREATE INDEX "webhook_endpoints_merchant_id_mode_created_at_id_idx" ON "webhook_endpoints"("merchant_id", "mode", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_endpoint_id_next_attempt_at_event_idx" ON "webhook_deliveries"("status", "endpoint_id", "next_attempt_at", "event_sequence");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpoint_id_order_id_event_sequence_idx" ON "webhook_deliveries"("endpoint_id", "order_id", "event_sequence");

-- CreateIndex
CREATE INDEX "webhook_deliveries_merchant_id_mode_created_at_id_idx" ON "webhook_deliveries"("merchant_id", "mode", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "webhook_deliveries_event_id_idx" ON "webhook_deliveries"("event_id");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_endpoint_id_event_id_key" ON "webhook_deliveries"("endpoint_id", "event_id");

-- CreateIndex
CREATE INDEX "webhook_attempts_delivery_id_attempted_at_idx" ON "webhook_attempts"("delivery_id", "attempted_at");

-- AddForeignKey
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "order_events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;
