import { Client, cacheExchange, fetchExchange, makeOperation, mapExchange, subscriptionExchange, type Operation } from "urql";
import { createClient as createSocketClient, type Client as SocketClient } from "graphql-ws/client";

export type Mode = "test" | "live";
export type SocketState = "connecting" | "live" | "reconnecting";

export interface ConsoleClient {
  client: Client;
  /** Current state of the websocket, and changes to it. */
  socketState(): SocketState;
  onSocketState(listener: (state: SocketState) => void): () => void;
  dispose(): void;
}

/**
 * One urql client for the app, per mode and language: HTTP POST /graphql with the session cookie and
 * X-OCS-Mode, and subscriptions over graphql-ws on the same path (the upgrade carries the cookie; the mode goes
 * in connection_init). Switching the mode builds a new client, so no cached answer of one mode shows in the other.
 */
export function createConsoleClient(options: { mode: Mode; language: string; onUnauthenticated(): void }): ConsoleClient {
  const { mode, language, onUnauthenticated } = options;
  let state: SocketState = "connecting";
  const listeners = new Set<(state: SocketState) => void>();
  const setState = (next: SocketState) => {
    state = next;
    for (const listener of listeners) listener(next);
  };

  const socketUrl = `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/graphql`;
  const socket: SocketClient = createSocketClient({
    url: socketUrl,
    connectionParams: { mode, language },
    lazy: true,
    retryAttempts: Number.POSITIVE_INFINITY,
    // 4403 is what a session that ended (expired, signed out elsewhere, revoked) gets, when connecting or at the
    // server's periodic re-check: no retry, the console shows sign-in. Anything else (restarts, outages) retries.
    shouldRetry: (event) => !isSessionEndedClose(event),
    on: {
      connected: () => setState("live"),
      closed: (event) => {
        if (isSessionEndedClose(event)) onUnauthenticated();
        setState(state === "connecting" ? "connecting" : "reconnecting");
      },
    },
  });

  const client = new Client({
    url: "/graphql",
    // POST only: Apollo's CSRF rule wants a preflight header on GET, and POST keeps queries out of logs.
    preferGetMethod: false,
    fetchOptions: () => ({
      credentials: "same-origin",
      headers: { "X-OCS-Mode": mode, "Accept-Language": language },
    }),
    exchanges: [
      mapExchange({
        // The development server (vite) sends documents as they are edited; builds send their hashes.
        onOperation: import.meta.env.PROD ? sendDocumentHash : undefined,
        onError(error) {
          const unauthenticated =
            error.response?.status === 401 || error.graphQLErrors.some((e) => e.extensions?.code === "UNAUTHENTICATED");
          if (unauthenticated) onUnauthenticated();
        },
      }),
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          const input = { ...request, query: request.query || "" };
          return {
            subscribe(sink) {
              const unsubscribe = socket.subscribe(input, sink);
              return { unsubscribe };
            },
          };
        },
      }),
    ],
  });

  return {
    client,
    socketState: () => state,
    onSocketState(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose() {
      listeners.clear();
      void socket.dispose();
    },
  };
}

/** graphql-ws's close code when the server refuses the connection's credentials (here: the session ended). */
export function isSessionEndedClose(event: unknown): boolean {
  return typeof event === "object" && event !== null && (event as { code?: unknown }).code === 4403;
}

/**
 * Trusted documents: queries and mutations go to the server as the build-time sha256 of their document
 * (`extensions.persistedQuery`, so urql leaves `query` out of the body); the server runs the document its
 * manifest names and, in production, refuses any other document from a session.
 */
function sendDocumentHash(operation: Operation): Operation {
  if (operation.kind !== "query" && operation.kind !== "mutation") return operation;
  const hash = (operation.query as { __meta__?: { hash?: string } }).__meta__?.hash;
  if (!hash) return operation;
  return makeOperation(
    operation.kind,
    { ...operation, extensions: { ...operation.extensions, persistedQuery: { version: 1, sha256Hash: hash.replace(/^sha256:/, "") } } },
    operation.context,
  );
}
