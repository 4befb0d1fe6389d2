import { Kind, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { decodeText, encodeJson } from '../../../src/bus/wire.js';
import type { RemoteNames } from '../customization/names.js';

/** Response keys whose values are `__typename`s, and those with such keys below them. */
export type TypenameShape = Map<string, { typename: boolean; children: TypenameShape | null }>;

/**
 * What turns a customized remote's response into the client's (compat-facts 7.1): the
 * namespace fields put back around the aliased root fields, and `__typename` values
 * renamed to the served type names. Field renames need nothing here: the forwarded
 * operation aliases them to the client's keys.
 */
export interface ResponseMapping {
  /** The namespace field's response keys, by alias index (remote-namespace.ts); null without a namespace. */
  namespaceKeys: string[] | null;
  typenames: TypenameShape | null;
}

/** Where `__typename` is selected in an operation (in served names), or null when nowhere below the root. */
export function typenameShape(selectionSet: SelectionSetNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>): TypenameShape | null {
  const collect = (set: SelectionSetNode, into: TypenameShape): TypenameShape => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet, into);
      else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        if (fragment !== undefined) collect(fragment.selectionSet, into);
      } else {
        const key = (selection.alias ?? selection.name).value;
        const entry = into.get(key) ?? { typename: false, children: null };
        if (selection.name.value === '__typename') entry.typename = true;
        if (selection.selectionSet !== undefined) entry.children = collect(selection.selectionSet, entry.children ?? new Map());
        into.set(key, entry);
      }
    }
    return into;
  };
  const prune = (shape: TypenameShape): TypenameShape | null => {
    for (const [key, entry] of shape) {
      entry.children = entry.children === null ? null : prune(entry.children);
      if (!entry.typename && entry.children === null) shape.delete(key);
    }
    return shape.size === 0 ? null : shape;
  };
  const root = collect(selectionSet, new Map());
  // Root __typename is the engine's (query_root), answered around the remote's data.
  for (const entry of root.values()) entry.typename = false;
  return prune(root);
}

export function mapRemoteResponse(body: Uint8Array, mapping: ResponseMapping, names: RemoteNames): Uint8Array {
  const response = JSON.parse(decodeText(body)) as { data?: Record<string, unknown> | null; errors?: { path?: unknown }[] };
  if (mapping.namespaceKeys !== null) {
    if (response.data != null) response.data = nestNamespaces(response.data, mapping.namespaceKeys);
    for (const error of Array.isArray(response.errors) ? response.errors : []) {
      if (Array.isArray(error?.path)) error.path = namespacedPath(error.path, mapping.namespaceKeys);
    }
  }
  if (mapping.typenames !== null && response.data != null) renameTypenames(response.data, mapping.typenames, names);
  return encodeJson(response);
}

/** remote-namespace.ts' `namespaceMarker` and `namespaceAlias`. */
const ALIAS = /^_ns(\d+)(?:_(.*))?$/s;

function nestNamespaces(data: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [alias, value] of Object.entries(data)) {
    const match = ALIAS.exec(alias);
    const key = match === null ? undefined : keys[Number(match[1])];
    if (key === undefined) continue;
    const inner = (out[key] ??= {});
    if (match![2] !== undefined) inner[match![2]] = value;
  }
  return out;
}

function namespacedPath(path: unknown[], keys: readonly string[]): unknown[] {
  const head = path[0];
  const match = typeof head === 'string' ? ALIAS.exec(head) : null;
  const key = match === null ? undefined : keys[Number(match[1])];
  if (key === undefined) return path;
  return match![2] === undefined ? [key, ...path.slice(1)] : [key, match![2], ...path.slice(1)];
}

function renameTypenames(value: unknown, shape: TypenameShape, names: RemoteNames): void {
  if (Array.isArray(value)) {
    for (const item of value) renameTypenames(item, shape, names);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const object = value as Record<string, unknown>;
  for (const [key, entry] of shape) {
    const inner = object[key];
    if (entry.typename && typeof inner === 'string') object[key] = names.servedType(inner);
    else if (entry.children !== null) renameTypenames(inner, entry.children, names);
  }
}
