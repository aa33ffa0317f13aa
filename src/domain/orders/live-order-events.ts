import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { throttledWarn } from "../../logger.ts";
import type { OrderEventBus } from "./order-events.bus.ts";
import type { MerchantScope, StoredEvent } from "./order.repository.ts";

/** Which committed events a live subscriber wants: always one merchant and mode, optionally one order. */
export interface LiveEventFilter extends MerchantScope {
  orderId?: string | null;
  /** Only events of these names (all when absent). */
  events?: readonly string[];
}

export type LiveEventListener = (event: StoredEvent) => void;

export interface LiveEventStreamOptions {
  /** Events buffered for a consumer that is not pulling; one more and the stream fails (see `onOverflow`). */
  highWaterMark?: number;
  /** Called once, synchronously, when the buffer overflows: the transport drops the slow consumer here. */
  onOverflow?: () => void;
}

export interface LiveOrderEventsOptions {
  /** With a client, events cross instances through Redis pub/sub; without, they stay in this process. */
  redis: Redis | null;
  logger: Logger;
  channel?: string;
}

export const DEFAULT_LIVE_EVENTS_CHANNEL = "ocs:order-events";
export const DEFAULT_HIGH_WATER_MARK = 100;
/** How long start() waits for the Redis subscription before going on without it (it keeps retrying). */
const SUBSCRIBE_WAIT_MS = 2_000;

/** The stream failed because its consumer fell more than `highWaterMark` events behind. */
export class SlowConsumerError extends Error {
  constructor(readonly highWaterMark: number) {
    super(`Subscriber too slow: more than ${highWaterMark} events waiting`);
    this.name = "SlowConsumerError";
  }
}

interface Group {
  /** Subscribers of every order of the merchant and mode. */
  all: Set<LiveEventListener>;
  /** Subscribers of one order, by order id. */
  byOrder: Map<string, Set<LiveEventListener>>;
}

interface RelayMessage {
  /** The instance that published it: its own echo is dropped (it delivered the event locally already). */
  origin: string;
  event: StoredEvent;
}

/**
 * Committed order events for live subscribers (GraphQL subscriptions), from every instance.
 *
 * Local events come from the OrderEventBus (published after commit) and are delivered to this process's
 * subscribers at once; with Redis each is also PUBLISHed, tagged with this instance's id, and the other
 * instances deliver it to theirs. An instance drops its own echo instead of routing local delivery
 * through Redis, so a Redis outage or slowdown never delays or loses events for subscribers connected to
 * the instance that produced them, and each event still reaches every subscriber exactly once. Events
 * published while Redis is down do not reach the other instances: this is a live feed, the outbox (and
 * webhooks) is the durable record.
 *
 * Remote events go to live subscribers only, never onto the local bus: the bus's other consumers (metrics,
 * simulator, webhook dispatch) are about this instance's own commits.
 *
 * Subscribers are indexed by merchant and mode (then order), so an event costs O(its subscribers), not
 * O(all subscribers).
 */
export class LiveOrderEvents {
  readonly instanceId = randomUUID();
  private readonly groups = new Map<string, Group>();
  private readonly channel: string;
  private readonly logger: Logger;
  /** At most one warning per 30 s: an outage must not flood the log with one line per event. */
  private readonly warn: (details: object, message: string) => void;
  private readonly publisher: Redis | null;
  private subscriber: Redis | null = null;
  private stopBus: (() => void) | null = null;
  private subscriberCount = 0;

  private constructor(bus: OrderEventBus, options: LiveOrderEventsOptions) {
    this.channel = options.channel ?? DEFAULT_LIVE_EVENTS_CHANNEL;
    this.logger = options.logger;
    this.warn = throttledWarn(options.logger);
    this.publisher = options.redis;
    this.stopBus = bus.subscribe((event) => this.onLocalEvent(event));
  }

  /**
   * Starts relaying. With Redis, waits (up to 2 s) for the channel subscription so that an instance that
   * answers requests also hears the others; if Redis is down it starts anyway and subscribes once it is back.
   */
  static async start(bus: OrderEventBus, options: LiveOrderEventsOptions): Promise<LiveOrderEvents> {
    const relay = new LiveOrderEvents(bus, options);
    if (relay.publisher) await relay.listenToRedis(relay.publisher);
    return relay;
  }

  /** Live subscribers in this process. */
  get size(): number {
    return this.subscriberCount;
  }

  /** Calls `listener` with every committed event matching `filter`, until the returned function is called. */
  subscribe(filter: LiveEventFilter, listener: LiveEventListener): () => void {
    const key = groupKey(filter.merchantId, filter.mode);
    let group = this.groups.get(key);
    if (!group) this.groups.set(key, (group = { all: new Set(), byOrder: new Map() }));
    const orderId = filter.orderId ?? null;
    if (filter.events) {
      const names = new Set(filter.events);
      const unfiltered = listener;
      listener = (event) => {
        if (names.has(event.envelope.event)) unfiltered(event);
      };
    }
    let set = group.all;
    if (orderId) {
      set = group.byOrder.get(orderId) ?? new Set();
      group.byOrder.set(orderId, set);
    }
    set.add(listener);
    this.subscriberCount++;
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      set.delete(listener);
      this.subscriberCount--;
      if (orderId && set.size === 0) group.byOrder.delete(orderId);
      if (group.all.size === 0 && group.byOrder.size === 0 && this.groups.get(key) === group) this.groups.delete(key);
    };
  }

  /**
   * The matching events as an async iterator with a bounded buffer: a consumer that falls more than
   * `highWaterMark` events behind gets a SlowConsumerError (and `onOverflow` is called) instead of the
   * process buffering without limit. `return()` unsubscribes.
   */
  stream(filter: LiveEventFilter, options: LiveEventStreamOptions = {}): AsyncIterableIterator<StoredEvent> {
    return new LiveEventStream(this, filter, options.highWaterMark ?? DEFAULT_HIGH_WATER_MARK, options.onOverflow);
  }

  /** Stops relaying: local subscribers stay registered but receive nothing more. */
  async close(): Promise<void> {
    this.stopBus?.();
    this.stopBus = null;
    const subscriber = this.subscriber;
    this.subscriber = null;
    subscriber?.disconnect();
  }

  private onLocalEvent(event: StoredEvent): void {
    this.deliver(event);
    if (!this.publisher) return;
    const message: RelayMessage = { origin: this.instanceId, event };
    // Never awaited by the order flow: the event is committed, only its cross-instance copy may be lost.
    this.publisher.publish(this.channel, JSON.stringify(message)).catch((error: unknown) => {
      this.warn({ err: error, eventId: event.id }, "could not relay an order event through redis; other instances miss it");
    });
  }

  private onRemoteMessage(text: string): void {
    let message: RelayMessage;
    try {
      message = JSON.parse(text) as RelayMessage;
    } catch {
      this.warn({ channel: this.channel }, "ignored a malformed order event message on redis");
      return;
    }
    if (message?.origin === this.instanceId) return;
    if (!isStoredEvent(message?.event)) {
      this.warn({ channel: this.channel }, "ignored a malformed order event message on redis");
      return;
    }
    this.deliver(message.event);
  }

  private deliver(event: StoredEvent): void {
    const group = this.groups.get(groupKey(event.merchantId, event.mode));
    if (!group) return;
    // Copies: a listener may unsubscribe (itself or another) while being called.
    for (const listener of [...group.all]) this.call(listener, event);
    const ofOrder = group.byOrder.get(event.orderId);
    if (ofOrder) for (const listener of [...ofOrder]) this.call(listener, event);
  }

  private call(listener: LiveEventListener, event: StoredEvent): void {
    try {
      listener(event);
    } catch (error) {
      this.logger.error({ err: error, eventId: event.id }, "live order event listener threw");
    }
  }

  private async listenToRedis(publisher: Redis): Promise<void> {
    // A connection in subscriber mode can do nothing else, hence a dedicated one (same URL). Its commands wait
    // for the connection however long Redis is away (maxRetriesPerRequest: null): the client's default gives
    // up after two retries, and a SUBSCRIBE that never succeeded is not one ioredis re-subscribes after a
    // reconnect, so an instance started while Redis was down would never hear the other instances.
    const subscriber = publisher.duplicate({ maxRetriesPerRequest: null });
    this.subscriber = subscriber;
    subscriber.on("error", (error: Error) => {
      this.warn({ err: error }, "redis unavailable; subscriptions only see this instance's events meanwhile");
    });
    subscriber.on("message", (channel: string, text: string) => {
      if (channel === this.channel) this.onRemoteMessage(text);
    });
    const subscribe = (): Promise<boolean> =>
      subscriber.subscribe(this.channel).then(
        () => true,
        (error: unknown) => {
          this.warn({ err: error }, "could not subscribe to the order event channel yet; retrying when Redis is back");
          return false;
        },
      );
    let subscribed = subscribe();
    // Belt and braces: whenever the connection is (re)established without the channel, subscribe again.
    subscriber.on("ready", () => {
      void subscribed.then((ok) => {
        if (!ok && subscriber.status === "ready") subscribed = subscribe();
      });
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), SUBSCRIBE_WAIT_MS)));
    await Promise.race([subscribed, timeout]).finally(() => clearTimeout(timer));
  }
}

function groupKey(merchantId: string, mode: string): string {
  return `${merchantId}:${mode}`;
}

function isStoredEvent(value: unknown): value is StoredEvent {
  const event = value as StoredEvent | null | undefined;
  return (
    typeof event?.id === "string" &&
    typeof event.merchantId === "string" &&
    (event.mode === "live" || event.mode === "test") &&
    typeof event.orderId === "string" &&
    typeof event.envelope?.event === "string" &&
    typeof event.envelope.timestamp === "string" &&
    typeof event.envelope.data === "object" &&
    event.envelope.data !== null
  );
}

/** A push source turned into a pull iterator, with a bounded buffer. */
class LiveEventStream implements AsyncIterableIterator<StoredEvent> {
  private readonly buffer: StoredEvent[] = [];
  private waiting: { resolve: (result: IteratorResult<StoredEvent>) => void; reject: (error: Error) => void } | null = null;
  private failure: Error | null = null;
  private finished = false;
  private readonly unsubscribe: () => void;

  constructor(
    source: LiveOrderEvents,
    filter: LiveEventFilter,
    private readonly highWaterMark: number,
    private readonly onOverflow?: () => void,
  ) {
    this.unsubscribe = source.subscribe(filter, (event) => this.push(event));
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<StoredEvent> {
    return this;
  }

  next(): Promise<IteratorResult<StoredEvent>> {
    const event = this.buffer.shift();
    if (event) return Promise.resolve({ value: event, done: false });
    if (this.failure) {
      const failure = this.failure;
      this.failure = null;
      return Promise.reject(failure);
    }
    if (this.finished) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  return(): Promise<IteratorResult<StoredEvent>> {
    this.finish();
    this.buffer.length = 0;
    this.failure = null;
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(error?: unknown): Promise<IteratorResult<StoredEvent>> {
    this.finish();
    this.buffer.length = 0;
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }

  private push(event: StoredEvent): void {
    if (this.finished) return;
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = null;
      resolve({ value: event, done: false });
      return;
    }
    if (this.buffer.length < this.highWaterMark) {
      this.buffer.push(event);
      return;
    }
    // The consumer is not pulling: what it would get next is already stale. Fail rather than grow.
    this.finish();
    this.buffer.length = 0;
    this.failure = new SlowConsumerError(this.highWaterMark);
    this.onOverflow?.();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.unsubscribe();
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.resolve({ value: undefined, done: true });
  }
}
