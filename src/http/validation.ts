import type { FastifySchemaCompiler } from "fastify";
import type { ZodType } from "zod";
import { ValidationError } from "../domain/errors.ts";
import { problemFromIssue } from "../i18n/zod-issues.ts";

/** Where a problem was found, as the client would name it. */
const ROOTS: Record<string, string | undefined> = { body: undefined, querystring: undefined, params: undefined, headers: undefined };

/**
 * Validates with the route's zod schema and reports every problem as a localisable ValidationError, which
 * the REST error mapper answers with SPEC §3's 400 body.
 */
export const zodValidatorCompiler: FastifySchemaCompiler<ZodType> = ({ schema, httpPart }) => (data) => {
  const result = schema.safeParse(data, { reportInput: true });
  if (result.success) return { value: result.data };
  const root = httpPart ? ROOTS[httpPart] : undefined;
  const error = new ValidationError(result.error.issues.map((issue) => problemFromIssue(issue, root)));
  return { error: Object.assign(error, { statusCode: 400 }) };
};

/** Responses are documented with zod schemas but serialised directly: the domain already shaped them. */
export const jsonSerializerCompiler = () => (data: unknown) => JSON.stringify(data);
