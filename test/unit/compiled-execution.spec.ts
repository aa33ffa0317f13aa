import { makeExecutableSchema } from "@graphql-tools/schema";
import { execute, GraphQLError, Kind, parse, type DocumentNode } from "graphql";
import { describe, expect, it } from "vitest";
import { compiledExecutor } from "../../src/graphql/compiled-execution.ts";
import { SCHEMA_SDL } from "../../src/graphql/schema.ts";
import { DateTimeScalar, JSONScalar } from "../../src/graphql/scalars.ts";

const order = {
  id: "0b7c8f0e-8d1f-4a59-9a43-0c3a4f1f2d11",
  externalOrderId: "ORD-1",
  status: "PENDING",
  customerAction: null,
  deliveryStatus: "SENT",
  customerName: "Layla",
  customerPhone: "+966500000001",
  customerAddress: "Riyadh",
  subtotal: 10.5,
  shippingCost: 1,
  totalCost: 11.5,
  currency: "SAR",
  failureReason: null,
  errorCode: null,
  items: [{ id: "i1", productName: "Tea", variantName: null, quantity: 2, unitPrice: 5.25, totalPrice: 10.5 }],
  createdAt: "2026-11-24T10:00:00.000Z",
  updatedAt: "2026-11-24T10:00:01.000Z",
};

const schema = makeExecutableSchema({
  typeDefs: SCHEMA_SDL,
  resolvers: {
    DateTime: DateTimeScalar,
    JSON: JSONScalar,
    Query: {
      order: async (_: unknown, { id }: { id: string }) => {
        if (id === "boom") throw new GraphQLError("refused", { extensions: { code: "BAD_USER_INPUT", http: { status: 400 } } });
        return id === order.id ? order : null;
      },
    },
  },
});

const executor = compiledExecutor(schema);

/** What the executor answers, as Apollo would call it (a validated document, its variables). */
async function compiled(document: DocumentNode, variables: Record<string, unknown> = {}) {
  const request = { document, request: { variables }, operationName: null, context: {} };
  return executor(request as unknown as Parameters<typeof executor>[0]);
}

const interpreted = (document: DocumentNode, variables: Record<string, unknown> = {}) =>
  execute({ schema, document, variableValues: variables, contextValue: {} });

describe("GraphQL execution compiled by graphql-jit", () => {
  it("answers exactly what graphql-js answers: every field, aliases, fragments, @skip/@include, unknown ids", async () => {
    const document = parse(`
      query Q($id: ID!, $withItems: Boolean!) {
        order(id: $id) { ...Fields items @include(if: $withItems) { id productName variantName quantity unitPrice totalPrice } }
        other: order(id: "00000000-0000-4000-8000-000000000000") { id }
        __typename
      }
      fragment Fields on Order { id externalOrderId status customerAction deliveryStatus customerName customerPhone
        customerAddress subtotal shippingCost totalCost currency failureReason errorCode createdAt updatedAt
        skipped: id @skip(if: true) }`);
    for (const withItems of [true, false]) {
      const variables = { id: order.id, withItems };
      const result = await compiled(document, variables);
      expect(JSON.stringify(result)).toBe(JSON.stringify(await interpreted(document, variables)));
    }
    expect((await compiled(document, { id: order.id, withItems: true })).data).toMatchObject({
      order: { id: order.id, items: [{ productName: "Tea" }] },
      other: null,
    });
  });

  it("keeps a resolver's error as thrown: message, path and extensions (the HTTP status Apollo reads)", async () => {
    const result = await compiled(parse(`{ order(id: "boom") { id } }`));
    expect(result.data).toEqual({ order: null });
    expect(result.errors).toHaveLength(1);
    expect(result.errors![0]).toMatchObject({ message: "refused", path: ["order"], extensions: { code: "BAD_USER_INPUT" } });
  });

  it("reports variables that cannot be coerced as graphql-js does (with their definition, so Apollo answers 400)", async () => {
    const document = parse(`query Q($id: ID!) { order(id: $id) { id } }`);
    const result = await compiled(document, {});
    expect(result.data).toBeUndefined();
    expect(result.errors![0].message).toBe('Variable "$id" of required type "ID!" was not provided.');
    expect((result.errors![0] as GraphQLError).nodes?.[0].kind).toBe(Kind.VARIABLE_DEFINITION);
  });
});
