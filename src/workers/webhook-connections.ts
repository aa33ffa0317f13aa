import http from "node:http";
import https from "node:https";
import type { Duplex } from "node:stream";

/**
 * Keep-alive connections to merchants' endpoints: one agent per endpoint (and URL origin), so a delivery reuses a
 * socket the previous one opened instead of paying a TCP (and TLS) handshake per POST.
 *
 * SSRF: a socket is only ever opened through the request's `lookup` (the guarded lookup of url-guard.ts), so
 * every socket is connected to the address that was resolved and checked for it, and a reused socket stays
 * pinned to that checked address. A name's answer can change later (DNS rebinding, or a merchant moving host):
 * a socket is reused for at most `maxSocketAgeMs`, after which the next delivery opens a new one, which resolves
 * and checks the name again. IP-literal hosts are judged per attempt by the sender (they never reach `lookup`).
 *
 * Bounds: at most `maxSocketsPerEndpoint` sockets per endpoint, busy or idle (the per-endpoint attempt bound, so
 * it never queues in practice); an idle socket closes after `idleTimeoutMs`, or earlier when the receiver's
 * `Keep-Alive: timeout=` says it will close it first; at most `maxEndpoints` endpoints keep agents (the least
 * recently used beyond it are dropped, their idle sockets closed).
 */
export interface WebhookConnectionOptions {
  maxSocketsPerEndpoint: number;
  idleTimeoutMs: number;
  maxSocketAgeMs: number;
  maxEndpoints: number;
}

export const DEFAULT_CONNECTION_OPTIONS: Omit<WebhookConnectionOptions, "maxSocketsPerEndpoint"> = {
  // Below the 5 s that Node's http server (and many others) keep an idle socket open: the receiver should
  // rarely close a socket just as we reuse it.
  idleTimeoutMs: 4_000,
  maxSocketAgeMs: 60_000,
  maxEndpoints: 1_024,
};

/** Sockets past their age limit: not kept once their request is done. */
const expired = new WeakSet<Duplex>();

/**
 * Starts a new socket's age clock: once `maxSocketAgeMs` has passed it is closed if idle, and otherwise closed as
 * soon as its request is done (keepSocketAlive), so no request is ever sent on it afterwards.
 */
function stamped<T extends Duplex | null | undefined>(socket: T, agent: http.Agent, maxSocketAgeMs: number): T {
  if (!socket) return socket;
  const timer = setTimeout(() => {
    expired.add(socket);
    const idle = Object.values(agent.freeSockets).some((list) => list?.includes(socket as never));
    if (idle) socket.destroy();
  }, maxSocketAgeMs);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
  return socket;
}

class PinnedHttpAgent extends http.Agent {
  constructor(options: http.AgentOptions, private readonly maxSocketAgeMs: number) {
    super(options);
  }

  override createConnection(options: http.ClientRequestArgs, callback?: (error: Error | null, socket: Duplex) => void) {
    return stamped(super.createConnection(options, callback), this, this.maxSocketAgeMs);
  }

  override keepSocketAlive(socket: Duplex): boolean {
    return !expired.has(socket) && (super.keepSocketAlive(socket) as unknown as boolean);
  }
}

class PinnedHttpsAgent extends https.Agent {
  constructor(options: https.AgentOptions, private readonly maxSocketAgeMs: number) {
    super(options);
  }

  override createConnection(options: http.ClientRequestArgs, callback?: (error: Error | null, socket: Duplex) => void) {
    return stamped(super.createConnection(options, callback), this, this.maxSocketAgeMs);
  }

  override keepSocketAlive(socket: Duplex): boolean {
    return !expired.has(socket) && (super.keepSocketAlive(socket) as unknown as boolean);
  }
}

export class WebhookConnections {
  private readonly agents = new Map<string, http.Agent>();

  constructor(readonly options: WebhookConnectionOptions) {}

  /** The agent for an endpoint's URL: the same one for every delivery to it while the URL's origin is unchanged. */
  agentFor(endpointId: string, url: URL): http.Agent {
    const key = `${endpointId} ${url.origin}`;
    let agent = this.agents.get(key);
    if (agent) {
      // Most recently used last, so eviction takes the coldest.
      this.agents.delete(key);
      this.agents.set(key, agent);
      return agent;
    }
    const agentOptions: http.AgentOptions = {
      keepAlive: true,
      maxSockets: this.options.maxSocketsPerEndpoint,
      maxTotalSockets: this.options.maxSocketsPerEndpoint,
      maxFreeSockets: this.options.maxSocketsPerEndpoint,
      timeout: this.options.idleTimeoutMs,
      scheduling: "lifo",
    };
    const { maxSocketAgeMs } = this.options;
    agent = url.protocol === "https:" ? new PinnedHttpsAgent(agentOptions, maxSocketAgeMs) : new PinnedHttpAgent(agentOptions, maxSocketAgeMs);
    this.agents.set(key, agent);
    this.evict();
    return agent;
  }

  /** Sockets open to an endpoint (busy and idle), for tests and metrics. */
  socketsOf(endpointId: string): number {
    let count = 0;
    for (const [key, agent] of this.agents) {
      if (!key.startsWith(`${endpointId} `)) continue;
      for (const list of [...Object.values(agent.sockets), ...Object.values(agent.freeSockets)]) count += list?.length ?? 0;
    }
    return count;
  }

  /** Closes every socket (idle and busy): at shutdown, after the attempts under way were settled. */
  destroy(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  private evict(): void {
    for (const [key, agent] of this.agents) {
      if (this.agents.size <= this.options.maxEndpoints) return;
      this.agents.delete(key);
      // Idle sockets close now; a busy one (an attempt still under way) returns to the dropped agent's free
      // list when done and closes after the idle timeout.
      for (const list of Object.values(agent.freeSockets)) for (const socket of list ?? []) socket.destroy();
    }
  }
}
