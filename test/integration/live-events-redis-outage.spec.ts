import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { Redis } from "ioredis";
import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { LiveOrderEvents } from "../../src/domain/orders/live-order-events.ts";
import { OrderEventBus } from "../../src/domain/orders/order-events.bus.ts";
import type { StoredEvent } from "../../src/domain/orders/order.repository.ts";

/**
 * SPEC §7: subscriptions see events produced on any instance. An instance that starts while Redis is down must
 * join the channel once Redis is back (a real redis-server on a private port, started after the instances).
 */
const hasRedisServer = !!process.env.TEST_REDIS_URL && spawnSync("redis-server", ["--version"]).status === 0;

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const event = (id: string): StoredEvent =>
  ({
    id,
    merchantId: "01a2031d-7569-70b7-a527-437021876928",
    orderId: "01a2031d-7569-70b7-a527-437021876929",
    mode: "test",
    envelope: { event: "order.confirmed", timestamp: new Date().toISOString(), data: { id: "x" } },
  }) as unknown as StoredEvent;

describe.runIf(hasRedisServer)("live events when Redis comes up after the instances", () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  it("both instances join the channel once Redis is reachable and relay each other's events", async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const logger = pino({ level: "silent" });
    const start = async () => {
      const redis = new Redis(url, { maxRetriesPerRequest: 2, retryStrategy: () => 100 });
      redis.on("error", () => undefined);
      const bus = new OrderEventBus();
      const live = await LiveOrderEvents.start(bus, { redis, logger });
      cleanups.push(() => redis.disconnect(), () => live.close());
      return { bus, live };
    };
    const [a, b] = await Promise.all([start(), start()]);

    const server: ChildProcess = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
      stdio: "ignore",
    });
    cleanups.push(() => server.kill("SIGKILL"));
    const admin = new Redis(url, { retryStrategy: () => 100 });
    admin.on("error", () => undefined);
    cleanups.push(() => admin.disconnect());
    await vi.waitFor(async () => expect(await admin.pubsub("NUMSUB", "ocs:order-events")).toEqual(["ocs:order-events", 2]), {
      timeout: 20_000, // a redis-server's start and two reconnect cycles, on a loaded machine
      interval: 100,
    });

    const received: string[] = [];
    b.live.subscribe({ merchantId: event("e").merchantId, mode: "test" }, (delivered) => received.push(delivered.id));
    a.bus.publish(event("from-a"));
    await vi.waitFor(() => expect(received).toEqual(["from-a"]), { timeout: 10_000 });
  }, 45_000);
});
