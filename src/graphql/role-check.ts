import {
  BREAK,
  type DirectiveNode,
  type DocumentNode,
  getDirectiveValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  type GraphQLSchema,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from "graphql";
import { ForbiddenError } from "../domain/errors.ts";
import { roleMay, type Coordinate } from "../domain/users/permissions.ts";
import type { UserRole } from "../domain/users/user.repository.ts";
import type { GraphQLCaller } from "./context.ts";

/**
 * The console roles' rules (domain/users/permissions.ts) applied to a whole GraphQL document before it runs, by
 * GraphQL over HTTP (Apollo's didResolveOperation) and the websocket (onSubscribe) alike: every field the document
 * selects, in every fragment, is checked against the caller's role, so a forbidden field cannot hide behind an alias
 * or a fragment. API keys have no role and pass. Returns the refusal, or null.
 *
 * Every operation and fragment of the document is checked, not only the one to run: a document is the unit the
 * console sends, and a document with a forbidden field has no business in an agent's hands. The one exception is a
 * field or inline fragment that will not run at all, `@include(if: false)` or `@skip(if: true)` with the request's
 * variables (the console's order page asks for webhook deliveries only when its user may read them); a bad `if`
 * value is left to validation and execution, and counts as included here.
 */
export function roleRefusal(
  schema: GraphQLSchema,
  document: DocumentNode,
  caller: GraphQLCaller | null,
  variables: Record<string, unknown> | null | undefined = {},
): ForbiddenError | null {
  const role = caller?.session?.user.role;
  if (!role || role === "admin") return null;
  const denied = firstDeniedField(schema, document, role, variables ?? {});
  return denied ? new ForbiddenError(role === "viewer" ? "viewer" : "agent", { field: denied }) : null;
}

/** The first `Type.field` of the document that `role` may not select, or null. */
export function firstDeniedField(
  schema: GraphQLSchema,
  document: DocumentNode,
  role: UserRole,
  variables: Record<string, unknown> = {},
): Coordinate | null {
  const typeInfo = new TypeInfo(schema);
  let denied: Coordinate | null = null;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      InlineFragment(node) {
        if (!runs(node, variables)) return false;
      },
      Field(node) {
        if (!runs(node, variables)) return false;
        const name = node.name.value;
        // Introspection (__typename, __schema, __type) describes the schema, never data.
        if (name.startsWith("__")) return;
        const parent = typeInfo.getParentType();
        if (!parent) return;
        const coordinate: Coordinate = `${parent.name}.${name}`;
        if (!roleMay(role, coordinate)) {
          denied = coordinate;
          return BREAK;
        }
      },
    }),
  );
  return denied;
}

/** False only when @skip(if: true) or @include(if: false) says the selection will not run. */
function runs(node: { readonly directives?: readonly DirectiveNode[] }, variables: Record<string, unknown>): boolean {
  if (!node.directives?.length) return true;
  try {
    if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
    if (getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if === false) return false;
  } catch {
    // A malformed `if`: validation or execution reports it.
  }
  return true;
}
