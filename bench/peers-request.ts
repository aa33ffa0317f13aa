import type autocannon from "autocannon";

/**
 * The requests of bench:peers (bench/peers.ts), built in the load worker: the same reads through our REST, our
 * GraphQL and PostGraphile, each answer parsed and checked against what the database holds (the right orders, in
 * order, each with its items).
 */
export type PeerScenario =
  | "ours-rest-order"
  | "ours-graphql-order"
  | "postgraphile-order"
  | "ours-rest-list"
  | "ours-graphql-list"
  | "postgraphile-list";

/** One request's target and what its answer must hold: order ids newest first, and each one's item count. */
export interface PeerTarget {
  apiKey: string;
  merchantId: string;
  /** By id: the order asked for (also `ids[0]`). */
  orderId?: string;
  ids: string[];
  items: number[];
}

export const PAGE_SIZE = 50;

const ORDER_FIELDS =
  "id externalOrderId status customerAction deliveryStatus customerName customerPhone customerAddress subtotal " +
  "shippingCost totalCost currency failureReason errorCode items { id productName variantName quantity unitPrice totalPrice } " +
  "createdAt updatedAt";

// PostGraphile's names for the same tables (default inflector): the items through the order_items → orders key.
const PEER_ORDER_FIELDS =
  "id externalOrderId status customerAction deliveryStatus customerName customerPhone customerAddress subtotal " +
  "shippingCost totalCost currency failureReason errorCode " +
  "orderItemsByOrderId(orderBy: POSITION_ASC) { nodes { id productName variantName quantity unitPrice totalPrice } } " +
  "createdAt updatedAt";

export const QUERIES = {
  oursOrder: `query Order($id: ID!) { order(id: $id) { ${ORDER_FIELDS} } }`,
  oursList: `query Orders($first: Int!) { orders(first: $first) { edges { node { ${ORDER_FIELDS} } } pageInfo { hasNextPage endCursor } } }`,
  peerOrder: `query Order($id: UUID!) { orderById(id: $id) { ${PEER_ORDER_FIELDS} } }`,
  peerList:
    `query Orders($first: Int!, $merchantId: UUID!) { allOrders(first: $first, orderBy: [CREATED_AT_DESC, ID_DESC], ` +
    `condition: { merchantId: $merchantId, mode: TEST }) { nodes { ${PEER_ORDER_FIELDS} } pageInfo { hasNextPage endCursor } } }`,
};

interface AnyOrder {
  id?: unknown;
  items?: unknown[];
  orderItemsByOrderId?: { nodes?: unknown[] };
}

/** The orders an answer carries (null when it has none where they belong). */
function ordersOf(scenario: PeerScenario, body: string): AnyOrder[] | null {
  const json = JSON.parse(body) as Record<string, any>;
  switch (scenario) {
    case "ours-rest-order":
      return [json];
    case "ours-rest-list":
      return json.data ?? null;
    case "ours-graphql-order":
      return json.data?.order ? [json.data.order] : null;
    case "ours-graphql-list":
      return json.data?.orders?.edges?.map((edge: { node: AnyOrder }) => edge.node) ?? null;
    case "postgraphile-order":
      return json.data?.orderById ? [json.data.orderById] : null;
    case "postgraphile-list":
      return json.data?.allOrders?.nodes ?? null;
  }
}

/** Whether the answer holds exactly the expected orders, in order, each with its items. */
export function answerMatches(scenario: PeerScenario, body: string, target: PeerTarget): boolean {
  let orders: AnyOrder[] | null;
  try {
    orders = ordersOf(scenario, body);
  } catch {
    return false;
  }
  if (!orders || orders.length !== target.ids.length) return false;
  return orders.every((order, index) => {
    const items = order.items ?? order.orderItemsByOrderId?.nodes;
    return (
      order.id === target.ids[index] &&
      Array.isArray(items) &&
      items.length === target.items[index] &&
      items.every((item) => typeof (item as { id?: unknown }).id === "string")
    );
  });
}

/** The autocannon request of a scenario, cycling through `targets`. */
export function peerRequest(
  scenario: PeerScenario,
  targets: PeerTarget[],
  onMismatch: () => void,
): autocannon.Request {
  let cursor = Math.floor(Math.random() * targets.length);
  return {
    method: scenario.startsWith("ours-rest") ? "GET" : "POST",
    setupRequest(req, context) {
      const target = targets[cursor++ % targets.length];
      (context as { target?: PeerTarget }).target = target;
      req.headers = { ...req.headers, "x-api-key": target.apiKey };
      switch (scenario) {
        case "ours-rest-order":
          req.path = `/api/v1/orders/${target.orderId}`;
          break;
        case "ours-rest-list":
          req.path = `/api/v1/orders?limit=${PAGE_SIZE}`;
          break;
        case "ours-graphql-order":
          req.path = "/graphql";
          req.body = JSON.stringify({ query: QUERIES.oursOrder, variables: { id: target.orderId } });
          break;
        case "ours-graphql-list":
          req.path = "/graphql";
          req.body = JSON.stringify({ query: QUERIES.oursList, variables: { first: PAGE_SIZE } });
          break;
        case "postgraphile-order":
          req.path = "/graphql";
          req.body = JSON.stringify({ query: QUERIES.peerOrder, variables: { id: target.orderId } });
          break;
        case "postgraphile-list":
          req.path = "/graphql";
          req.body = JSON.stringify({ query: QUERIES.peerList, variables: { first: PAGE_SIZE, merchantId: target.merchantId } });
          break;
      }
      return req;
    },
    onResponse(status, body, context) {
      if (status === 200 && !answerMatches(scenario, body, (context as { target: PeerTarget }).target)) onMismatch();
    },
  };
}
