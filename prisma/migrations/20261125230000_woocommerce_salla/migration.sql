-- CreateTable
CREATE TABLE "salla_link_codes" (
    "code_hash" VARCHAR(64) NOT NULL,
    "merchant_id" UUID NOT NULL,
    "mode" "KeyMode" NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "salla_link_codes_pkey" PRIMARY KEY ("code_hash")
);

-- CreateTable
CREATE TABLE "salla_pending_installs" (
    "salla_merchant_id" VARCHAR(32) NOT NULL,
    "credentials" TEXT,
    "link_merchant_id" UUID,
    "link_mode" "KeyMode",
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "salla_pending_installs_pkey" PRIMARY KEY ("salla_merchant_id")
);

-- CreateIndex
CREATE INDEX "salla_link_codes_expires_at_idx" ON "salla_link_codes"("expires_at");

-- CreateIndex
CREATE INDEX "salla_link_codes_merchant_id_idx" ON "salla_link_codes"("merchant_id");

-- CreateIndex
CREATE INDEX "salla_pending_installs_updated_at_idx" ON "salla_pending_installs"("updated_at");
