import { createClient, type Client, type FormattedExecutionResult } from "graphql-ws";
import { expect } from "vitest";
import WebSocket from "ws";
import { ORDER_SELECTION } from "./graphql.ts";
import type { TestServer } from "./server.ts";

/** graphql-transport-ws test clients (graphql-ws's own client over `ws`, as a Node dashboard would connect). */
export const SUBSCRIPTION = `subscription Changes($orderId: ID) {
  orderStatusChanged(orderId: $orderId) { event timestamp order { ${ORDER_SELECTION} } }
}`;

export function wsUrl(target: TestServer): string {
  return `${target.baseUrl.replace(/^http/, "ws")}/graphql`;
}

/** A lazy client that never retries: each test sees exactly what the server did. */
export function connectGraphQLWs(target: TestServer, apiKey: string | undefined, extra: Record<string, unknown> = {}): Client {
  return createClient({
    url: wsUrl(target),
    webSocketImpl: WebSocket,
    connectionParams: apiKey === undefined ? extra : { apiKey, ...extra },
    retryAttempts: 0,
    lazy: true,
  });
}

export interface Collector {
  results: FormattedExecutionResult<any, unknown>[];
  readonly error: unknown;
  readonly completed: boolean;
  unsubscribe(): void;
  /** The events received so far (payload of each `next`), failing on errors. */
  events(): { event: string; timestamp: string; order: any }[];
}

export function subscribe(client: Client, variables: Record<string, unknown> = {}, query = SUBSCRIPTION): Collector {
  const results: FormattedExecutionResult<any, unknown>[] = [];
  let error: unknown = null;
  let completed = false;
  const unsubscribe = client.subscribe(
    { query, variables },
    {
      next: (result) => void results.push(result),
      error: (failure) => void (error = failure),
      complete: () => void (completed = true),
    },
  );
  return {
    results,
    get error() {
      return error;
    },
    get completed() {
      return completed;
    },
    unsubscribe,
    events() {
      for (const result of results) expect(result.errors).toBeUndefined();
      return results.map((result) => result.data.orderStatusChanged);
    },
  };
}
