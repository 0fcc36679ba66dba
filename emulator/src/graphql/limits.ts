import {
  getArgumentValues,
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  isInterfaceType,
  Kind,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from './graphql-js.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './connection.js';

/**
 * Limits that keep one query from taking the local service down (documented in
 * docs/EMULATOR.md):
 *
 * - depth: fields nested at most MAX_DEPTH deep (the root field is depth 1);
 * - cost: every field counts 1 for each time it will be resolved, estimated from the
 *   page sizes above it: `edges`/`nodes` of a connection count `first`/`last` times
 *   (20 when neither is given), a list field counts its `limit`/`first` (or its number
 *   of `ids`), else LIST_ESTIMATE times. The sum may not exceed MAX_COST;
 * - page sizes: `first`/`last` and the `limit` of list fields above 100 are clamped to
 *   100 where the pages are cut, so the cost counts at most 100 per page.
 * - size: a document of at most MAX_TOKENS tokens (checked by the parser).
 *
 * Introspection (`__schema`, `__type`) is not counted: its depth is bounded by the
 * schema's own types.
 */
export const QUERY_LIMITS = {
  MAX_DEPTH: 12,
  MAX_COST: 10_000,
  MAX_TOKENS: 5_000,
  /** Assumed length of a list field that takes no size argument (counts, probabilities). */
  LIST_ESTIMATE: 20,
} as const;

export interface QueryMeasure {
  depth: number;
  cost: number;
}

interface Walk {
  schema: GraphQLSchema;
  fragments: Record<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  measure: QueryMeasure;
}

/** A page size as the resolvers will use it (see connection.ts `pageSize`). */
function clampedPage(size: number): number {
  return Math.min(Math.max(size, 0), MAX_PAGE_SIZE);
}

/** How many times the children of this field are resolved per resolution of the field itself. */
function fanOut(field: GraphQLField<unknown, unknown>, args: Record<string, unknown>): number {
  const size = (args.first ?? args.last ?? args.limit) as number | undefined;
  const named = getNamedType(field.type);
  if (named.name.endsWith('Connection')) return 1;
  if (!isListType(getNullableType(field.type))) return 1;
  if (typeof size === 'number') return clampedPage(size);
  if (Array.isArray(args.ids)) return args.ids.length;
  return QUERY_LIMITS.LIST_ESTIMATE;
}

function pageSizeOf(args: Record<string, unknown>): number {
  const size = (args.first ?? args.last) as number | undefined;
  return typeof size === 'number' ? clampedPage(size) : DEFAULT_PAGE_SIZE;
}

function walk(
  w: Walk,
  selection: SelectionSetNode,
  parent: GraphQLNamedType,
  depth: number,
  times: number,
  pageSize: number,
): void {
  if (!isObjectType(parent) && !isInterfaceType(parent)) return;
  const fields = parent.getFields();
  for (const node of selection.selections) {
    if (node.kind === Kind.INLINE_FRAGMENT) {
      const type = node.typeCondition ? (w.schema.getType(node.typeCondition.name.value) ?? parent) : parent;
      walk(w, node.selectionSet, type, depth, times, pageSize);
      continue;
    }
    if (node.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = w.fragments[node.name.value];
      const type = fragment && w.schema.getType(fragment.typeCondition.name.value);
      if (fragment && type) walk(w, fragment.selectionSet, type, depth, times, pageSize);
      continue;
    }
    const name = node.name.value;
    if (name.startsWith('__')) continue;
    const field = fields[name];
    if (!field) continue;
    w.measure.depth = Math.max(w.measure.depth, depth);
    w.measure.cost += times;
    if (!node.selectionSet) continue;
    let args: Record<string, unknown> = {};
    try {
      args = getArgumentValues(field, node, w.variables);
    } catch {
      // Bad arguments are reported by execution; estimate with the defaults.
    }
    // The items of a connection are as many as the page above them asks for.
    const items = parent.name.endsWith('Connection') && (name === 'edges' || name === 'nodes') ? pageSize : fanOut(field, args);
    walk(w, node.selectionSet, getNamedType(field.type), depth + 1, times * items, pageSizeOf(args));
  }
}

/** Depth and estimated cost of one operation (after validation, with coerced variables). */
export function measureOperation(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
): QueryMeasure {
  const root = schema.getRootType(operation.operation);
  const measure: QueryMeasure = { depth: 0, cost: 0 };
  if (root) walk({ schema, fragments, variables, measure }, operation.selectionSet, root, 1, 1, DEFAULT_PAGE_SIZE);
  return measure;
}
