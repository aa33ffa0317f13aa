import type pg from "pg";

/** The data set of bench:stats (also usable on its own to look at plans). */
export const SPAN_DAYS = 365;
export const FIRST_NAMES = ["Layla", "Omar", "Sara", "Yousef", "Noura", "Khalid", "Huda", "Fahad"];

// ------------------------------------------------------------------------------------------- seeding

/**
 * `count` orders of one merchant spread evenly over the last `spanDays` days, in SQL: 55 % confirmed, 10 % canceled by
 * the customer, 5 % canceled by the merchant, 8 % failed (codes 131026, 131026, 132015, 131047, none), 5 %
 * expired, the rest pending; timeline steps as the service writes them (created; the answer for answered ones).
 * Names "<first name> <n>", phones 9665 + n, externalOrderId ORD-<n>. With `withItems`, each order gets the two
 * items its subtotal of 10 is made of (1 × 4 and 2 × 3), as bench:scale reads them.
 */
export async function seedMerchant(
  admin: pg.Pool,
  merchantId: string,
  count: number,
  now: Date,
  spanDays = SPAN_DAYS,
  progress = false,
  withItems = false,
): Promise<void> {
  const batch = 100_000;
  for (let first = 1; first <= count; first += batch) {
    const last = Math.min(count, first + batch - 1);
    await admin.query(
      `WITH shaped AS MATERIALIZED (
         SELECT gen_random_uuid() AS id, n, created_at,
           CASE WHEN n % 100 < 55 THEN 'confirmed' WHEN n % 100 < 70 THEN 'canceled' WHEN n % 100 < 78 THEN 'failed'
                WHEN n % 100 < 83 THEN 'expired' ELSE 'pending' END AS status,
           CASE WHEN n % 100 >= 65 AND n % 100 < 70 THEN 'merchant' ELSE 'customer' END AS answered_by,
           (ARRAY[131026, 131026, 132015, 131047, NULL])[1 + n % 5] AS error_code,
           created_at + ((30 + (n::bigint * 7919) % 7200) * interval '1 second') AS answered_at
         FROM (SELECT n, $4::timestamptz - ((n::float8 / $3) * $7::int * interval '1 day') AS created_at
               FROM generate_series($1::int, $2::int) n) g
       ), new_orders AS (
         INSERT INTO orders (id, merchant_id, mode, external_order_id, customer_name, customer_phone, subtotal, shipping_cost,
           total_cost, currency, language, status, customer_action, delivery_status, error_code, failure_reason, send_state,
           created_at, updated_at)
         SELECT id, $5::uuid, 'test', 'ORD-' || n, ($6::text[])[1 + n % 8] || ' ' || n, '9665' || lpad(n::text, 8, '0'),
           10, 0, 10, 'SAR', 'en', status::"OrderStatus",
           CASE status WHEN 'confirmed' THEN 'approved' WHEN 'canceled' THEN 'canceled' END::"CustomerAction",
           CASE WHEN status = 'failed' THEN 'failed' ELSE 'read' END::"DeliveryStatus",
           CASE WHEN status = 'failed' THEN error_code END, CASE WHEN status = 'failed' THEN 'Seeded failure' END,
           CASE WHEN status = 'failed' THEN 'rejected' ELSE 'accepted' END::"SendState",
           created_at, CASE WHEN status IN ('confirmed', 'canceled') THEN answered_at ELSE created_at END
         FROM shaped
       ), items AS (
         INSERT INTO order_items (id, order_id, position, product_name, variant_name, quantity, unit_price, total_price)
         SELECT gen_random_uuid(), id, item.position, item.product_name, NULL, item.quantity, item.unit_price, item.total_price
         FROM shaped, (VALUES (0, 'Product A', 1, 4, 4), (1, 'Product B', 2, 3, 6))
           AS item(position, product_name, quantity, unit_price, total_price)
         WHERE $8::boolean
       ), created_steps AS (
         INSERT INTO order_timeline (order_id, at, kind, source) SELECT id, created_at, 'created', 'merchant' FROM shaped
       )
       INSERT INTO order_timeline (order_id, at, kind, source)
       SELECT id, answered_at, CASE status WHEN 'confirmed' THEN 'approved' ELSE 'canceled' END, answered_by
       FROM shaped WHERE status IN ('confirmed', 'canceled')`,
      [first, last, count, now, merchantId, FIRST_NAMES, spanDays, withItems],
    );
    if (progress) process.stderr.write(`    ${last} / ${count}\n`);
  }
}


/** One new pending order of `merchantId`, created now: a live merchant's change between two reads of its statistics. */
export async function createOrderNow(admin: pg.Pool, merchantId: string): Promise<void> {
  await admin.query(
    `INSERT INTO orders (id, merchant_id, mode, external_order_id, customer_name, customer_phone, subtotal, shipping_cost,
       total_cost, currency, language, status, send_state, created_at, updated_at)
     VALUES (gen_random_uuid(), $1::uuid, 'test', 'NOW-' || gen_random_uuid(), 'Layla Now', '966599999999', 10, 0, 10, 'SAR',
       'en', 'pending', 'accepted', now(), now())`,
    [merchantId],
  );
}
