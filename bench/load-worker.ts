import { parentPort } from "node:worker_threads";
import autocannon from "autocannon";
import { benchOrderBody } from "./order-body.ts";
import { peerRequest, type PeerScenario, type PeerTarget } from "./peers-request.ts";

/**
 * The load generator, on its own thread so it never shares an event loop with the servers under test
 * (they, and the embedded PGlite, run on the main thread as they would in production). The main thread
 * sends one `LoadSpec` at a time and gets back one `LoadResult`.
 */
export type Scenario = "get" | "post";
/** What a load run sends: the REST scenarios, or GraphQL's `order(id)` (bench/graphql.ts). */
export type LoadScenario = Scenario | "graphql-order" | "page-get" | "page-post" | PeerScenario;

/** `order(id)` over GraphQL selecting every field, i.e. the same data as REST's GET (bench/graphql.ts). */
const GRAPHQL_ORDER_QUERY =
  "query Order($id: ID!) { order(id: $id) { id externalOrderId status customerAction deliveryStatus customerName " +
  "customerPhone customerAddress subtotal shippingCost totalCost currency failureReason errorCode " +
  "items { id productName variantName quantity unitPrice totalPrice } createdAt updatedAt } }";

export interface LoadSpec {
  /** http://127.0.0.1:port */
  url: string;
  scenario: LoadScenario;
  apiKey: string;
  /** Order ids to cycle through (GET). */
  ids: string[];
  connections: number;
  seconds: number;
  /** Makes every externalOrderId of this run unique (POST). */
  tag: string;
  /** bench/peers.ts: what each request asks for (key, merchant, order) and what its answer must hold. */
  targets?: PeerTarget[];
  /** bench/confirmation-page.ts: confirmation pages (`/c/<token>`) to cycle through, and text each must show. */
  pages?: { path: string; expect: string }[];
}

export interface LoadResult {
  /** Requests answered 2xx with the expected body. */
  ok: number;
  seconds: number;
  rps: number;
  /** Latencies of 2xx answers, ms, exact (autocannon's own histogram rounds to whole ms). */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  /** 2xx answers whose body was not the requested order (GET) or the created order (POST). */
  mismatches: number;
  statusCodes: Record<string, number>;
}

interface RequestContext {
  expect?: string;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  let mismatches = 0;
  let counter = 0;
  let cursor = Math.floor(Math.random() * Math.max(1, spec.ids.length));
  const latencies: number[] = [];

  const graphqlOrder: autocannon.Request = {
    method: "POST",
    setupRequest(req, context) {
      const id = spec.ids[cursor++ % spec.ids.length];
      (context as RequestContext).expect = `{"data":{"order":{"id":"${id}"`;
      req.path = "/graphql";
      req.body = JSON.stringify({ query: GRAPHQL_ORDER_QUERY, variables: { id } });
      return req;
    },
    onResponse(status, body, context) {
      if (status === 200 && !body.startsWith((context as RequestContext).expect!)) mismatches++;
    },
  };

  // The confirmation page (bench/confirmation-page.ts): GET must show the order; POST answers 303 (post/redirect/get).
  const pages = spec.pages ?? [];
  const pageGet: autocannon.Request = {
    method: "GET",
    setupRequest(req, context) {
      const page = pages[cursor++ % pages.length];
      (context as RequestContext).expect = page.expect;
      req.path = page.path;
      return req;
    },
    onResponse(status, body, context) {
      if (status === 200 && !body.includes((context as RequestContext).expect!)) mismatches++;
    },
  };
  const pagePost: autocannon.Request = {
    method: "POST",
    setupRequest(req) {
      req.path = pages[cursor++ % pages.length].path;
      req.body = "action=approve";
      return req;
    },
  };

  const request: autocannon.Request = spec.scenario === "page-get"
    ? pageGet
    : spec.scenario === "page-post"
      ? pagePost
      : isPeerScenario(spec.scenario)
    ? peerRequest(spec.scenario, spec.targets ?? [], () => mismatches++)
    : spec.scenario === "graphql-order"
      ? graphqlOrder
      : spec.scenario === "get"
      ? {
          method: "GET",
          setupRequest(req, context) {
            const id = spec.ids[cursor++ % spec.ids.length];
            (context as RequestContext).expect = `"id":"${id}"`;
            req.path = `/api/v1/orders/${id}`;
            return req;
          },
          onResponse(status, body, context) {
            if (status === 200 && !body.startsWith(`{${(context as RequestContext).expect}`)) mismatches++;
          },
        }
      : {
          method: "POST",
          setupRequest(req, context) {
            const externalOrderId = `${spec.tag}-${counter++}`;
            (context as RequestContext).expect = `"externalOrderId":"${externalOrderId}"`;
            req.path = "/api/v1/orders";
            req.body = JSON.stringify(benchOrderBody(externalOrderId));
            return req;
          },
          onResponse(status, body, context) {
            if (status === 201 && !body.includes((context as RequestContext).expect!)) mismatches++;
          },
        };

  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        connections: spec.connections,
        duration: spec.seconds,
        timeout: 10,
        headers: {
          "x-api-key": spec.apiKey,
          ...(spec.scenario === "page-post"
            ? { "content-type": "application/x-www-form-urlencoded" }
            : spec.scenario !== "get" && spec.scenario !== "page-get" && !spec.scenario.startsWith("ours-rest")
              ? { "content-type": "application/json" }
              : {}),
        },
        requests: [request],
      },
      (error, result) => {
        if (error) return reject(error);
        const sorted = Float64Array.from(latencies).sort();
        const ok = Math.max(0, sorted.length - mismatches);
        const statusCodes: Record<string, number> = {};
        for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stats.count ?? 0;
        resolve({
          ok,
          seconds: result.duration,
          rps: ok / result.duration,
          p50: percentile(sorted, 50),
          p90: percentile(sorted, 90),
          p99: percentile(sorted, 99),
          max: sorted.length ? sorted[sorted.length - 1] : Number.NaN,
          non2xx: result.non2xx,
          errors: result.errors,
          mismatches,
          statusCodes,
        });
      },
    );
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      // The page's POST succeeds with 303 See Other.
      if ((statusCode >= 200 && statusCode < 300) || (spec.scenario === "page-post" && statusCode === 303)) latencies.push(responseTime);
    });
  });
}

function isPeerScenario(scenario: LoadScenario): scenario is PeerScenario {
  return scenario.startsWith("ours-") || scenario.startsWith("postgraphile-");
}

parentPort?.on("message", (spec: LoadSpec) => {
  runLoad(spec).then(
    (result) => parentPort!.postMessage({ result }),
    (error: unknown) => parentPort!.postMessage({ error: error instanceof Error ? error.stack ?? error.message : String(error) }),
  );
});
