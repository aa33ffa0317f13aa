/** SQL fragments shared by the repositories that read orders as their public JSON. */

export const ISO_MS = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/**
 * toOrderView's shape built in SQL for the order row aliased `o` (numeric → JSON number keeps the stored
 * decimal digits; JSON.parse gives the same numbers toOrderView does).
 */
export const ORDER_VIEW_JSON = `json_build_object(
    'id', o.id, 'externalOrderId', o.external_order_id, 'status', o.status,
    'customerAction', o.customer_action, 'deliveryStatus', o.delivery_status,
    'customerName', o.customer_name, 'customerPhone', o.customer_phone, 'customerAddress', o.customer_address,
    'subtotal', o.subtotal, 'shippingCost', o.shipping_cost, 'totalCost', o.total_cost, 'currency', o.currency,
    'failureReason', o.failure_reason, 'errorCode', o.error_code,
    'items', (SELECT coalesce(json_agg(json_build_object(
        'id', i.id, 'productName', i.product_name, 'variantName', i.variant_name,
        'quantity', i.quantity, 'unitPrice', i.unit_price, 'totalPrice', i.total_price) ORDER BY i.position), '[]'::json)
      FROM order_items i WHERE i.order_id = o.id),
    'createdAt', to_char(o.created_at AT TIME ZONE 'UTC', ${ISO_MS}),
    'updatedAt', to_char(o.updated_at AT TIME ZONE 'UTC', ${ISO_MS})
  )`;
