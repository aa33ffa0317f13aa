import type { Redis } from "ioredis";

/** A fixed-window counter: how many hits `key` had in its current window, and when that window ends. */
export interface AttemptCount {
  count: number;
  resetInMs: number;
}

export interface AttemptCounter {
  /** Counts one more hit and answers the count including it. */
  hit(key: string, windowMs: number): Promise<AttemptCount>;
  /** The count so far, without counting. */
  peek(key: string): Promise<AttemptCount>;
  reset(key: string): Promise<void>;
}

/** At most this many keys are tracked in memory; expired windows are dropped first when it fills. */
const MEMORY_MAX_KEYS = 100_000;

/** One instance's counters (the default without Redis, and the fallback while Redis is down). */
export class MemoryAttemptCounter implements AttemptCounter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(private readonly clock: () => number = Date.now) {}

  async hit(key: string, windowMs: number): Promise<AttemptCount> {
    const now = this.clock();
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      if (this.windows.size >= MEMORY_MAX_KEYS) this.sweep(now);
      window = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
    return { count: window.count, resetInMs: window.resetAt - now };
  }

  async peek(key: string): Promise<AttemptCount> {
    const now = this.clock();
    const window = this.windows.get(key);
    if (!window || window.resetAt <= now) return { count: 0, resetInMs: 0 };
    return { count: window.count, resetInMs: window.resetAt - now };
  }

  async reset(key: string): Promise<void> {
    this.windows.delete(key);
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
    // Still full of live windows: the oldest entries go (Map iterates in insertion order).
    for (const key of this.windows.keys()) {
      if (this.windows.size < MEMORY_MAX_KEYS) break;
      this.windows.delete(key);
    }
  }
}

/**
 * Counters shared by every instance through Redis (when REDIS_URL is set), so a sign-in throttle holds across
 * instances. While Redis fails, the instance counts in memory instead of letting attempts through uncounted.
 */
export class RedisAttemptCounter implements AttemptCounter {
  constructor(
    private readonly redis: Redis,
    private readonly fallback: AttemptCounter,
    private readonly prefix = "ocs-sign-in:",
  ) {}

  async hit(key: string, windowMs: number): Promise<AttemptCount> {
    const name = this.prefix + key;
    try {
      const results = await this.redis.multi().set(name, 0, "PX", windowMs, "NX").incr(name).pttl(name).exec();
      if (!results || results.some(([error]) => error)) throw new Error("redis transaction failed");
      return { count: Number(results[1][1]), resetInMs: Math.max(0, Number(results[2][1])) };
    } catch {
      return this.fallback.hit(key, windowMs);
    }
  }

  async peek(key: string): Promise<AttemptCount> {
    const name = this.prefix + key;
    try {
      const results = await this.redis.multi().get(name).pttl(name).exec();
      if (!results || results.some(([error]) => error)) throw new Error("redis transaction failed");
      const count = Number(results[0][1] ?? 0);
      return { count, resetInMs: Math.max(0, Number(results[1][1])) };
    } catch {
      return this.fallback.peek(key);
    }
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(this.prefix + key).catch(() => undefined);
    await this.fallback.reset(key);
  }
}
