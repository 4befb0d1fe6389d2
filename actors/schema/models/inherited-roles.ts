import type { InheritedRoleEntry, Metadata, SelectPermission } from '../../../src/metadata/types.js';

/**
 * Hasura's inherited roles (Hasura/RQL/Types/Roles/Internal.hs): a role made of the
 * permissions of its `role_set`, which may itself hold inherited roles.
 * - Select permissions are combined: a row is readable when some parent may read it, and a
 *   column's value shows on the rows of the parents that may read that column (role-access.ts).
 * - Insert, update and delete permissions are inherited only when every parent that has
 *   one has the same one; parents that differ leave the role without it, reported as an
 *   "inherited role permission inconsistency" that blocks nothing (Hasura's is informational).
 * - A function permission (a yes or no) is inherited when any parent has it.
 * - A permission defined for the inherited role itself replaces what it would inherit.
 */
export type InheritedRoles = ReadonlyMap<string, readonly string[]>;

export function inheritedRolesOf(metadata: Metadata): InheritedRoles {
  return new Map((metadata.inherited_roles ?? []).map((entry) => [entry.role_name, entry.role_set]));
}

/** What a role gets of one kind of write permission on one table. */
export type Inherited<P> = { kind: 'none' } | { kind: 'conflict' } | { kind: 'defined'; permission: P };

/**
 * The role's permission of one kind on one table: its own, else the combination of its
 * parents' (CheckPermission's monoid: none is neutral, a conflict wins, two definitions
 * must agree).
 */
export function inheritedPermission<P>(role: string, own: ReadonlyMap<string, P>, roles: InheritedRoles, visiting: ReadonlySet<string> = new Set()): Inherited<P> {
  const defined = own.get(role);
  if (defined !== undefined) return { kind: 'defined', permission: defined };
  const parents = roles.get(role);
  if (parents === undefined || visiting.has(role)) return { kind: 'none' };
  const inside = new Set(visiting).add(role);
  let combined: Inherited<P> = { kind: 'none' };
  for (const parent of parents) {
    const next = inheritedPermission(parent, own, roles, inside);
    if (next.kind === 'none' || combined.kind === 'conflict') continue;
    if (next.kind === 'conflict' || (combined.kind === 'defined' && !samePermission(combined.permission, next.permission))) combined = { kind: 'conflict' };
    else combined = next;
  }
  return combined;
}

/**
 * The select permissions a role reads a table through: its own, else those of its
 * parents (an inherited parent contributing its own parts), each once.
 */
export function selectPermissionParts(role: string, own: ReadonlyMap<string, SelectPermission>, roles: InheritedRoles, visiting: ReadonlySet<string> = new Set()): SelectPermission[] {
  const defined = own.get(role);
  if (defined !== undefined) return [defined];
  const parents = roles.get(role);
  if (parents === undefined || visiting.has(role)) return [];
  const inside = new Set(visiting).add(role);
  const parts: SelectPermission[] = [];
  for (const parent of parents) {
    for (const part of selectPermissionParts(parent, own, roles, inside)) if (!parts.some((known) => samePermission(known, part))) parts.push(part);
  }
  return parts;
}

/** `permitted` and the inherited roles some parent of which (at any depth) is in it. */
export function withInheritingRoles(permitted: ReadonlySet<string>, roles: InheritedRoles): Set<string> {
  const all = new Set(permitted);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [role, parents] of roles) {
      if (all.has(role) || !parents.some((parent) => all.has(parent))) continue;
      all.add(role);
      grew = true;
    }
  }
  return all;
}

/** Every role the metadata names in a permission, and the inherited roles: what a role set may name. */
export function knownRoles(metadata: Metadata): Set<string> {
  const roles = new Set<string>();
  for (const source of metadata.sources) {
    for (const table of source.tables) {
      for (const list of [table.select_permissions, table.insert_permissions, table.update_permissions, table.delete_permissions]) {
        for (const item of list ?? []) roles.add(item.role);
      }
    }
    for (const fn of source.functions ?? []) for (const item of fn.permissions ?? []) roles.add(item.role);
  }
  for (const remote of metadata.remote_schemas ?? []) for (const item of remote.permissions ?? []) roles.add(item.role);
  for (const entry of metadata.inherited_roles ?? []) roles.add(entry.role_name);
  return roles;
}

/**
 * The cycles among inherited roles, each as the roles met going round it and back to its
 * first (Hasura's `found cycle(s) in roles: ["a","b","a"]`).
 */
export function roleCycles(entries: readonly InheritedRoleEntry[]): string[][] {
  const parents = new Map(entries.map((entry) => [entry.role_name, entry.role_set]));
  const cycles: string[][] = [];
  const settled = new Set<string>();
  const walk = (role: string, path: string[]): void => {
    const at = path.indexOf(role);
    if (at >= 0) {
      cycles.push([...path.slice(at), role]);
      return;
    }
    if (settled.has(role)) return;
    for (const parent of parents.get(role) ?? []) walk(parent, [...path, role]);
    settled.add(role);
  };
  for (const entry of entries) walk(entry.role_name, []);
  return cycles;
}

/** Two permissions alike but for the order of object keys and of column lists. */
function samePermission(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) {
    const items = value.map(canonical);
    return `[${value.every((item) => typeof item === 'string') ? items.sort().join(',') : items.join(',')}]`;
  }
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
