import { afterEach, describe, expect, it, vi } from "vitest";
import { Redis } from "ioredis";
import pino from "pino";
import { LiveOrderEvents, SlowConsumerError } from "../../src/domain/orders/live-order-events.ts";
import { OrderEventBus } from "../../src/domain/orders/order-events.bus.ts";
import type { StoredEvent } from "../../src/domain/orders/order.repository.ts";

const logger = pino({ level: "silent" });
const redisUrl = process.env.TEST_REDIS_URL;
const MERCHANT = "0190a000-0000-7000-8000-000000000001";
const OTHER = "0190a000-0000-7000-8000-000000000002";

let counter = 0;
function event(overrides: Partial<StoredEvent> = {}): StoredEvent {
  counter++;
  const orderId = overrides.orderId ?? `0190b000-0000-7000-8000-${String(counter).padStart(12, "0")}`;
  return {
    id: `0190c000-0000-7000-8000-${String(counter).padStart(12, "0")}`,
    merchantId: MERCHANT,
    mode: "test",
    orderId,
    envelope: {
      event: "order.created",
      timestamp: new Date().toISOString(),
      data: { id: orderId } as StoredEvent["envelope"]["data"],
    },
    ...overrides,
  };
}

const toClose: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of toClose.splice(0)) await item.close();
});

async function relay(redis: Redis | null = null, channel?: string) {
  const bus = new OrderEventBus();
  const live = await LiveOrderEvents.start(bus, { redis, logger, channel });
  toClose.push(live);
  return { bus, live };
}

describe("LiveOrderEvents (one process)", () => {
  it("delivers to the subscribers of the event's merchant and mode only, and by order when asked", async () => {
    const { bus, live } = await relay();
    const seen: Record<string, string[]> = { all: [], live: [], other: [], order: [] };
    const watched = event();
    live.subscribe({ merchantId: MERCHANT, mode: "test" }, (e) => seen.all.push(e.id));
    live.subscribe({ merchantId: MERCHANT, mode: "live" }, (e) => seen.live.push(e.id));
    live.subscribe({ merchantId: OTHER, mode: "test" }, (e) => seen.other.push(e.id));
    live.subscribe({ merchantId: MERCHANT, mode: "test", orderId: watched.orderId }, (e) => seen.order.push(e.id));
    const unrelated = event();
    bus.publish(watched);
    bus.publish(unrelated);
    bus.publish(event({ mode: "live", id: "live-event" }));
    expect(seen).toEqual({ all: [watched.id, unrelated.id], live: ["live-event"], other: [], order: [watched.id] });
  });

  it("unsubscribing removes the listener and its index entries; a throwing listener does not stop the others", async () => {
    const { bus, live } = await relay();
    const received: string[] = [];
    const stop = live.subscribe({ merchantId: MERCHANT, mode: "test", orderId: "x" }, () => received.push("x"));
    live.subscribe({ merchantId: MERCHANT, mode: "test" }, () => {
      throw new Error("boom");
    });
    const stopAll = live.subscribe({ merchantId: MERCHANT, mode: "test" }, (e) => received.push(e.id));
    expect(live.size).toBe(3);
    stop();
    stop();
    expect(live.size).toBe(2);
    const published = event({ orderId: "x" });
    bus.publish(published);
    expect(received).toEqual([published.id]);
    stopAll();
    expect(live.size).toBe(1);
  });

  it("stream(): yields in order, and return() ends a pending next() and unsubscribes", async () => {
    const { bus, live } = await relay();
    const stream = live.stream({ merchantId: MERCHANT, mode: "test" });
    const first = event();
    const second = event();
    bus.publish(first);
    bus.publish(second);
    expect(await stream.next()).toEqual({ value: first, done: false });
    expect(await stream.next()).toEqual({ value: second, done: false });
    const pending = stream.next();
    expect(live.size).toBe(1);
    await stream.return!();
    expect(await pending).toEqual({ value: undefined, done: true });
    expect(live.size).toBe(0);
    bus.publish(event());
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });

  it("stream(): a consumer more than highWaterMark events behind is cut off, not buffered without limit", async () => {
    const { bus, live } = await relay();
    const onOverflow = vi.fn();
    const stream = live.stream({ merchantId: MERCHANT, mode: "test" }, { highWaterMark: 3, onOverflow });
    for (let i = 0; i < 3; i++) bus.publish(event());
    expect(onOverflow).not.toHaveBeenCalled();
    bus.publish(event());
    expect(onOverflow).toHaveBeenCalledTimes(1);
    expect(live.size).toBe(0);
    await expect(stream.next()).rejects.toBeInstanceOf(SlowConsumerError);
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });
});

describe("LiveOrderEvents with an unreachable Redis", () => {
  it("still delivers locally and never throws at the publisher", async () => {
    const redis = new Redis("redis://127.0.0.1:1", { maxRetriesPerRequest: 0, retryStrategy: () => 1_000 });
    redis.on("error", () => undefined);
    toClose.push({ close: async () => redis.disconnect() });
    const { bus, live } = await relay(redis);
    const received: string[] = [];
    live.subscribe({ merchantId: MERCHANT, mode: "test" }, (e) => received.push(e.id));
    const published = event();
    expect(() => bus.publish(published)).not.toThrow();
    expect(received).toEqual([published.id]);
  });
});

describe.runIf(redisUrl)("LiveOrderEvents across instances (TEST_REDIS_URL)", () => {
  it("delivers each event once on every instance: local at once, remote through Redis, own echo dropped", async () => {
    const channel = `ocs:test-order-events:${Math.random().toString(36).slice(2)}`;
    const clients = [new Redis(redisUrl!), new Redis(redisUrl!)];
    toClose.push({ close: async () => clients.forEach((client) => client.disconnect()) });
    const a = await relay(clients[0], channel);
    const b = await relay(clients[1], channel);
    const onA: string[] = [];
    const onB: string[] = [];
    a.live.subscribe({ merchantId: MERCHANT, mode: "test" }, (e) => onA.push(e.id));
    b.live.subscribe({ merchantId: MERCHANT, mode: "test" }, (e) => onB.push(e.id));
    const fromA = event();
    const fromB = event();
    a.bus.publish(fromA);
    b.bus.publish(fromB);
    await vi.waitFor(() => {
      expect(onA).toContain(fromB.id);
      expect(onB).toContain(fromA.id);
    }, { timeout: 5_000 });
    // Let any echo arrive before counting.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(onA.sort()).toEqual([fromA.id, fromB.id].sort());
    expect(onB.sort()).toEqual([fromA.id, fromB.id].sort());
  });
});
