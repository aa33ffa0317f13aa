-- SPEC §15: an answer the customer gave outside WhatsApp and the merchant's team recorded (recordCustomerAnswer:
-- timeline source `merchant`, detail.via `phone`, `in_person` or `other`) is the customer's answer. A recorded
-- approval already counted (every confirmation does); a recorded cancel now counts as answered too, like a tap on
-- Cancel. A merchant's own cancel (via rest, graphql, store) still does not.

-- Whether a `canceled` step is the customer's answer (the exact computation in src/domain/stats/order-stats.repository.ts and the
-- single-order transition in src/domain/orders/order.repository.ts apply the same rule).
CREATE FUNCTION order_stats_is_answer_step(source text, detail jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT source = 'customer' OR coalesce(detail ->> 'via' IN ('phone', 'in_person', 'other'), false)
$$;

CREATE OR REPLACE FUNCTION order_stats_answered(order_id uuid, status "OrderStatus") RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT CASE status WHEN 'confirmed' THEN true WHEN 'canceled' THEN coalesce(
    (SELECT order_stats_is_answer_step(t.source::text, t.detail::jsonb) FROM order_timeline t
      WHERE t.order_id = $1 AND t.kind = 'canceled' ORDER BY t.id LIMIT 1),
    true) ELSE false END
$$;

CREATE OR REPLACE FUNCTION order_stats_cancel_step() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  step order_timeline;
  o orders;
  order_version text;
  was_answer boolean;
  is_answer boolean;
BEGIN
  IF TG_OP = 'INSERT' THEN step := NEW; ELSE step := OLD; END IF;
  IF EXISTS (SELECT 1 FROM order_timeline t WHERE t.order_id = step.order_id AND t.kind = 'canceled' AND t.id < step.id) THEN
    RETURN step;
  END IF;
  SELECT * INTO o FROM orders WHERE id = step.order_id;
  IF NOT FOUND OR o.send_state = 'sending' OR o.status <> 'canceled' THEN
    RETURN step;
  END IF;
  IF TG_OP = 'INSERT' THEN
    SELECT xmin::text || '/' || cmin::text INTO order_version FROM orders WHERE id = step.order_id;
    IF EXISTS (SELECT 1 FROM order_timeline t WHERE t.id = NEW.id AND xmin::text || '/' || cmin::text = order_version) THEN
      RETURN step;
    END IF;
  END IF;
  IF TG_OP = 'INSERT' THEN
    was_answer := true;
    is_answer := order_stats_is_answer_step(NEW.source::text, NEW.detail::jsonb);
  ELSE
    was_answer := order_stats_is_answer_step(OLD.source::text, OLD.detail::jsonb);
    is_answer := coalesce((SELECT order_stats_is_answer_step(t.source::text, t.detail::jsonb) FROM order_timeline t
      WHERE t.order_id = OLD.order_id AND t.kind = 'canceled' AND t.id > OLD.id ORDER BY t.id LIMIT 1), true);
  END IF;
  IF was_answer <> is_answer THEN
    PERFORM order_stats_add_order(o, CASE WHEN is_answer THEN 1 ELSE -1 END, true);
  END IF;
  RETURN step;
END
$$;

-- Backfill: recorded cancels made before this migration were kept as not answered; add their answer now.
SELECT order_stats_add_order(o, 1, true)
FROM orders o
WHERE o.status = 'canceled' AND o.send_state <> 'sending'
  AND (SELECT t.source = 'merchant' AND order_stats_is_answer_step(t.source::text, t.detail::jsonb) FROM order_timeline t
       WHERE t.order_id = o.id AND t.kind = 'canceled' ORDER BY t.id LIMIT 1);
