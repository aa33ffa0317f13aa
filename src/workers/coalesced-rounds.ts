/**
 * A background worker's rounds, one at a time: a wake while a round runs asks for exactly one more round after it
 * (however many wakes came), so bursts of wakes (every committed event, a poll timer) never stack rounds or lose one.
 */
export class CoalescedRounds {
  private current: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly round: () => Promise<void>,
    /** False once the worker is stopping: no new round starts, not even a requested one. */
    private readonly mayRun: () => boolean,
  ) {}

  /** Starts a round now, or asks for one more after the round under way. */
  wake(): void {
    if (!this.mayRun()) return;
    if (this.current) {
      this.again = true;
      return;
    }
    this.current = this.round().finally(() => {
      this.current = null;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  /** Resolves once the round under way, if any, has ended (a stopping worker's rounds start no other). */
  async settled(): Promise<void> {
    await this.current;
  }
}
