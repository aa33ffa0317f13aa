import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import type { UserRole } from "../../src/domain/users/user.repository.ts";
import { GraphQLClient } from "./graphql.ts";
import type { TestServer } from "./server.ts";

/** Console users and browser-like sessions for tests: real sign-in over HTTP, the cookie sent back by hand. */
export const PASSWORD = "correct horse battery staple";

export interface ConsoleUser {
  id: string;
  email: string;
  role: UserRole;
  merchantId: string;
  password: string;
}

let counter = 0;

/** A console user of `merchantId` (created through the same service the CLI uses). */
export async function createConsoleUser(
  server: TestServer,
  merchantId: string,
  options: { role?: UserRole; email?: string; password?: string } = {},
): Promise<ConsoleUser> {
  const email = options.email ?? `user${++counter}.${Date.now()}@example.com`;
  const password = options.password ?? PASSWORD;
  const created = await server.app.services.users.create(merchantId, email, options.role ?? "admin", password);
  return { ...created.user, password };
}

export interface SignInResult {
  status: number;
  body: any;
  headers: Headers;
  /** The Set-Cookie header as sent. */
  setCookie: string | null;
  /** `__Host-ocs_session=<value>` (or `ocs_session=` when not Secure), ready for a Cookie header; null when none was set. */
  cookie: string | null;
}

/** POST /api/v1/session as a browser page of the server's own origin would (or with the given headers). */
export async function signIn(
  baseUrl: string,
  email: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<SignInResult> {
  const response = await fetch(new URL("/api/v1/session", baseUrl), {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ email, password }),
  });
  const text = await response.text();
  const setCookie = response.headers.get("set-cookie");
  // `__Host-ocs_session` when the cookie is Secure (the default), `ocs_session` with COOKIE_SECURE=false.
  const [, name, value] = (setCookie ? /^((?:__Host-)?ocs_session)=([^;]*)/.exec(setCookie) : null) ?? [];
  return {
    status: response.status,
    body: text ? JSON.parse(text) : null,
    headers: response.headers,
    setCookie,
    cookie: value ? `${name}=${value}` : null,
  };
}

export async function signOut(baseUrl: string, cookie: string | null, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(new URL("/api/v1/session", baseUrl), {
    method: "DELETE",
    headers: { ...(cookie ? { cookie } : {}), ...headers },
  });
}

/** A signed-in session: its cookie and GraphQL clients for both modes (X-OCS-Mode). */
export interface ConsoleSession {
  user: ConsoleUser;
  cookie: string;
  /** Test mode (no X-OCS-Mode header: the default). */
  graphql: GraphQLClient;
  live: GraphQLClient;
}

export async function signedIn(server: TestServer, user: ConsoleUser): Promise<ConsoleSession> {
  const result = await signIn(server.baseUrl, user.email, user.password);
  if (result.status !== 200 || !result.cookie) throw new Error(`sign-in failed: ${result.status} ${JSON.stringify(result.body)}`);
  const graphql = new GraphQLClient(server.baseUrl).withHeaders({ cookie: result.cookie });
  return { user, cookie: result.cookie, graphql, live: graphql.withHeaders({ "x-ocs-mode": "live" }) };
}

/** A new console user of `merchantId`, signed in. */
export async function consoleSession(server: TestServer, merchantId: string, role: UserRole = "admin"): Promise<ConsoleSession> {
  return signedIn(server, await createConsoleUser(server, merchantId, { role }));
}

/** A graphql-ws client whose upgrade request carries `cookie` and `origin`, as a browser page's would. */
export function connectWithCookie(
  wsUrl: string,
  cookie: string,
  options: { origin?: string; connectionParams?: Record<string, unknown> } = {},
): Client {
  const headers: Record<string, string> = { cookie, ...(options.origin ? { origin: options.origin } : {}) };
  class BrowserLikeWebSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers });
    }
  }
  return createClient({ url: wsUrl, webSocketImpl: BrowserLikeWebSocket, connectionParams: options.connectionParams ?? {}, retryAttempts: 0, lazy: true });
}
