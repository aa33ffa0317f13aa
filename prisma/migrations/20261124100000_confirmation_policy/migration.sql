-- Confirmation policy (SPEC §9): per-merchant reminders/expiry, the durable schedule of each order's reminders
-- and expiry, the order timeline (SPEC §10), and the shared send throttle for reminder sends.
-- CreateEnum
CREATE TYPE "OrderTaskKind" AS ENUM ('reminder', 'expiry');

-- CreateEnum
CREATE TYPE "OrderTaskState" AS ENUM ('scheduled', 'claimed', 'sending', 'sent', 'failed', 'done', 'skipped', 'canceled');

-- AlterEnum
ALTER TYPE "OrderStatus" ADD VALUE 'expired';

-- CreateTable
CREATE TABLE "confirmation_policies" (
    "merchant_id" UUID NOT NULL,
    "mode" "KeyMode" NOT NULL,
    "reminders" VARCHAR(16)[],
    "expire_after" VARCHAR(16),
    "quiet_hours_start" VARCHAR(5),
    "quiet_hours_end" VARCHAR(5),
    "quiet_hours_time_zone" VARCHAR(64),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "confirmation_policies_pkey" PRIMARY KEY ("merchant_id","mode")
);

-- CreateTable
CREATE TABLE "order_tasks" (
    "id" UUID NOT NULL,
    "order_id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "mode" "KeyMode" NOT NULL,
    "kind" "OrderTaskKind" NOT NULL,
    "position" SMALLINT NOT NULL,
    "state" "OrderTaskState" NOT NULL DEFAULT 'scheduled',
    "due_at" TIMESTAMPTZ(3) NOT NULL,
    "lease_until" TIMESTAMPTZ(3),
    "provider_message_id" VARCHAR(255),
    "error_code" INTEGER,
    "failure_reason" VARCHAR(1000),
    "finished_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "order_tasks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "order_timeline" (
    "id" BIGSERIAL NOT NULL,
    "order_id" UUID NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "kind" VARCHAR(40) NOT NULL,
    "source" VARCHAR(20) NOT NULL,
    "detail" JSONB,

    CONSTRAINT "order_timeline_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "send_throttles" (
    "name" VARCHAR(40) NOT NULL,
    "tokens" DOUBLE PRECISION NOT NULL,
    "refilled_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "send_throttles_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE UNIQUE INDEX "order_tasks_provider_message_id_key" ON "order_tasks"("provider_message_id");

-- CreateIndex
CREATE INDEX "order_tasks_state_due_at_idx" ON "order_tasks"("state", "due_at");

-- CreateIndex
CREATE INDEX "order_tasks_state_lease_until_idx" ON "order_tasks"("state", "lease_until");

-- CreateIndex
CREATE UNIQUE INDEX "order_tasks_order_id_kind_position_key" ON "order_tasks"("order_id", "kind", "position");

-- CreateIndex
CREATE INDEX "order_timeline_order_id_id_idx" ON "order_timeline"("order_id", "id");

-- AddForeignKey
ALTER TABLE "confirmation_policies" ADD CONSTRAINT "confirmation_policies_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "order_tasks" ADD CONSTRAINT "order_tasks_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "order_timeline" ADD CONSTRAINT "order_timeline_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Endpoints that receive every event keep doing so: order.expired (opt-in through a confirmation policy) joins
-- their list. Endpoints with a narrower filter are left as they are.
UPDATE "webhook_endpoints" SET "events" = "events" || ARRAY['order.expired']::VARCHAR(40)[]
WHERE "events" @> ARRAY['order.created', 'order.confirmed', 'order.canceled', 'order.failed']::VARCHAR(40)[];
