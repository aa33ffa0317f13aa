import type { FastifyInstance } from "fastify";

/**
 * Counts requests whose handler has not finished. When autocannon stops it drops its connections, but the
 * handlers of the requests it abandoned keep running; every run waits for them, so no run inherits the
 * previous one's work and nothing is closed under a running transaction. onSend runs for every completed
 * handler, including those whose client has gone.
 */
export interface InFlight {
  readonly count: number;
}

/** Adds the counting hooks; call before the server is ready. */
export function trackInFlight(app: FastifyInstance<any, any, any, any, any>): InFlight {
  const state = { count: 0 };
  app.addHook("onRequest", async () => {
    state.count++;
  });
  app.addHook("onSend", async (_request, _reply, payload) => {
    state.count--;
    return payload;
  });
  return state;
}

/** Waits until every started handler has finished (or `limitMs` passed, with a warning). */
export async function drain(name: string, inFlight: InFlight, limitMs = 30_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (inFlight.count > 0) {
    if (Date.now() > deadline) {
      process.stderr.write(`  !! ${name}: ${inFlight.count} request(s) still running after ${limitMs / 1000} s\n`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
