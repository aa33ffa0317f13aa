import type { FastifyInstance, FastifyRequest } from "fastify";

/**
 * The requests whose handler has not finished. A client that disconnects does not stop its handler, and
 * Fastify's close() does not wait for it: shutdown (and the benchmark, between runs) waits here so nothing
 * is closed under a running transaction. onSend runs for every completed handler, including those whose
 * client has gone.
 */
export interface InFlight {
  readonly requests: ReadonlyMap<FastifyRequest, RequestState>;
  /** Already reported as never finishing: later drains do not wait for them again. */
  readonly givenUp: Set<FastifyRequest>;
}

interface RequestState {
  method: string;
  url: string;
  since: number;
  /** The body was parsed: the handler will run to its end whatever the client does. */
  parsed: boolean;
}

/** Adds the tracking hooks; call before the server is ready. */
export function trackInFlight(app: FastifyInstance<any, any, any, any, any>): InFlight {
  const requests = new Map<FastifyRequest, RequestState>();
  app.addHook("onRequest", async (request) => {
    requests.set(request, { method: request.method, url: request.url, since: Date.now(), parsed: false });
  });
  app.addHook("preValidation", async (request) => {
    const state = requests.get(request);
    if (state) state.parsed = true;
  });
  app.addHook("onSend", async (request, _reply, payload) => {
    requests.delete(request);
    return payload;
  });
  return { requests, givenUp: new Set() };
}

/**
 * A request whose connection closed before its body was read never reaches its handler: Fastify waits for
 * a body that will not come (this happens to POSTs that autocannon drops while an async onRequest hook, such
 * as the service's API key lookup, is still running). Nothing runs for it, so nothing is waited for.
 */
function abandonedBeforeHandler(request: FastifyRequest, state: RequestState, now: number): boolean {
  return !state.parsed && request.raw.destroyed && now - state.since > 1_000;
}

/**
 * Waits until every started handler has finished. Gives up after `limitMs`, reports the requests still
 * running, and returns how many there were (a handler that never finishes is a bug worth seeing).
 */
export async function drain(
  name: string,
  inFlight: InFlight,
  limitMs = 30_000,
  report: (message: string) => void = (message) => process.stderr.write(`  !! ${message}\n`),
): Promise<number> {
  const deadline = Date.now() + limitMs;
  const running = () => {
    const now = Date.now();
    return [...inFlight.requests.entries()].filter(
      ([request, state]) => !inFlight.givenUp.has(request) && !abandonedBeforeHandler(request, state, now),
    );
  };
  while (running().length > 0) {
    if (Date.now() > deadline) {
      const now = Date.now();
      const stuck = running();
      for (const [request] of stuck) inFlight.givenUp.add(request);
      const list = stuck.map(([, { method, url, since, parsed }]) =>
        `${method} ${url} (${parsed ? "in its handler" : "body not read"}, ${((now - since) / 1000).toFixed(0)} s)`);
      report(`${name}: ${stuck.length} request(s) still running: ${list.join(", ")}`);
      return stuck.length;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  for (const [request, state] of inFlight.requests) {
    if (abandonedBeforeHandler(request, state, Date.now())) (inFlight.requests as Map<FastifyRequest, RequestState>).delete(request);
  }
  return 0;
}
