import { afterEach, describe, expect, it } from "vitest";
import { OrderEventBus } from "../../src/domain/orders/order-events.bus.ts";
import type { StoredEvent } from "../../src/domain/orders/order.repository.ts";
import type { WebhookDeliveryRepository } from "../../src/domain/webhooks/webhook-delivery.repository.ts";
import { createLogger } from "../../src/logger.ts";
import { createMetrics } from "../../src/metrics.ts";
import { WebhookDispatcher } from "../../src/workers/webhook-dispatcher.ts";

/**
 * The dispatcher's wake-ups (src/workers/webhook-dispatcher.ts): a committed event wakes it at once after a quiet
 * spell, and a stream of commits shares fan-outs (at most one per few milliseconds) instead of one statement each.
 * The repository is a stand-in that only counts: what is tested is when the dispatcher asks it to fan out.
 */
const EVENT = {
  id: "e",
  merchantId: "m",
  mode: "test",
  orderId: "o",
  envelope: {},
} as unknown as StoredEvent;

let dispatcher: WebhookDispatcher | null = null;
afterEach(async () => {
  await dispatcher?.stop();
  dispatcher = null;
});

function start() {
  const fanOuts: number[] = [];
  const deliveries = {
    fanOut: async () => {
      fanOuts.push(performance.now());
      return { events: 0, heldBack: false };
    },
    claimDue: async () => [],
    recordAttempts: async () => ({}),
    releaseLeases: async () => undefined,
  } as unknown as WebhookDeliveryRepository;
  const bus = new OrderEventBus();
  dispatcher = new WebhookDispatcher(
    {
      deliveries,
      bus,
      logger: createLogger("silent"),
      metrics: createMetrics(),
    },
    {
      retryScheduleMs: [],
      timeoutMs: 1_000,
      allowPrivateUrls: true,
      pollIntervalMs: 60_000,
    },
  );
  dispatcher.start();
  return { fanOuts, bus };
}

const settle = (ms: number) =>
  new Promise((resolve) => setTimeout(resolve, ms));
/** Lets promise callbacks and I/O run, but no timer of a millisecond or more. */
const immediate = () => new Promise((resolve) => setImmediate(resolve));

describe("webhook fan-out wake-ups", () => {
  it("fans out an event that follows a quiet spell at once, without waiting for a timer", async () => {
    const { fanOuts, bus } = start();
    await settle(30); // the start's own fan-out, then quiet
    const before = fanOuts.length;
    bus.publish(EVENT);
    await immediate();
    await immediate();
    expect(fanOuts.length).toBe(before + 1);
  });

  it("is not woken by an event stored already dispatched (no endpoint wanted it), and is by any other", async () => {
    const { fanOuts, bus } = start();
    await settle(30);
    const before = fanOuts.length;
    bus.publish({ ...EVENT, awaitsFanOut: false });
    await settle(30);
    expect(fanOuts.length).toBe(before);
    bus.publish({ ...EVENT, awaitsFanOut: true });
    await immediate();
    await immediate();
    expect(fanOuts.length).toBe(before + 1);
  });

  it("fans out after a restart within the gap: a fan-out held back when it stopped does not block the next start", async () => {
    const { fanOuts, bus } = start();
    await settle(30);
    bus.publish(EVENT);
    await immediate();
    bus.publish(EVENT); // within the gap: held back, on a timer
    await dispatcher!.stop();
    const before = fanOuts.length;
    dispatcher!.start(); // its first wake-up falls in the same gap
    await settle(30);
    expect(fanOuts.length).toBeGreaterThan(before);
  });

  it("gathers a burst of commits into a few fan-outs, the last one after the burst", async () => {
    const { fanOuts, bus } = start();
    await settle(30);
    const before = fanOuts.length;
    const burstStart = performance.now();
    let published = 0;
    // Commits for about 2 ms: without the gap, every wake-up that found no round running would fan out (224 here).
    while (performance.now() - burstStart < 2) {
      for (let i = 0; i < 20; i++, published++) bus.publish(EVENT);
      await immediate();
    }
    const burstEnd = performance.now();
    await settle(30);
    const during = fanOuts.slice(before);
    expect(during.length).toBeGreaterThanOrEqual(2);
    // One at the start, then at most one per gap of the burst (≈ 2 ms, longer on a loaded machine), then the last.
    expect(during.length).toBeLessThanOrEqual(
      Math.ceil((burstEnd - burstStart) / 4) + 2,
    );
    expect(during.length).toBeLessThan(published / 10);
    // Fan-outs start at least 5 ms apart (timers may fire a little early on a loaded machine: 4 ms).
    for (let i = 1; i < during.length; i++)
      expect(during[i] - during[i - 1]).toBeGreaterThanOrEqual(4);
    // Nothing published is left behind: the last fan-out started after the burst ended.
    expect(during.at(-1)!).toBeGreaterThanOrEqual(burstEnd);
  });
});
