import { randomBytes } from "node:crypto";
import Fastify from "fastify";
import pg from "pg";
import { newId } from "../src/domain/ids.ts";
import type { BenchOrderBody } from "./order-body.ts";
import { drain, trackInFlight, type InFlight } from "../src/http/in-flight.ts";

/**
 * The floor the service is compared against: a bare Fastify app with no auth, no validation, no rate limit,
 * no hooks of its own, that does the same database work with `pg` directly, in as few round trips as it
 * can (one statement per request). It answers on the same paths as the service, so the load generator
 * sends byte-identical requests to both, and with the same JSON shape.
 *
 * GET  /api/v1/orders/:id  one statement: the order (scoped to the merchant and mode, as the service does)
 *                          with its items by position, built as JSON by the database.
 * POST /api/v1/orders      one statement, so one transaction: the order (already `accepted`, with a provider
 *                          message id), its items, and the `order.created` outbox row carrying the order.
 */
export interface BaselineOptions {
  /** The same database the service uses. */
  url: string;
  /** The same pool size the service uses on this database. */
  poolSize: number;
  merchantId: string;
  mode: "live" | "test";
  /**
   * Run its two statements as named prepared statements, as the service does on PostgreSQL (BENCH_BASELINE_PREPARED=1).
   * Off by default: the baseline the issues' goals were set against plans every statement.
   */
  prepared?: boolean;
}

export interface Baseline {
  url: string;
  inFlight: InFlight;
  close(): Promise<void>;
}

const ISO_MS = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

const GET_SQL = `
  SELECT json_build_object(
    'id', o.id, 'externalOrderId', o.external_order_id, 'status', o.status,
    'customerAction', o.customer_action, 'deliveryStatus', o.delivery_status,
    'customerName', o.customer_name, 'customerPhone', o.customer_phone, 'customerAddress', o.customer_address,
    'subtotal', o.subtotal, 'shippingCost', o.shipping_cost, 'totalCost', o.total_cost, 'currency', o.currency,
    'failureReason', o.failure_reason, 'errorCode', o.error_code,
    'items', coalesce((SELECT json_agg(json_build_object(
        'id', i.id, 'productName', i.product_name, 'variantName', i.variant_name,
        'quantity', i.quantity, 'unitPrice', i.unit_price, 'totalPrice', i.total_price) ORDER BY i.position)
      FROM order_items i WHERE i.order_id = o.id), '[]'::json),
    'createdAt', to_char(o.created_at AT TIME ZONE 'UTC', ${ISO_MS}),
    'updatedAt', to_char(o.updated_at AT TIME ZONE 'UTC', ${ISO_MS})
  ) AS "order"
  FROM orders o
  WHERE o.id = $1::uuid AND o.merchant_id = $2::uuid AND o.mode = $3::"KeyMode" AND o.send_state <> 'sending'`;

const POST_SQL = `
  WITH new_order AS (
    INSERT INTO orders (id, merchant_id, mode, external_order_id, customer_name, customer_phone, customer_address,
      subtotal, shipping_cost, total_cost, currency, note, language, send_state, provider_message_id,
      created_at, updated_at)
    VALUES ($1, $2, $3::"KeyMode", $4, $5, $6, $7, $8::numeric, $9::numeric, $10::numeric, $11, $12, 'en',
      'accepted', $13, $14, $14)
    RETURNING id
  ), new_items AS (
    INSERT INTO order_items (id, order_id, position, product_name, variant_name, quantity, unit_price, total_price)
    SELECT item.id, new_order.id, item.position, item.product_name, item.variant_name, item.quantity,
      item.unit_price, item.total_price
    FROM new_order, unnest($15::uuid[], $16::smallint[], $17::text[], $18::text[], $19::numeric[], $20::numeric[],
      $21::numeric[]) AS item(id, position, product_name, variant_name, quantity, unit_price, total_price)
  )
  INSERT INTO order_events (id, merchant_id, order_id, type, payload, created_at)
  SELECT $22, $2, new_order.id, 'order.created', $23::json, $14 FROM new_order`;

export async function startBaseline(options: BaselineOptions): Promise<Baseline> {
  const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize });
  // An idle connection the server closes is dropped and replaced by the pool; without a listener it would crash us.
  pool.on("error", () => undefined);
  const app = Fastify({ logger: false });
  const inFlight = trackInFlight(app);

  const statement = (name: string, text: string, values: unknown[]) => (options.prepared ? { name, text, values } : { text, values });

  app.get<{ Params: { id: string } }>("/api/v1/orders/:id", async (request, reply) => {
    const { rows } = await pool.query<{ order: unknown }>(
      statement("baseline_get", GET_SQL, [request.params.id, options.merchantId, options.mode]),
    );
    if (rows.length === 0) return reply.code(404).send({ success: false, message: "Order not found", error: "NOT_FOUND" });
    return rows[0].order;
  });

  app.post<{ Body: BenchOrderBody }>("/api/v1/orders", async (request, reply) => {
    const body = request.body;
    const now = new Date();
    const items = body.items.map((item) => ({
      id: newId(),
      productName: item.productName,
      variantName: item.variantName ?? null,
      quantity: item.quantity,
      unitPrice: item.unitPrice,
      totalPrice: item.totalPrice,
    }));
    const order = {
      id: newId(),
      externalOrderId: body.externalOrderId,
      status: "pending",
      customerAction: null,
      deliveryStatus: null,
      customerName: body.customerName,
      customerPhone: body.customerPhone,
      customerAddress: body.customerAddress ?? null,
      subtotal: body.subtotal,
      shippingCost: body.shippingCost,
      totalCost: body.totalCost,
      currency: body.currency.toUpperCase(),
      failureReason: null,
      errorCode: null,
      items,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    await pool.query(statement("baseline_post", POST_SQL, [
      order.id, options.merchantId, options.mode, order.externalOrderId, order.customerName, order.customerPhone,
      order.customerAddress, String(order.subtotal), String(order.shippingCost), String(order.totalCost),
      order.currency, body.note ?? null, `wamid.BASE${randomBytes(18).toString("base64url")}`, now,
      items.map((item) => item.id), items.map((_, position) => position), items.map((item) => item.productName),
      items.map((item) => item.variantName), items.map((item) => String(item.quantity)),
      items.map((item) => String(item.unitPrice)), items.map((item) => String(item.totalPrice)),
      newId(), JSON.stringify({ event: "order.created", timestamp: order.createdAt, data: order }),
    ]));
    return reply.code(201).send(order);
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
