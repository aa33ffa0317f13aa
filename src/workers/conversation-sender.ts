import type { Logger } from "pino";
import type { ConversationRepository, QueuedMessage } from "../domain/conversation/conversation.repository.ts";
import { sendOutcome } from "../domain/conversation/conversation.service.ts";
import { conversationChannelOf, type ConversationMessage, type ListRow } from "../domain/messaging/messaging-provider.ts";
import type { ProviderRouter } from "../domain/orders/order.service.ts";
import { CoalescedRounds } from "./coalesced-rounds.ts";

/** How long a claimed send may take before the sweep fails it (the provider's bounded retry is far shorter). */
const LEASE_MS = 120_000;
/** Messages claimed per round, and sent at the same time. */
const BATCH = 10;
/** A look at the queue this often even without a wake-up (work queued by another instance, or left by a crash). */
const POLL_MS = 5_000;

/**
 * Sends the conversation's queued messages (the automatic reply buttons and "which order?" lists, SPEC §11) after
 * the transaction that queued them committed. The queue lives in the database (order_messages with status
 * `queued`), claimed with SKIP LOCKED, so any number of instances share it and a crash loses nothing; a send
 * interrupted by a crash is failed by the sweep, never sent twice.
 */
export class ConversationSender {
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  private readonly rounds = new CoalescedRounds(
    () => this.drain().catch((error: unknown) => this.deps.logger.warn({ err: error }, "conversation sender round failed")),
    () => !this.stopped,
  );

  constructor(
    private readonly deps: { repository: ConversationRepository; providers: ProviderRouter; logger: Logger },
  ) {}

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), POLL_MS);
    this.timer.unref();
    this.wake();
  }

  /** Look at the queue now (after a commit that queued something). */
  wake(): void {
    this.rounds.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.rounds.settled();
  }

  private async drain(): Promise<void> {
    await this.deps.repository.failExpiredSends(new Date());
    for (;;) {
      if (this.stopped) return;
      const claimed = await this.deps.repository.claimQueued(BATCH, new Date(Date.now() + LEASE_MS));
      if (claimed.length === 0) return;
      await Promise.all(claimed.map((message) => this.send(message)));
    }
  }

  private async send(queued: QueuedMessage): Promise<void> {
    const payload = (queued.payload ?? {}) as {
      replyTo?: string | null;
      buttons?: { id: string; title: string }[];
      rows?: ListRow[];
      body?: string;
      button?: string;
      listId?: string;
    };
    const language = queued.language === "ar" ? "ar" : "en";
    let content: ConversationMessage["content"];
    if (queued.kind === "list") {
      content = { type: "list", body: payload.body ?? "", button: payload.button ?? "", rows: payload.rows ?? [] };
    } else if (queued.kind === "buttons") {
      content = { type: "buttons", body: queued.text ?? "", buttons: payload.buttons ?? [] };
    } else {
      content = { type: "text", body: queued.text ?? "" };
    }
    const channel = conversationChannelOf(this.deps.providers.forMode(queued.mode));
    const result = await channel
      .sendConversationMessage({
        orderId: queued.orderId,
        merchantId: queued.merchantId,
        customerPhone: queued.customerPhone,
        language,
        replyTo: payload.replyTo ?? null,
        content,
      })
      .catch((error: unknown) => ({ outcome: "unavailable", errorCode: null, failureReason: "Unknown failure", detail: String(error) }) as const);
    if (result.outcome !== "accepted") this.deps.logger.warn({ orderId: queued.orderId, kind: queued.kind, outcome: result.outcome }, "conversation message not sent");
    await this.deps.repository.recordSend(queued.id, sendOutcome(result), payload.listId ?? null);
  }
}
