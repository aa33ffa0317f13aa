import type pg from "pg";
import type { MerchantScope } from "../orders/order.repository.ts";
import { policyOfRow } from "../orders/order.repository.ts";
import { EMPTY_POLICY, type ConfirmationPolicy } from "./confirmation-policy.ts";

/** One row per merchant and mode; no row is the empty default policy. */
export class ConfirmationPolicyRepository {
  constructor(private readonly pool: pg.Pool) {}

  async get(scope: MerchantScope): Promise<ConfirmationPolicy> {
    const { rows } = await this.pool.query(
      `SELECT reminders, expire_after, quiet_hours_start, quiet_hours_end, quiet_hours_time_zone, sms_fallback_codes
       FROM confirmation_policies WHERE merchant_id = $1 AND mode = $2::"KeyMode"`,
      [scope.merchantId, scope.mode],
    );
    return rows[0] ? policyOfRow(rows[0]) : EMPTY_POLICY;
  }

  async put(scope: MerchantScope, policy: ConfirmationPolicy, now: Date): Promise<void> {
    await this.pool.query(
      `INSERT INTO confirmation_policies (merchant_id, mode, reminders, expire_after, quiet_hours_start, quiet_hours_end,
         quiet_hours_time_zone, updated_at, sms_fallback_codes)
       VALUES ($1, $2::"KeyMode", $3::varchar[], $4, $5, $6, $7, $8, $9::int[])
       ON CONFLICT (merchant_id, mode) DO UPDATE SET reminders = EXCLUDED.reminders, expire_after = EXCLUDED.expire_after,
         quiet_hours_start = EXCLUDED.quiet_hours_start, quiet_hours_end = EXCLUDED.quiet_hours_end,
         quiet_hours_time_zone = EXCLUDED.quiet_hours_time_zone, updated_at = EXCLUDED.updated_at,
         sms_fallback_codes = EXCLUDED.sms_fallback_codes`,
      [
        scope.merchantId, scope.mode, policy.reminders, policy.expireAfter, policy.quietHours?.start ?? null,
        policy.quietHours?.end ?? null, policy.quietHours?.timeZone ?? null, now, policy.smsFallback?.errorCodes ?? null,
      ],
    );
  }
}
