-- Provider callbacks already applied: a repeat of the same callback is a no-op.
-- CreateTable
CREATE TABLE "provider_events" (
    "provider" VARCHAR(20) NOT NULL,
    "key" VARCHAR(300) NOT NULL,
    "order_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "provider_events_pkey" PRIMARY KEY ("provider","key")
);

-- CreateIndex
CREATE INDEX "provider_events_created_at_idx" ON "provider_events"("created_at");
