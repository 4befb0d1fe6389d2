import type { TableEntry } from '../../../src/metadata/types.js';
import { connectiveKey } from '../models/bool-exp-keys.js';

/**
 * The permissions of a table that need one of its computed fields: a select permission
 * listing it in `computed_fields`, and any permission whose `filter` or `check` names it
 * on the table itself (through `_and`, `_or`, `_not`, or their `$` spellings; a nested table's expression names
 * that table's fields). Dropping the field is refused while any exists, or drops them
 * with `cascade` (compat-facts 6.3).
 */
export type PermissionKind = 'select' | 'insert' | 'update' | 'delete';

export interface PermissionDependent {
  kind: PermissionKind;
  role: string;
}

export function permissionsUsing(entry: TableEntry, field: string): PermissionDependent[] {
  const found: PermissionDependent[] = [];
  for (const item of entry.select_permissions ?? []) {
    if ((item.permission.computed_fields ?? []).includes(field) || names(item.permission.filter, field)) found.push({ kind: 'select', role: item.role });
  }
  for (const item of entry.insert_permissions ?? []) if (names(item.permission.check, field)) found.push({ kind: 'insert', role: item.role });
  for (const item of entry.update_permissions ?? []) {
    if (names(item.permission.filter, field) || names(item.permission.check, field)) found.push({ kind: 'update', role: item.role });
  }
  for (const item of entry.delete_permissions ?? []) if (names(item.permission.filter, field)) found.push({ kind: 'delete', role: item.role });
  return found;
}

/** The table without the permissions in `dependents`. */
export function withoutPermissions(entry: TableEntry, dependents: readonly PermissionDependent[]): TableEntry {
  const next: TableEntry = { ...entry };
  for (const kind of ['select', 'insert', 'update', 'delete'] as const) {
    const key = `${kind}_permissions` as const;
    const roles = new Set(dependents.filter((dependent) => dependent.kind === kind).map((dependent) => dependent.role));
    const list = entry[key] as Array<{ role: string }> | undefined;
    if (list === undefined || roles.size === 0) continue;
    const kept = list.filter((item) => !roles.has(item.role));
    if (kept.length === 0) delete next[key];
    else (next as unknown as Record<string, unknown>)[key] = kept;
  }
  return next;
}

function names(expression: unknown, field: string): boolean {
  if (typeof expression !== 'object' || expression === null || Array.isArray(expression)) return false;
  return Object.entries(expression).some(([written, value]) => {
    if (written === field) return true;
    const key = connectiveKey(written);
    if (key === '_and' || key === '_or') return Array.isArray(value) && value.some((item) => names(item, field));
    return key === '_not' && names(value, field);
  });
}
