import type pg from "pg";
import type { MerchantScope } from "../orders/order.repository.ts";
import { policyOfRow } from "../orders/order.repository.ts";
import { DEFAULT_FOLLOW_UP_AFTER, EMPTY_POLICY, type StoredPolicy } from "./confirmation-policy.ts";

/** One row per merchant and mode; no row is the empty default policy. */
export class ConfirmationPolicyRepository {
  constructor(private readonly pool: pg.Pool) {}

  async get(scope: MerchantScope): Promise<StoredPolicy> {
    const { rows } = await this.pool.query(
      `SELECT reminders, expire_after, quiet_hours_start, quiet_hours_end, quiet_hours_time_zone, sms_fallback_codes,
         follow_up_after
       FROM confirmation_policies WHERE merchant_id = $1 AND mode = $2::"KeyMode"`,
      [scope.merchantId, scope.mode],
    );
    const followUpAfter: string = rows[0]?.follow_up_after ?? DEFAULT_FOLLOW_UP_AFTER;
    return { ...(rows[0] ? policyOfRow(rows[0]) : EMPTY_POLICY), followUpAfter };
  }

  /** The follow-up delay alone (the follow-up queue reads it on every page). */
  async followUpAfter(scope: MerchantScope): Promise<string> {
    const { rows } = await this.pool.query<{ follow_up_after: string }>(
      `SELECT follow_up_after FROM confirmation_policies WHERE merchant_id = $1 AND mode = $2::"KeyMode"`,
      [scope.merchantId, scope.mode],
    );
    return rows[0]?.follow_up_after ?? DEFAULT_FOLLOW_UP_AFTER;
  }

  async put(scope: MerchantScope, policy: StoredPolicy, now: Date): Promise<void> {
    await this.pool.query(
      `INSERT INTO confirmation_policies (merchant_id, mode, reminders, expire_after, quiet_hours_start, quiet_hours_end,
         quiet_hours_time_zone, updated_at, sms_fallback_codes, follow_up_after)
       VALUES ($1, $2::"KeyMode", $3::varchar[], $4, $5, $6, $7, $8, $9::int[], $10)
       ON CONFLICT (merchant_id, mode) DO UPDATE SET reminders = EXCLUDED.reminders, expire_after = EXCLUDED.expire_after,
         quiet_hours_start = EXCLUDED.quiet_hours_start, quiet_hours_end = EXCLUDED.quiet_hours_end,
         quiet_hours_time_zone = EXCLUDED.quiet_hours_time_zone, updated_at = EXCLUDED.updated_at,
         sms_fallback_codes = EXCLUDED.sms_fallback_codes, follow_up_after = EXCLUDED.follow_up_after`,
      [
        scope.merchantId, scope.mode, policy.reminders, policy.expireAfter, policy.quietHours?.start ?? null,
        policy.quietHours?.end ?? null, policy.quietHours?.timeZone ?? null, now, policy.smsFallback?.errorCodes ?? null,
        policy.followUpAfter,
      ],
    );
  }
}
