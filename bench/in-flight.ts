import type { FastifyInstance, FastifyRequest } from "fastify";

/**
 * The requests whose handler has not finished. When autocannon stops it drops its connections, but the
 * handlers of the requests it abandoned keep running; every run waits for them, so no run inherits the
 * previous one's work and nothing is closed under a running transaction. onSend runs for every completed
 * handler, including those whose client has gone.
 */
export interface InFlight {
  readonly requests: ReadonlyMap<FastifyRequest, { method: string; url: string; since: number }>;
  /** Already reported as never finishing: later drains do not wait for them again. */
  readonly givenUp: Set<FastifyRequest>;
}

/** Adds the tracking hooks; call before the server is ready. */
export function trackInFlight(app: FastifyInstance<any, any, any, any, any>): InFlight {
  const requests = new Map<FastifyRequest, { method: string; url: string; since: number }>();
  app.addHook("onRequest", async (request) => {
    requests.set(request, { method: request.method, url: request.url, since: Date.now() });
  });
  app.addHook("onSend", async (request, _reply, payload) => {
    requests.delete(request);
    return payload;
  });
  return { requests, givenUp: new Set() };
}

/**
 * Waits until every started handler has finished. Gives up after `limitMs`, reports the requests still
 * running, and returns how many there were (a handler that never finishes is a bug worth seeing).
 */
export async function drain(name: string, inFlight: InFlight, limitMs = 30_000): Promise<number> {
  const deadline = Date.now() + limitMs;
  const running = () => [...inFlight.requests.entries()].filter(([request]) => !inFlight.givenUp.has(request));
  while (running().length > 0) {
    if (Date.now() > deadline) {
      const now = Date.now();
      const stuck = running();
      for (const [request] of stuck) inFlight.givenUp.add(request);
      const list = stuck.map(([, { method, url, since }]) => `${method} ${url} (${((now - since) / 1000).toFixed(0)} s)`);
      process.stderr.write(`  !! ${name}: ${stuck.length} request(s) still running: ${list.join(", ")}\n`);
      return stuck.length;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return 0;
}
