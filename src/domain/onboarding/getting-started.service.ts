import type pg from "pg";

/**
 * A new merchant's getting-started checklist (SPEC §15): each step ticks itself from the merchant's own data, both
 * modes counted, nothing marked by hand. One statement of EXISTS probes, each answered by an index:
 *
 * - TRY_SIMULATOR: a test order was answered (approved or canceled: what the simulator's buttons do);
 * - CREATE_KEY: an API key of the merchant has been used, or one was created after the merchant's first keys;
 * - ADD_WEBHOOK: a webhook endpoint exists;
 * - SET_POLICY: a confirmation policy was saved;
 * - CONNECT_STORE: a store connection exists (read from `store_connections` once the store connectors' table is
 *   there; until then the step stays open);
 * - GO_LIVE: a live order was sent.
 */
export const GETTING_STARTED_STEPS = ["TRY_SIMULATOR", "CREATE_KEY", "ADD_WEBHOOK", "SET_POLICY", "CONNECT_STORE", "GO_LIVE"] as const;
export type GettingStartedStepKey = (typeof GETTING_STARTED_STEPS)[number];

export interface GettingStarted {
  steps: { key: GettingStartedStepKey; done: boolean }[];
  remaining: number;
}

const CHECKLIST_SQL = `
  SELECT
    EXISTS (SELECT 1 FROM orders o WHERE o.merchant_id = $1::uuid AND o.mode = 'test'
      AND o.status IN ('confirmed', 'canceled') AND o.send_state <> 'sending') AS "TRY_SIMULATOR",
    EXISTS (SELECT 1 FROM api_keys k JOIN merchants m ON m.id = k.merchant_id WHERE k.merchant_id = $1::uuid
      AND (k.last_used_at IS NOT NULL OR k.created_at > m.created_at + interval '1 minute')) AS "CREATE_KEY",
    EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.merchant_id = $1::uuid) AS "ADD_WEBHOOK",
    EXISTS (SELECT 1 FROM confirmation_policies p WHERE p.merchant_id = $1::uuid) AS "SET_POLICY",
    EXISTS (SELECT 1 FROM orders o WHERE o.merchant_id = $1::uuid AND o.mode = 'live' AND o.send_state <> 'sending') AS "GO_LIVE",
    to_regclass('public.store_connections') IS NOT NULL AS stores_table`;

export class GettingStartedService {
  constructor(private readonly pool: pg.Pool) {}

  async checklist(merchantId: string): Promise<GettingStarted> {
    const { rows } = await this.pool.query<Record<Exclude<GettingStartedStepKey, "CONNECT_STORE">, boolean> & { stores_table: boolean }>(
      CHECKLIST_SQL,
      [merchantId],
    );
    const row = rows[0];
    const connected = row.stores_table ? await this.hasStore(merchantId) : false;
    const steps = GETTING_STARTED_STEPS.map((key) => ({ key, done: key === "CONNECT_STORE" ? connected : row[key] }));
    return { steps, remaining: steps.filter((step) => !step.done).length };
  }

  private async hasStore(merchantId: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ connected: boolean }>(
      "SELECT EXISTS (SELECT 1 FROM store_connections s WHERE s.merchant_id = $1::uuid) AS connected",
      [merchantId],
    );
    return rows[0]?.connected ?? false;
  }
}
