import { randomUUID } from "node:crypto";
import type { TestServer } from "./server.ts";

/**
 * Orders written straight into the database with the times and outcomes a test needs (statistics and search
 * are about history that the API cannot backdate). Rows look exactly like the service's: visible (`accepted`)
 * unless told otherwise, with the timeline steps the service writes for the answer.
 */
export interface SeedOrder {
  externalOrderId?: string;
  customerName?: string;
  customerPhone?: string;
  mode?: "test" | "live";
  createdAt: string;
  status?: "pending" | "confirmed" | "canceled" | "failed" | "expired";
  errorCode?: number | null;
  /** Who ended `pending` with a tap or a cancel, and when (a timeline step, as the service writes it). */
  answer?: { by: "customer" | "merchant"; at: string };
  /** An order from before the timeline existed: customerAction set, updatedAt its only time, no steps. */
  legacyAnsweredAt?: string;
  sendState?: "sending" | "accepted" | "rejected";
}

export async function seedOrders(server: TestServer, merchantId: string, orders: SeedOrder[]): Promise<string[]> {
  const pool = server.app.services.database.pool;
  const ids: string[] = [];
  for (const order of orders) {
    const id = randomUUID();
    const status = order.status ?? "pending";
    const action = status === "confirmed" ? "approved" : status === "canceled" ? "canceled" : null;
    const updatedAt = order.answer?.at ?? order.legacyAnsweredAt ?? order.createdAt;
    await pool.query(
      `INSERT INTO orders (id, merchant_id, mode, external_order_id, customer_name, customer_phone, subtotal, shipping_cost,
         total_cost, currency, language, status, customer_action, delivery_status, error_code, failure_reason, send_state,
         created_at, updated_at)
       VALUES ($1, $2, $3::"KeyMode", $4, $5, $6, 10, 0, 10, 'SAR', 'en', $7::"OrderStatus", $8::"CustomerAction",
         $9::"DeliveryStatus", $10, $11, $12::"SendState", $13, $14)`,
      [
        id, merchantId, order.mode ?? "test", order.externalOrderId ?? `SEED-${id.slice(0, 8)}`,
        order.customerName ?? "Layla Hassan", order.customerPhone ?? "966501234567", status, action,
        status === "failed" ? "failed" : action ? "read" : "sent", status === "failed" ? (order.errorCode ?? null) : null,
        status === "failed" ? "Seeded failure" : null, order.sendState ?? (status === "failed" ? "rejected" : "accepted"),
        order.createdAt, updatedAt,
      ],
    );
    if (order.legacyAnsweredAt) {
      ids.push(id);
      continue;
    }
    await pool.query(`INSERT INTO order_timeline (order_id, at, kind, source) VALUES ($1, $2, 'created', 'merchant')`, [
      id, order.createdAt,
    ]);
    if (order.answer && action) {
      await pool.query(`INSERT INTO order_timeline (order_id, at, kind, source) VALUES ($1, $2, $3, $4)`, [
        id, order.answer.at, action === "approved" ? "approved" : "canceled", order.answer.by,
      ]);
    }
    ids.push(id);
  }
  return ids;
}
