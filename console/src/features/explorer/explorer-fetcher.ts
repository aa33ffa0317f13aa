import { createGraphiQLFetcher, type Fetcher, type FetcherParams, type FetcherReturnType } from "@graphiql/toolkit";
import { getOperationAST, parse } from "graphql";
import { createClient as createSocketClient, type Client as SocketClient } from "graphql-ws/client";
import { isSessionEndedClose, type Mode } from "../../shared/graphql/client.ts";

/** Marks the explorer's requests: the server's rule for documents written by hand (see docs/console.md, "The API explorer"). */
export const EXPLORER_HEADER = "X-OCS-Explorer";

export interface ExplorerConnection {
  fetcher: Fetcher;
  dispose(): void;
}

/**
 * GraphiQL's fetcher, signed in by the console session: queries and mutations POST to /graphql with the session
 * cookie (same origin), the console's X-OCS-Mode and language, and the explorer header; subscriptions go over
 * graphql-ws on the same path (the upgrade carries the cookie, the mode goes in connection_init). A 401, or a
 * socket closed 4403 (what an ended session gets), ends the session in the console: it shows sign-in.
 */
export function createExplorerConnection(options: { mode: Mode; language: string; onUnauthenticated(): void }): ExplorerConnection {
  const { mode, language, onUnauthenticated } = options;
  const socket: SocketClient = createSocketClient({
    url: `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/graphql`,
    connectionParams: { mode, language },
    lazy: true,
    retryAttempts: 3,
    shouldRetry: (event) => !isSessionEndedClose(event),
    on: {
      closed: (event) => {
        if (isSessionEndedClose(event)) onUnauthenticated();
      },
    },
  });
  const sessionFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, { ...init, credentials: "same-origin" });
    if (response.status === 401) onUnauthenticated();
    return response;
  };
  const overHttp = createGraphiQLFetcher({
    url: "/graphql",
    headers: { "X-OCS-Mode": mode, "Accept-Language": language, [EXPLORER_HEADER]: "1" },
    fetch: sessionFetch,
    // Plain JSON POSTs (the service has no @defer/@stream): the fetch above is then the one used.
    enableIncrementalDelivery: false,
  });
  // The toolkit picks the websocket only when GraphiQL hands it the parsed document, which GraphiQL 5 does not do
  // for every run: the operation's kind decides here.
  const fetcher: Fetcher = (params, options) =>
    isSubscription(params)
      ? // What arrives over the wire are formatted results; the toolkit's type names graphql-js's class for them.
        (socket.iterate({ query: params.query, variables: params.variables ?? undefined, operationName: params.operationName ?? undefined }) as unknown as FetcherReturnType)
      : overHttp(params, options);
  return { fetcher, dispose: () => void socket.dispose() };
}

function isSubscription(params: FetcherParams): boolean {
  try {
    return getOperationAST(parse(params.query), params.operationName ?? undefined)?.operation === "subscription";
  } catch {
    return false; // the server answers a document that does not parse with its own error
  }
}
