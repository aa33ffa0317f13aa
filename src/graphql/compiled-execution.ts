import type { GatewayExecutor, GatewayInterface } from "@apollo/server-gateway-interface";
import { execute, type DocumentNode, type ExecutionResult, type GraphQLSchema } from "graphql";
import { compileQuery, isCompiledQuery, type CompiledQuery } from "graphql-jit";

/**
 * Apollo Server executing HTTP operations with graphql-jit instead of graphql-js's interpreter.
 *
 * graphql-js walks the document for every request (collect fields, look up each field's definition, coerce its
 * arguments, complete each value); graphql-jit does that walk once per document and compiles it into a function
 * that only calls resolvers and serialises leaves. For `order(id)` with every field that removes most of
 * execution's cost per request (see bench/README.md, "GraphQL order(id)").
 *
 * Apollo Server's only hook to replace execution is its gateway interface: a gateway hands Apollo the schema and
 * an executor, and Apollo still does everything else as before (parsing with our bounds, validation with our
 * depth and cost rules, the document cache, plugins, error formatting, HTTP status). Subscriptions over the
 * websocket keep graphql-js (graphql-jit does not execute subscriptions).
 *
 * Compiled queries are kept per parsed document (weakly): Apollo hands every request with the same query text
 * the same DocumentNode from its bounded document store, so they live exactly as long as that cache entry.
 */
export function compiledExecutionGateway(schema: GraphQLSchema): GatewayInterface {
  return {
    async load() {
      return { executor: compiledExecutor(schema) };
    },
    onSchemaLoadOrUpdate(callback) {
      // The schema never changes while the server runs (schema.graphql is read at start-up).
      callback({ apiSchema: schema, coreSupergraphSdl: "" });
      return () => {};
    },
    async stop() {},
  };
}

/** Compiled operations by document and operation name. */
const compiledByDocument = new WeakMap<DocumentNode, Map<string, CompiledQuery | ExecutionResult>>();

export function compiledExecutor(schema: GraphQLSchema): GatewayExecutor {
  return async ({ document, request, operationName, context }) => {
    const compiled = compiledOperation(schema, document, operationName ?? undefined);
    const interpreted = () =>
      execute({ schema, document, operationName, contextValue: context, variableValues: request.variables });
    // graphql-jit refused the document (it never should after validation): graphql-js answers it.
    if (!isCompiledQuery(compiled)) return interpreted();
    const result = await compiled.query(undefined, context, request.variables ?? {});
    // No data at all: the variables could not be coerced, and nothing ran. graphql-js reports that with the
    // variable's definition attached, which Apollo answers as HTTP 400 BAD_USER_INPUT (graphql-jit's errors carry
    // no node, so they would be a 200); it coerces the same variables and stops at the same point.
    if (result.data === undefined && result.errors?.length) return interpreted();
    return result;
  };
}

function compiledOperation(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined) {
  let operations = compiledByDocument.get(document);
  if (!operations) {
    operations = new Map();
    compiledByDocument.set(document, operations);
  }
  const key = operationName ?? "";
  let compiled = operations.get(key);
  if (!compiled) {
    // Leaves are serialised by their scalar's own serialize (DateTime, JSON), as graphql-js does; Apollo turns
    // the result into JSON itself.
    compiled = compileQuery(schema, document, operationName, { customJSONSerializer: false });
    operations.set(key, compiled);
  }
  return compiled;
}
