import {
  GraphQLError,
  getNamedType,
  isCompositeType,
  isObjectType,
  isInterfaceType,
  Kind,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
  type ValueNode,
} from "graphql";
import { maxDepthRule } from "@escape.tech/graphql-armor-max-depth";
import { MAX_PAGE_SIZE } from "../domain/orders/order.schemas.ts";

/**
 * Limits on what one GraphQL document may ask for, checked during validation (before any resolver runs, and
 * cached with the document by Apollo).
 *
 * Depth: the deepest useful selection is `orders { edges { node { items { id } } } }` (5 levels); 6 leaves one
 * level of slack. Introspection fields are not counted (the standard introspection query nests `ofType` far
 * deeper); introspection itself is refused in production.
 *
 * Cost (Shopify's model): every object field costs 1, scalars and enums 0; a connection field costs its page
 * size times its selection, where the page size is the literal `first`, its default (20) when absent, and the
 * maximum (100) when it is a variable, since variables are not known when a document is validated. Aliases
 * add up, so many copies of a big page are refused. One full page of 100 orders with items costs about 400.
 */
export const MAX_DEPTH = 6;
export const MAX_COST = 1000;

export function depthLimitRule(): ValidationRule {
  return maxDepthRule({
    n: MAX_DEPTH,
    ignoreIntrospection: true,
    flattenFragments: true,
    exposeLimits: true,
    // Reported as an ordinary validation error (400 GRAPHQL_VALIDATION_FAILED) instead of thrown.
    propagateOnRejection: false,
    onReject: [
      (context, error) => {
        const message = error.message.replace(/^Syntax Error: /, "");
        context?.reportError(new GraphQLError(message, { extensions: { code: "QUERY_TOO_DEEP", maxDepth: MAX_DEPTH } }));
      },
    ],
  }) as unknown as ValidationRule;
}

/** Computes the cost of each operation of a document and refuses the document above `maxCost`. */
export function costLimitRule(maxCost = MAX_COST): ValidationRule {
  return (context: ValidationContext) => ({
    OperationDefinition(operation) {
      const root = context.getSchema().getRootType(operation.operation);
      if (!root) return;
      const cost = selectionCost(context, root, operation.selectionSet, new Set());
      if (cost > maxCost) {
        context.reportError(
          new GraphQLError(`The query costs ${cost}, more than the limit of ${maxCost}: ask for fewer or smaller pages`, {
            nodes: operation,
            extensions: { code: "QUERY_TOO_COSTLY", cost, maxCost },
          }),
        );
      }
    },
  });
}

function selectionCost(
  context: ValidationContext,
  parent: GraphQLCompositeType,
  selectionSet: SelectionSetNode,
  fragmentsOnPath: Set<string>,
): number {
  let total = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      const name = selection.name.value;
      if (name.startsWith("__")) continue;
      const field = fieldOf(parent, name);
      if (!field) continue; // unknown fields are reported by the standard rules
      const type = getNamedType(field.type);
      if (!selection.selectionSet || !isCompositeType(type)) continue;
      const inner = 1 + selectionCost(context, type, selection.selectionSet, fragmentsOnPath);
      total += inner * pageSize(field, selection.arguments ?? []);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const condition = selection.typeCondition
        ? context.getSchema().getType(selection.typeCondition.name.value)
        : parent;
      if (condition && isCompositeType(condition)) {
        total += selectionCost(context, condition, selection.selectionSet, fragmentsOnPath);
      }
    } else {
      const name = selection.name.value;
      // A fragment cycle is reported by NoFragmentCyclesRule; here it just stops counting.
      if (fragmentsOnPath.has(name)) continue;
      const fragment: FragmentDefinitionNode | undefined | null = context.getFragment(name);
      const condition = fragment && context.getSchema().getType(fragment.typeCondition.name.value);
      if (!fragment || !condition || !isCompositeType(condition)) continue;
      fragmentsOnPath.add(name);
      total += selectionCost(context, condition, fragment.selectionSet, fragmentsOnPath);
      fragmentsOnPath.delete(name);
    }
  }
  return total;
}

function fieldOf(parent: GraphQLCompositeType, name: string): GraphQLField<unknown, unknown> | undefined {
  return isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
}

/** How many nodes a connection field may return: its `first` (literal, default, or the maximum for a variable). */
function pageSize(field: GraphQLField<unknown, unknown>, args: readonly { name: { value: string }; value: ValueNode }[]): number {
  const first = field.args.find((arg) => arg.name === "first");
  if (!first) return 1;
  const given = args.find((arg) => arg.name.value === "first")?.value;
  if (!given) return typeof first.defaultValue === "number" ? first.defaultValue : MAX_PAGE_SIZE;
  if (given.kind === Kind.INT) return Math.max(1, Math.min(Number(given.value), MAX_PAGE_SIZE));
  return MAX_PAGE_SIZE;
}
