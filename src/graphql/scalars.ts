import { GraphQLError, GraphQLScalarType, Kind } from "graphql";
import { z } from "zod";
import { isIsoDateTime } from "../domain/orders/order.schemas.ts";

const isoDateTimeFormat = z.iso.datetime({ offset: true });

function parseDateTime(value: unknown): string {
  if (isIsoDateTime(value)) return value;
  if (typeof value === "string" && isoDateTimeFormat.safeParse(value).success) {
    throw new GraphQLError("DateTime must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z");
  }
  throw new GraphQLError("DateTime must be an ISO 8601 date-time with a time-zone offset, e.g. 2026-01-31T12:00:00Z");
}

/**
 * ISO 8601 timestamps. Orders already carry them as UTC text with milliseconds (the REST and webhook form),
 * so output passes through; input is checked by REST's createdFrom/createdTo rule (isIsoDateTime, offset required).
 */
export const DateTimeScalar = new GraphQLScalarType<string, string>({
  name: "DateTime",
  serialize: (value) => {
    if (typeof value === "string") return value;
    if (value instanceof Date) return value.toISOString();
    throw new GraphQLError("DateTime cannot represent this value");
  },
  parseValue: parseDateTime,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError("DateTime must be a string", { nodes: ast });
    return parseDateTime(ast.value);
  },
});

/** Output-only JSON values (timeline details): serialised as they are. Refused as input: no field takes one. */
export const JSONScalar = new GraphQLScalarType<Record<string, unknown>, unknown>({
  name: "JSON",
  serialize: (value) => value as Record<string, unknown>,
  parseValue: () => {
    throw new GraphQLError("JSON values are not accepted as input");
  },
  parseLiteral: (ast) => {
    throw new GraphQLError("JSON values are not accepted as input", { nodes: ast });
  },
});
