-- The order's conversation (SPEC §11): messages sent and received besides the confirmation and its reminders
-- (those are read from `orders` and `order_tasks`), and per-order conversation state (needs a reply, the one
-- automatic reply). A customer's text without `context` finds the phone's pending orders of every merchant:
-- orders_pending_customer_phone_idx holds only pending, visible orders, so it stays small and costs the create
-- path one small index entry.
-- CreateEnum
CREATE TYPE "MessageDirection" AS ENUM ('inbound', 'outbound');

-- CreateEnum
CREATE TYPE "MessageSender" AS ENUM ('customer', 'service', 'merchant');

-- CreateEnum
CREATE TYPE "MessageKind" AS ENUM ('confirmation', 'reminder', 'text', 'buttons', 'list', 'sms', 'tap');

-- CreateTable
CREATE TABLE "order_messages" (
    "id" UUID NOT NULL,
    "order_id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "mode" "KeyMode" NOT NULL,
    "direction" "MessageDirection" NOT NULL,
    "sender" "MessageSender" NOT NULL,
    "kind" "MessageKind" NOT NULL,
    "text" VARCHAR(4096),
    "status" VARCHAR(12),
    "provider_message_id" VARCHAR(255),
    "payload" JSONB,
    "error_code" INTEGER,
    "failure_reason" VARCHAR(1000),
    "lease_until" TIMESTAMPTZ(3),
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "order_messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "order_conversations" (
    "order_id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "mode" "KeyMode" NOT NULL,
    "needs_reply" BOOLEAN NOT NULL DEFAULT false,
    "auto_reply_at" TIMESTAMPTZ(3),
    "last_customer_message_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "order_conversations_pkey" PRIMARY KEY ("order_id")
);

-- CreateIndex
CREATE INDEX "order_messages_order_id_at_idx" ON "order_messages"("order_id", "at");

-- CreateIndex
CREATE INDEX "order_messages_provider_message_id_idx" ON "order_messages"("provider_message_id");

-- CreateIndex
CREATE INDEX "order_messages_status_at_idx" ON "order_messages"("status", "at");

-- CreateIndex
CREATE INDEX "order_conversations_merchant_id_mode_needs_reply_idx" ON "order_conversations"("merchant_id", "mode", "needs_reply");

-- AddForeignKey
ALTER TABLE "order_messages" ADD CONSTRAINT "order_messages_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "order_conversations" ADD CONSTRAINT "order_conversations_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Written by hand: Prisma 6 cannot express a partial index (scripts/check-migrations.ts allows it).
CREATE INDEX "orders_pending_customer_phone_idx" ON "orders"("customer_phone") WHERE status = 'pending' AND send_state <> 'sending';
