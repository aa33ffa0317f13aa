import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { Logger } from "pino";

/** What `ended()` is told for a revoked API key (its sockets close like a signed-out session's). */
export function apiKeyEndMarker(keyId: string): string {
  return `api-key:${keyId}`;
}

/**
 * Tells every instance that sessions ended (sign-out, a removed user, a new password), so the websockets those
 * sessions opened close at once (4403) instead of at their next periodic check. Local listeners hear it directly;
 * other instances through Redis pub/sub when REDIS_URL is set (without Redis there is one instance).
 */
export class SessionEnds {
  private readonly listeners = new Set<(sessionIds: string[]) => void>();
  private readonly instance = randomUUID();
  private subscriber: Redis | null = null;

  constructor(
    private readonly redis: Redis | null,
    private readonly logger: Logger,
    private readonly channel = "ocs:sessions-ended",
  ) {}

  /** Subscribes to other instances' ends (no-op without Redis). */
  async start(): Promise<void> {
    if (!this.redis) return;
    const subscriber = this.redis.duplicate();
    this.subscriber = subscriber;
    subscriber.on("error", () => undefined); // the main connection's handler already reports Redis outages
    subscriber.on("message", (_channel: string, message: string) => {
      try {
        const parsed = JSON.parse(message) as { from?: string; sessionIds?: unknown };
        if (parsed.from === this.instance || !Array.isArray(parsed.sessionIds)) return;
        this.emit(parsed.sessionIds.filter((id): id is string => typeof id === "string"));
      } catch {
        // not ours
      }
    });
    await subscriber.subscribe(this.channel).catch((error: unknown) => this.logger.warn({ err: error }, "cannot subscribe to session ends"));
  }

  onEnded(listener: (sessionIds: string[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  ended(sessionIds: string[]): void {
    if (sessionIds.length === 0) return;
    this.emit(sessionIds);
    this.redis?.publish(this.channel, JSON.stringify({ from: this.instance, sessionIds })).catch(() => undefined);
  }

  /** Publishes to the other instances only, and waits until Redis took it (the CLI, which has no sockets). */
  async announce(sessionIds: string[]): Promise<void> {
    if (this.redis && sessionIds.length) await this.redis.publish(this.channel, JSON.stringify({ from: this.instance, sessionIds }));
  }

  close(): void {
    this.subscriber?.disconnect();
  }

  private emit(sessionIds: string[]): void {
    for (const listener of this.listeners) listener(sessionIds);
  }
}
