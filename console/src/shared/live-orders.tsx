import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { useSubscription } from "urql";
import { graphql } from "../gql/index.ts";
import type { OrderStatusChangedSubscription } from "../gql/graphql.ts";
import { useConsole } from "./session/console-context.tsx";
import type { SocketState } from "./graphql/client.ts";

export type OrderEvent = OrderStatusChangedSubscription["orderStatusChanged"];
type Listener = (event: OrderEvent) => void;

export const OrderStatusChangedDocument = graphql(`
  subscription OrderStatusChanged {
    orderStatusChanged {
      event
      timestamp
      order {
        ...OrderRowFields
      }
    }
  }
`);

interface LiveOrders {
  subscribe(listener: Listener): () => void;
  socketState: SocketState;
}

const LiveOrdersContext = createContext<LiveOrders | null>(null);

/**
 * One orderStatusChanged subscription (no orderId: every order of the merchant and mode) for the whole signed-in
 * app; pages listen to it instead of opening their own.
 */
export function LiveOrdersProvider({ children }: { children: ReactNode }) {
  const { connection } = useConsole();
  const listeners = useRef(new Set<Listener>());
  const [socketState, setSocketState] = useState<SocketState>(connection.socketState());
  useEffect(() => {
    setSocketState(connection.socketState());
    return connection.onSocketState(setSocketState);
  }, [connection]);

  useSubscription({ query: OrderStatusChangedDocument }, (_previous, data) => {
    for (const listener of listeners.current) listener(data.orderStatusChanged);
    return data;
  });

  const subscribe = useCallback((listener: Listener) => {
    listeners.current.add(listener);
    return () => {
      listeners.current.delete(listener);
    };
  }, []);
  const value = useMemo(() => ({ subscribe, socketState }), [subscribe, socketState]);
  return <LiveOrdersContext.Provider value={value}>{children}</LiveOrdersContext.Provider>;
}

/** Calls `listener` with every order event while the component is mounted. */
export function useOrderEvents(listener: Listener): SocketState {
  const context = useContext(LiveOrdersContext);
  if (!context) throw new Error("useOrderEvents outside LiveOrdersProvider");
  const latest = useRef(listener);
  latest.current = listener;
  const { subscribe } = context;
  useEffect(() => subscribe((event) => latest.current(event)), [subscribe]);
  return context.socketState;
}

/**
 * Calls `onReconnect` each time the websocket is live again after a drop: events sent meanwhile were missed, so a
 * page showing live data reads it again. Not on the first connection (the page's own query is fresh then).
 */
export function useOnReconnect(onReconnect: () => void): void {
  const context = useContext(LiveOrdersContext);
  if (!context) throw new Error("useOnReconnect outside LiveOrdersProvider");
  const latest = useRef(onReconnect);
  latest.current = onReconnect;
  const dropped = useRef(false);
  useEffect(() => {
    if (context.socketState === "reconnecting") dropped.current = true;
    else if (context.socketState === "live" && dropped.current) {
      dropped.current = false;
      latest.current();
    }
  }, [context.socketState]);
}
