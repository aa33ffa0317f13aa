-- The follow-up desk (SPEC §15): the console role `agent`, and the policy's `followUpAfter` (default 2h).
-- The follow-up queue itself needs no new index: it is a range of the existing
-- orders_merchant_id_mode_status_created_at_id_idx (status = 'pending' AND created_at <= now - followUpAfter).
ALTER TYPE "UserRole" ADD VALUE 'agent';

ALTER TABLE "confirmation_policies" ADD COLUMN "follow_up_after" VARCHAR(16) NOT NULL DEFAULT '2h';
