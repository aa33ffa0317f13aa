import { makeExecutableSchema } from "@graphql-tools/schema";
import { parse, type ExecutionResult } from "graphql";
import { describe, expect, it } from "vitest";
import { sharedSubscribe } from "../../src/graphql/subscriptions/shared-execution.ts";

/** A source of events the test pushes by hand; `returned` tells whether a subscriber let go of it. */
function manualSource() {
  const waiting: ((step: IteratorResult<object>) => void)[] = [];
  const state = { returned: 0 };
  return {
    state,
    push(event: object) {
      for (const resolve of waiting.splice(0)) resolve({ done: false, value: event });
    },
    iterator(): AsyncIterableIterator<object> {
      const iterator: AsyncIterableIterator<object> = {
        [Symbol.asyncIterator]: () => iterator,
        next: () => new Promise((resolve) => waiting.push(resolve)),
        return: async () => {
          state.returned++;
          return { done: true, value: undefined };
        },
      };
      return iterator;
    },
  };
}

function setup() {
  const source = manualSource();
  let resolved = 0;
  const schema = makeExecutableSchema({
    typeDefs: `type Query { ok: Boolean } type Subscription { changed(tag: String): Change! } type Change { id: ID! tag: String }`,
    resolvers: {
      Subscription: {
        changed: {
          subscribe: () => source.iterator(),
          resolve: (event: { id: string }, args: { tag?: string }) => {
            resolved++;
            return { id: event.id, tag: args.tag ?? null };
          },
        },
      },
    },
  });
  return { source, schema, resolvedCount: () => resolved };
}

const document = parse(`subscription ($tag: String) { changed(tag: $tag) { id tag } }`);

describe("sharedSubscribe", () => {
  it("executes once per event for every subscriber of the same document and variables, and apart otherwise", async () => {
    const { source, schema, resolvedCount } = setup();
    const subscribe = (tag: string, contextValue: object) =>
      sharedSubscribe({ schema, document, variableValues: { tag }, contextValue }) as Promise<AsyncIterableIterator<ExecutionResult>>;
    const [a, b, c] = await Promise.all([subscribe("x", { who: "a" }), subscribe("x", { who: "b" }), subscribe("y", { who: "c" })]);
    const next = [a.next(), b.next(), c.next()];
    source.push({ id: "1" });
    const [ra, rb, rc] = await Promise.all(next);
    expect(ra.value).toEqual({ data: { changed: { id: "1", tag: "x" } } });
    expect(rb.value).toBe(ra.value);
    expect(rc.value).toEqual({ data: { changed: { id: "1", tag: "y" } } });
    expect(resolvedCount()).toBe(2);

    // A new event object is a new execution.
    const again = [a.next(), b.next()];
    source.push({ id: "2" });
    expect((await Promise.all(again)).map((step) => step.value)).toEqual([
      { data: { changed: { id: "2", tag: "x" } } },
      { data: { changed: { id: "2", tag: "x" } } },
    ]);
    expect(resolvedCount()).toBe(3);
  });

  it("lets go of its source at once on return(), even while waiting for an event", async () => {
    const { source, schema } = setup();
    const iterator = (await sharedSubscribe({ schema, document, variableValues: {} })) as AsyncIterableIterator<ExecutionResult>;
    void iterator.next();
    await iterator.return!();
    expect(source.state.returned).toBe(1);
  });

  it("answers errors before any event as a result, like graphql-js", async () => {
    const { schema } = setup();
    const result = (await sharedSubscribe({ schema, document: parse(`subscription { missing }`) })) as ExecutionResult;
    expect(result.errors?.length).toBeGreaterThan(0);
  });
});
