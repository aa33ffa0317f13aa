import { GraphQLError, Kind, visit, type DocumentNode } from "graphql";
import { findInputProblem, hasNul, isStorableText } from "../domain/storable.ts";
import { translate, type Language } from "../i18n/messages.ts";
import { fieldPath } from "../i18n/zod-issues.ts";
import { GraphQLErrorCode } from "./error-codes.ts";

/**
 * Bounds on a GraphQL request that hold before any resolver runs, on HTTP and on the websocket alike:
 *
 * - a document longer than MAX_DOCUMENT_LENGTH characters is refused before it is parsed, and the parser stops
 *   after MAX_TOKENS tokens (graphql-js `maxTokens`), so neither a huge nor a deeply nested document (which
 *   would exhaust the parser's stack) costs more than a bounded amount of work;
 * - no list in the variables is longer than MAX_LIST_LENGTH (arguments have their own, smaller bounds);
 * - no string in the variables or the document's literals holds a NUL or an unpaired surrogate, which
 *   PostgreSQL cannot store.
 *
 * The largest useful document (every order field, a page of orders with items and filters) is about 700
 * characters and 150 tokens; the standard introspection query about 1,700 characters and 350 tokens.
 */
export const MAX_DOCUMENT_LENGTH = 32 * 1024;
export const MAX_TOKENS = 1_000;
export const MAX_LIST_LENGTH = 1_000;

export const parseOptions = { maxTokens: MAX_TOKENS } as const;

/** A document over the length bound, refused unparsed (400 on HTTP, an `error` message on the websocket). */
export function documentTooLargeError(length: number): GraphQLError {
  return new GraphQLError(
    `The document is ${length} characters long, more than the limit of ${MAX_DOCUMENT_LENGTH}: send a smaller document`,
    { extensions: { code: "GRAPHQL_PARSE_FAILED", maxLength: MAX_DOCUMENT_LENGTH, http: { status: 400 } } },
  );
}

export const NESTED_TOO_DEEPLY = "The document cannot be parsed: it is nested too deeply";

/**
 * A parse that failed without a GraphQLError: graphql-js recursing out of stack on deeply nested lists or
 * selections within the token limit. Answered as a parse failure (Apollo would pass the RangeError's text on).
 */
export function unparsableDocumentError(): GraphQLError {
  return new GraphQLError(NESTED_TOO_DEEPLY, { extensions: { code: "GRAPHQL_PARSE_FAILED", http: { status: 400 } } });
}

/**
 * The first problem of a request's variables and string literals, as a BAD_USER_INPUT error (HTTP 400)
 * naming where it is (`["variables", "input", "customerName"]`), or null.
 */
export function unstorableInputError(document: DocumentNode, variables: unknown, language: Language): GraphQLError | null {
  const problem = findInputProblem(variables ?? {}, MAX_LIST_LENGTH);
  if (problem) {
    const field = fieldPath(problem.path);
    const message =
      problem.kind === "list"
        ? translate("field.array.max", language, { max: problem.max })
        : translate(`field.text.${problem.kind}`, language);
    return badRequestInput(`$${field} ${message}`, ["variables", ...problem.path.map(String)], language);
  }
  if (storableLiterals.has(document)) return null;
  let literal: GraphQLError | null = null;
  visit(document, {
    [Kind.STRING](node) {
      if (literal || isStorableText(node.value)) return;
      const key = hasNul(node.value) ? "field.text.nul" : "field.text.surrogate";
      literal = new GraphQLError(translate("error.VALIDATION_ERROR", language, { details: `"…" ${translate(key, language)}` }), {
        nodes: node,
        extensions: { code: GraphQLErrorCode.BAD_USER_INPUT, http: { status: 400 } },
      });
    },
  });
  // Apollo hands every request with the same query text the same parsed document: check its literals once.
  if (!literal) storableLiterals.add(document);
  return literal;
}

/** Parsed documents whose string literals are all storable (held weakly: they go with Apollo's document cache). */
const storableLiterals = new WeakSet<DocumentNode>();

function badRequestInput(summary: string, field: string[], language: Language): GraphQLError {
  return new GraphQLError(translate("error.VALIDATION_ERROR", language, { details: summary }), {
    extensions: { code: GraphQLErrorCode.BAD_USER_INPUT, field, http: { status: 400 } },
  });
}
