import { randomBytes } from "node:crypto";
import Fastify from "fastify";
import pg from "pg";
import { newId } from "../src/domain/ids.ts";
import type { BenchOrderBody } from "./order-body.ts";
import { drain, trackInFlight, type InFlight } from "./in-flight.ts";

/**
 * The floor the service is compared against: a bare Fastify app with no auth, no validation, no rate limit,
 * no hooks, that does the same database work with `pg` directly. It answers on the same paths as the service
 * so the load generator sends byte-identical requests to both.
 *
 * GET  /api/v1/orders/:id  the order row (scoped to the merchant and mode, as the service does), then its
 *                          items by position: two statements, like the service.
 * POST /api/v1/orders      one transaction: the order (already `accepted`, with a provider message id), its
 *                          items in one multi-row INSERT, and the `order.created` outbox row.
 */
export interface BaselineOptions {
  /** The same database the service uses. */
  url: string;
  /** The same pool size the service uses on this database. */
  poolSize: number;
  merchantId: string;
  mode: "live" | "test";
}

export interface Baseline {
  url: string;
  inFlight: InFlight;
  close(): Promise<void>;
}

const ORDER_COLUMNS = `id, external_order_id, status, customer_action, delivery_status, customer_name, customer_phone,
  customer_address, subtotal, shipping_cost, total_cost, currency, failure_reason, error_code, created_at, updated_at`;
const ITEM_COLUMNS = "id, product_name, variant_name, quantity, unit_price, total_price";

interface OrderRow {
  id: string;
  external_order_id: string;
  status: string;
  customer_action: string | null;
  delivery_status: string | null;
  customer_name: string;
  customer_phone: string;
  customer_address: string | null;
  subtotal: string;
  shipping_cost: string;
  total_cost: string;
  currency: string;
  failure_reason: string | null;
  error_code: number | null;
  created_at: Date;
  updated_at: Date;
}

interface ItemRow {
  id: string;
  product_name: string;
  variant_name: string | null;
  quantity: string;
  unit_price: string;
  total_price: string;
}

/** The same public JSON shape as the service's OrderView, so both send about the same bytes. */
function view(order: OrderRow, items: ItemRow[]) {
  return {
    id: order.id,
    externalOrderId: order.external_order_id,
    status: order.status,
    customerAction: order.customer_action,
    deliveryStatus: order.delivery_status,
    customerName: order.customer_name,
    customerPhone: order.customer_phone,
    customerAddress: order.customer_address,
    subtotal: Number(order.subtotal),
    shippingCost: Number(order.shipping_cost),
    totalCost: Number(order.total_cost),
    currency: order.currency,
    failureReason: order.failure_reason,
    errorCode: order.error_code,
    items: items.map((item) => ({
      id: item.id,
      productName: item.product_name,
      variantName: item.variant_name,
      quantity: Number(item.quantity),
      unitPrice: Number(item.unit_price),
      totalPrice: Number(item.total_price),
    })),
    createdAt: order.created_at.toISOString(),
    updatedAt: order.updated_at.toISOString(),
  };
}

export async function startBaseline(options: BaselineOptions): Promise<Baseline> {
  const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize });
  // An idle connection the server closes is dropped and replaced by the pool; without a listener it would crash us.
  pool.on("error", () => undefined);
  const app = Fastify({ logger: false });
  const inFlight = trackInFlight(app);

  app.get<{ Params: { id: string } }>("/api/v1/orders/:id", async (request, reply) => {
    const { rows } = await pool.query<OrderRow>(
      `SELECT ${ORDER_COLUMNS} FROM orders
        WHERE id = $1 AND merchant_id = $2 AND mode = $3 AND send_state <> 'sending'`,
      [request.params.id, options.merchantId, options.mode],
    );
    if (rows.length === 0) return reply.code(404).send({ success: false, message: "Order not found", error: "NOT_FOUND" });
    const items = await pool.query<ItemRow>(
      `SELECT ${ITEM_COLUMNS} FROM order_items WHERE order_id = $1 ORDER BY position`,
      [rows[0].id],
    );
    return view(rows[0], items.rows);
  });

  app.post<{ Body: BenchOrderBody }>("/api/v1/orders", async (request, reply) => {
    const body = request.body;
    const now = new Date();
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const order = await client.query<OrderRow>(
        `INSERT INTO orders (id, merchant_id, mode, external_order_id, customer_name, customer_phone, customer_address,
           subtotal, shipping_cost, total_cost, currency, note, language, send_state, provider_message_id, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'en', 'accepted', $13, $14, $14)
         RETURNING ${ORDER_COLUMNS}`,
        [
          newId(),
          options.merchantId,
          options.mode,
          body.externalOrderId,
          body.customerName,
          body.customerPhone,
          body.customerAddress ?? null,
          String(body.subtotal),
          String(body.shippingCost),
          String(body.totalCost),
          body.currency.toUpperCase(),
          body.note ?? null,
          `wamid.BASE${randomBytes(18).toString("base64url")}`,
          now,
        ],
      );
      const orderRow = order.rows[0];
      const values: unknown[] = [];
      const tuples = body.items.map((item, position) => {
        const base = values.length;
        values.push(newId(), orderRow.id, position, item.productName, item.variantName ?? null,
          String(item.quantity), String(item.unitPrice), String(item.totalPrice));
        return `(${Array.from({ length: 8 }, (_, i) => `$${base + i + 1}`).join(", ")})`;
      });
      const items = await client.query<ItemRow>(
        `INSERT INTO order_items (id, order_id, position, product_name, variant_name, quantity, unit_price, total_price)
         VALUES ${tuples.join(", ")} RETURNING ${ITEM_COLUMNS}`,
        values,
      );
      const result = view(orderRow, items.rows);
      await client.query(
        `INSERT INTO order_events (id, merchant_id, order_id, type, payload, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
        [newId(), options.merchantId, orderRow.id, "order.created",
          JSON.stringify({ event: "order.created", timestamp: now.toISOString(), data: result }), now],
      );
      await client.query("COMMIT");
      return reply.code(201).send(result);
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  });

  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return {
    url,
    inFlight,
    async close() {
      await drain("baseline", inFlight);
      await app.close();
      await pool.end();
    },
  };
}
