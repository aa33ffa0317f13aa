/** Reads a text/event-stream response (the /api/v1/test/events channel) event by event. */
export interface StreamEvent {
  event: string;
  data: any;
}

export class EventStreamReader {
  private buffer = "";
  private readonly received: StreamEvent[] = [];
  private readonly reader: ReadableStreamDefaultReader<string>;
  /** A read that outlived a timeout is kept for the next wait, so no chunk is lost. */
  private pending: ReturnType<ReadableStreamDefaultReader<string>["read"]> | null = null;

  constructor(readonly response: Response, private readonly controller: AbortController) {
    this.reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  }

  static async open(url: string, headers: Record<string, string>): Promise<EventStreamReader> {
    const controller = new AbortController();
    const response = await fetch(url, { headers, signal: controller.signal });
    return new EventStreamReader(response, controller);
  }

  /** Every event seen so far (in order). */
  get events(): StreamEvent[] {
    return [...this.received];
  }

  /** The next event matching `predicate` (already received ones included), or a failure after `timeoutMs`. */
  async waitFor(predicate: (event: StreamEvent) => boolean, timeoutMs = 5_000): Promise<StreamEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(predicate);
      if (found) return found;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(this.received)}`);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), remaining)));
      this.pending ??= this.reader.read();
      const chunk = await Promise.race([this.pending, timeout]).finally(() => clearTimeout(timer));
      if (chunk === "timeout") continue;
      this.pending = null;
      if (chunk.done) throw new Error(`stream ended; got ${JSON.stringify(this.received)}`);
      this.buffer += chunk.value;
      let end: number;
      while ((end = this.buffer.indexOf("\n\n")) >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        let event = "message";
        const data: string[] = [];
        for (const line of block.split("\n")) {
          if (line.startsWith("event:")) event = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
        }
        if (data.length) this.received.push({ event, data: JSON.parse(data.join("\n")) });
      }
    }
  }

  close(): void {
    this.controller.abort();
    this.reader.cancel().catch(() => undefined);
  }
}
