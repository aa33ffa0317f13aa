import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { Provider as UrqlProvider } from "urql";
import { createConsoleClient, type ConsoleClient, type Mode } from "../graphql/client.ts";
import { useI18n } from "../i18n/i18n.tsx";

const MODE_KEY = "ocs.console.mode";

export interface ConsoleState {
  mode: Mode;
  setMode(mode: Mode): void;
  /** false once a request was refused 401 (the session ended) or the user signed out: the router shows sign-in. */
  authenticated: boolean;
  /** Whether the user signed out (sign-in then opens plain) rather than the session ending (back to the page after). */
  signedOut: boolean;
  /** After sign-in or sign-out: a fresh client (empty cache, new socket). */
  restart(authenticated: boolean): void;
  /** The server said the session ended (401, or a socket closed 4403): show sign-in, then come back. */
  endSession(): void;
  connection: ConsoleClient;
}

const ConsoleContext = createContext<ConsoleState | null>(null);

function initialMode(): Mode {
  return localStorage.getItem(MODE_KEY) === "live" ? "live" : "test";
}

export function ConsoleProvider({ children }: { children: ReactNode }) {
  const { language } = useI18n();
  const [mode, setModeState] = useState<Mode>(initialMode);
  const [authenticated, setAuthenticated] = useState(true);
  const [signedOut, setSignedOut] = useState(false);
  const [epoch, setEpoch] = useState(0);

  const endSession = useCallback(() => setAuthenticated(false), []);
  const connection = useMemo(
    () => createConsoleClient({ mode, language, onUnauthenticated: endSession }),
    // epoch: sign-in and sign-out start over with a new client.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [mode, language, epoch],
  );
  useEffect(() => () => connection.dispose(), [connection]);

  const setMode = useCallback((next: Mode) => {
    localStorage.setItem(MODE_KEY, next);
    setModeState(next);
  }, []);
  const restart = useCallback((next: boolean) => {
    setAuthenticated(next);
    setSignedOut(!next);
    setEpoch((value) => value + 1);
  }, []);

  // An ended session closes the live connection at once (the sign-in page subscribes to nothing; sign-in restarts).
  useEffect(() => {
    if (!authenticated) connection.dispose();
  }, [authenticated, connection]);

  const value = useMemo(
    () => ({ mode, setMode, authenticated, signedOut, restart, endSession, connection }),
    [mode, setMode, authenticated, signedOut, restart, endSession, connection],
  );
  return (
    <ConsoleContext.Provider value={value}>
      <UrqlProvider value={connection.client}>{children}</UrqlProvider>
    </ConsoleContext.Provider>
  );
}

export function useConsole(): ConsoleState {
  const context = useContext(ConsoleContext);
  if (!context) throw new Error("useConsole outside ConsoleProvider");
  return context;
}
