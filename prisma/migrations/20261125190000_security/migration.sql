-- Security (SPEC §14): the audit log, room for sealed endpoint secrets, and the opt-in legacy signature header.
--
-- Endpoint secrets are sealed (AES-256-GCM envelopes, about 130 characters) by a start-up step that has the key
-- (src/domain/secrets/seal-stored-secrets.ts): SQL cannot know SECRETS_KEY, so this migration only makes room.
ALTER TABLE "webhook_endpoints" ALTER COLUMN "secret" SET DATA TYPE VARCHAR(400),
ALTER COLUMN "previous_secret" SET DATA TYPE VARCHAR(400);

-- Endpoints that exist already keep receiving x-webhook-signature-256 (their receivers may verify it); new ones
-- get only the Standard Webhooks headers unless they ask for it.
ALTER TABLE "webhook_endpoints" ADD COLUMN "legacy_signature" BOOLEAN NOT NULL DEFAULT false;
UPDATE "webhook_endpoints" SET "legacy_signature" = true;

-- CreateEnum
CREATE TYPE "AuditActorKind" AS ENUM ('user', 'api_key', 'cli');

-- CreateTable
CREATE TABLE "audit_log" (
    "id" BIGSERIAL NOT NULL,
    "merchant_id" UUID NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "actor_kind" "AuditActorKind" NOT NULL,
    "actor_id" VARCHAR(64),
    "actor_label" VARCHAR(254) NOT NULL,
    "action" VARCHAR(40) NOT NULL,
    "target" VARCHAR(64),
    "address" VARCHAR(64),

    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "audit_log_merchant_id_id_idx" ON "audit_log"("merchant_id", "id" DESC);

-- CreateIndex
CREATE INDEX "audit_log_at_idx" ON "audit_log"("at");

-- AddForeignKey
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
