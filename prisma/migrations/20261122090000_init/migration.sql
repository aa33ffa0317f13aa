-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "KeyMode" AS ENUM ('live', 'test');

-- CreateEnum
CREATE TYPE "OrderStatus" AS ENUM ('pending', 'confirmed', 'canceled', 'failed');

-- CreateEnum
CREATE TYPE "CustomerAction" AS ENUM ('approved', 'canceled');

-- CreateEnum
CREATE TYPE "DeliveryStatus" AS ENUM ('sent', 'delivered', 'read', 'failed');

-- CreateEnum
CREATE TYPE "SendState" AS ENUM ('sending', 'accepted', 'rejected');

-- CreateTable
CREATE TABLE "merchants" (
    "id" UUID NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "merchants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "mode" "KeyMode" NOT NULL,
    "prefix" VARCHAR(24) NOT NULL,
    "hash" VARCHAR(64) NOT NULL,
    "name" VARCHAR(200),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "orders" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "mode" "KeyMode" NOT NULL,
    "external_order_id" VARCHAR(100) NOT NULL,
    "customer_name" VARCHAR(120) NOT NULL,
    "customer_phone" VARCHAR(15) NOT NULL,
    "customer_address" VARCHAR(500),
    "subtotal" DECIMAL(18,4) NOT NULL,
    "shipping_cost" DECIMAL(18,4) NOT NULL,
    "total_cost" DECIMAL(18,4) NOT NULL,
    "currency" VARCHAR(3) NOT NULL,
    "note" VARCHAR(1000),
    "language" VARCHAR(5) NOT NULL DEFAULT 'en',
    "status" "OrderStatus" NOT NULL DEFAULT 'pending',
    "customer_action" "CustomerAction",
    "delivery_status" "DeliveryStatus",
    "failure_reason" TEXT,
    "error_code" INTEGER,
    "send_state" "SendState" NOT NULL DEFAULT 'sending',
    "provider_message_id" VARCHAR(255),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "orders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "order_items" (
    "id" UUID NOT NULL,
    "order_id" UUID NOT NULL,
    "position" SMALLINT NOT NULL,
    "product_name" VARCHAR(200) NOT NULL,
    "variant_name" VARCHAR(200),
    "quantity" DECIMAL(18,4) NOT NULL,
    "unit_price" DECIMAL(18,4) NOT NULL,
    "total_price" DECIMAL(18,4) NOT NULL,

    CONSTRAINT "order_items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "order_events" (
    "id" UUID NOT NULL,
    "sequence" BIGSERIAL NOT NULL,
    "merchant_id" UUID NOT NULL,
    "order_id" UUID NOT NULL,
    "type" VARCHAR(40) NOT NULL,
    "payload" JSON NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "dispatched_at" TIMESTAMPTZ(3),

    CONSTRAINT "order_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_records" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "mode" "KeyMode" NOT NULL,
    "key" VARCHAR(255) NOT NULL,
    "method" VARCHAR(10) NOT NULL,
    "path" VARCHAR(500) NOT NULL,
    "request_hash" VARCHAR(64) NOT NULL,
    "status_code" INTEGER,
    "response_body" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

-- CreateIndex
CREATE INDEX "api_keys_merchant_id_created_at_idx" ON "api_keys"("merchant_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "orders_provider_message_id_key" ON "orders"("provider_message_id");

-- CreateIndex
CREATE INDEX "orders_merchant_id_mode_created_at_id_idx" ON "orders"("merchant_id", "mode", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "orders_merchant_id_mode_status_created_at_id_idx" ON "orders"("merchant_id", "mode", "status", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "orders_merchant_id_mode_customer_phone_created_at_idx" ON "orders"("merchant_id", "mode", "customer_phone", "created_at" DESC);

-- CreateIndex
CREATE INDEX "orders_send_state_created_at_idx" ON "orders"("send_state", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "orders_merchant_id_mode_external_order_id_key" ON "orders"("merchant_id", "mode", "external_order_id");

-- CreateIndex
CREATE UNIQUE INDEX "order_items_order_id_position_key" ON "order_items"("order_id", "position");

-- CreateIndex
CREATE INDEX "order_events_order_id_sequence_idx" ON "order_events"("order_id", "sequence");

-- CreateIndex
CREATE INDEX "order_events_merchant_id_created_at_idx" ON "order_events"("merchant_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "order_events_sequence_key" ON "order_events"("sequence");

-- CreateIndex
CREATE INDEX "idempotency_records_expires_at_idx" ON "idempotency_records"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "idempotency_records_merchant_id_mode_key_key" ON "idempotency_records"("merchant_id", "mode", "key");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "orders" ADD CONSTRAINT "orders_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "order_items" ADD CONSTRAINT "order_items_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "order_events" ADD CONSTRAINT "order_events_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "order_events" ADD CONSTRAINT "order_events_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "idempotency_records" ADD CONSTRAINT "idempotency_records_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

