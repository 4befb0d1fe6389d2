import { Kind, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { errors } from '../../../src/errors/errors.js';
import type { ServiceError } from '../../../src/errors/service-error.js';
import type { ApiLimits, Limit, RateLimit } from '../../../src/metadata/types.js';
import { isAdmin, type Session } from '../../../src/session/session.js';

/** The API limits that bind one role's requests (Hasura's api_limits); none for admin, or when disabled. */
export interface RoleLimits {
  depth?: number;
  nodes?: number;
  timeMs?: number;
  batch?: number;
  rate?: RateLimit;
}

const NO_LIMITS: RoleLimits = {};

export function roleLimits(limits: ApiLimits | undefined, session: Session): RoleLimits {
  if (limits === undefined || limits.disabled || isAdmin(session)) return NO_LIMITS;
  // Own keys only: a role named `constructor` must not find Object.prototype's.
  const pick = <T>(limit: Limit<T> | undefined): T | undefined => (limit === undefined ? undefined : Object.hasOwn(limit.per_role, session.role) ? limit.per_role[session.role] : limit.global);
  const found: RoleLimits = {};
  const depth = pick(limits.depth_limit);
  if (depth !== undefined) found.depth = depth;
  const nodes = pick(limits.node_limit);
  if (nodes !== undefined) found.nodes = nodes;
  const seconds = pick(limits.time_limit);
  if (seconds !== undefined) found.timeMs = seconds * 1000;
  const batch = pick(limits.batch_limit);
  if (batch !== undefined) found.batch = batch;
  const rate = pick(limits.rate_limit);
  if (rate !== undefined) found.rate = rate;
  return found;
}

/** Depth and node count of an operation, as Hasura counts them. */
interface Shape {
  depth: number;
  nodes: number;
}

const shapes = new WeakMap<OperationDefinitionNode, Shape>();

/**
 * The depth or node limit the operation breaks, or null. Checked on the parsed document
 * before any SQL is built; the counts are kept with the (cached) operation.
 */
export function operationLimitError(limits: RoleLimits, operation: OperationDefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>): ServiceError | null {
  if (limits.depth === undefined && limits.nodes === undefined) return null;
  let shape = shapes.get(operation);
  if (shape === undefined) {
    shape = measure(operation.selectionSet, fragments, new Map());
    shapes.set(operation, shape);
  }
  if (limits.depth !== undefined && shape.depth > limits.depth) return errors.depthLimitExceeded('$');
  if (limits.nodes !== undefined && shape.nodes > limits.nodes) return errors.nodeLimitExceeded('$');
  return null;
}

const INTROSPECTION_FIELDS = new Set(['__schema', '__type', '__typename']);

/**
 * A field with a selection set is a node one level deeper than its parent; leaf fields,
 * fragments and inline fragments add no depth, and introspection is not counted (Hasura).
 * Each fragment is measured once: a document that spreads fragments into fragments costs
 * its size to measure, not the size of its expansion.
 */
function measure(selectionSet: SelectionSetNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>, measured: Map<string, Shape>): Shape {
  let depth = 0;
  let nodes = 0;
  for (const selection of selectionSet.selections) {
    let inner: Shape;
    if (selection.kind === Kind.FIELD) {
      if (selection.selectionSet === undefined || INTROSPECTION_FIELDS.has(selection.name.value)) continue;
      const below = measure(selection.selectionSet, fragments, measured);
      inner = { depth: below.depth + 1, nodes: below.nodes + 1 };
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      inner = measure(selection.selectionSet, fragments, measured);
    } else {
      const name = selection.name.value;
      const known = measured.get(name);
      if (known !== undefined) inner = known;
      else {
        const fragment = fragments.get(name);
        // Validation refused unknown and cyclic spreads before this runs; the guard keeps a miss cheap.
        measured.set(name, { depth: 0, nodes: 0 });
        inner = fragment === undefined ? { depth: 0, nodes: 0 } : measure(fragment.selectionSet, fragments, measured);
        measured.set(name, inner);
      }
    }
    depth = Math.max(depth, inner.depth);
    nodes += inner.nodes;
  }
  return { depth, nodes };
}
