-- SMS fallback (SPEC §12): the policy's codes, each order's copy of them, and the durable SMS outbox.
-- AlterTable
ALTER TABLE "confirmation_policies" ADD COLUMN "sms_fallback_codes" INTEGER[];

-- AlterTable
ALTER TABLE "orders" ADD COLUMN "sms_fallback_codes" INTEGER[];

-- CreateEnum
CREATE TYPE "SmsState" AS ENUM ('scheduled', 'claimed', 'sending', 'sent', 'delivered', 'failed', 'skipped');

-- CreateTable
CREATE TABLE "sms_messages" (
    "id" UUID NOT NULL,
    "order_id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "mode" "KeyMode" NOT NULL,
    "kind" VARCHAR(16) NOT NULL,
    "position" SMALLINT NOT NULL,
    "state" "SmsState" NOT NULL DEFAULT 'scheduled',
    "due_at" TIMESTAMPTZ(3) NOT NULL,
    "lease_until" TIMESTAMPTZ(3),
    "to_phone" VARCHAR(15) NOT NULL,
    "body" VARCHAR(1000),
    "segments" SMALLINT,
    "provider" VARCHAR(20),
    "provider_message_id" VARCHAR(64),
    "whatsapp_error_code" INTEGER,
    "whatsapp_failure_reason" VARCHAR(1000),
    "error_code" INTEGER,
    "failure_reason" VARCHAR(1000),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "sent_at" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),
    "failed_at" TIMESTAMPTZ(3),

    CONSTRAINT "sms_messages_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "sms_messages_provider_message_id_key" ON "sms_messages"("provider_message_id");

-- CreateIndex
CREATE INDEX "sms_messages_state_due_at_idx" ON "sms_messages"("state", "due_at");

-- CreateIndex
CREATE INDEX "sms_messages_state_lease_until_idx" ON "sms_messages"("state", "lease_until");

-- CreateIndex
CREATE UNIQUE INDEX "sms_messages_order_id_kind_position_key" ON "sms_messages"("order_id", "kind", "position");

-- AddForeignKey
ALTER TABLE "sms_messages" ADD CONSTRAINT "sms_messages_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;
