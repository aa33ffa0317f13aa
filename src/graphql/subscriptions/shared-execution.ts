import {
  createSourceEventStream,
  execute,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
} from "graphql";

/**
 * graphql-js's `subscribe()` executes the selection once per subscriber and event. Here every subscriber of a
 * merchant and mode receives the very same event object (the live-event relay hands one StoredEvent to all of
 * them), and no field of `OrderStatusEvent` or `Order` reads more of the context than the caller's merchant and
 * mode, which every recipient of one event shares (`Order.webhookDeliveries` reads the caller's deliveries of
 * that order; nothing reads the user, role or language): one document with the same variables therefore gives
 * the same result to all of them. This `subscribe` executes it once per
 * (event, document, operation, variables) and shares the result, which turns fan-out from one execution per
 * subscriber into one JSON encoding per subscriber.
 *
 * If a field ever comes to depend on the context, it must be resolved outside this cache (or the key must
 * include what it depends on).
 */
const results = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();
const documentIds = new WeakMap<DocumentNode, number>();
let nextDocumentId = 0;

export async function sharedSubscribe(
  args: ExecutionArgs,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const stream = await createSourceEventStream(args);
  if (!isAsyncIterable(stream)) return stream;
  const key = `${documentId(args.document)}:${args.operationName ?? ""}:${JSON.stringify(args.variableValues ?? {})}`;
  const source = stream[Symbol.asyncIterator]();
  const toResult = async (step: IteratorResult<unknown>): Promise<IteratorResult<ExecutionResult>> =>
    step.done ? { done: true, value: undefined } : { done: false, value: await resultFor(step.value, key, args) };
  // A hand-written iterator rather than an async generator: return() must reach the source at once, even while
  // a next() is waiting for an event (a generator would queue it behind that next()).
  const iterator: AsyncIterableIterator<ExecutionResult> = {
    [Symbol.asyncIterator]: () => iterator,
    next: () =>
      source.next().then(toResult, async (error: unknown) => {
        await source.return?.();
        throw error;
      }),
    return: async () => {
      await source.return?.();
      return { done: true, value: undefined };
    },
    throw: async (error?: unknown) => {
      await source.return?.();
      throw error;
    },
  };
  return iterator;
}

function resultFor(payload: unknown, key: string, args: ExecutionArgs): Promise<ExecutionResult> {
  const run = async () => execute({ ...args, rootValue: payload });
  if (typeof payload !== "object" || payload === null) return run();
  let byKey = results.get(payload);
  if (!byKey) results.set(payload, (byKey = new Map()));
  let result = byKey.get(key);
  if (!result) byKey.set(key, (result = run()));
  return result;
}

function documentId(document: DocumentNode): number {
  let id = documentIds.get(document);
  if (id === undefined) documentIds.set(document, (id = nextDocumentId++));
  return id;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof (value as AsyncIterable<unknown> | null)?.[Symbol.asyncIterator] === "function";
}
