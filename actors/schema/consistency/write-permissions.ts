import type { Metadata, PermissionEntry, TableEntry } from '../../../src/metadata/types.js';
import { relationKey, type Catalog } from '../../../src/pg/catalog.js';
import type { EnumTableRows } from '../models/enum-tables.js';
import { buildSourceModel } from '../models/table-model.js';
import { writePermissionProblem, type WritePermission } from './write-permission-check.js';
import { displayName } from '../../../src/metadata/names.js';
import type { InconsistentObject } from './inconsistency.js';
import { PermissionCheckMemo } from './permission-check-memo.js';
import type { PermissionProblem } from './select-permission-check.js';

const KINDS = ['insert', 'update', 'delete'] as const;

const writeChecks = new PermissionCheckMemo<PermissionProblem | null>();

function withoutWritePermissions(entry: TableEntry): boolean {
  return KINDS.every((kind) => entry[`${kind}_permissions`] === undefined);
}

/**
 * Insert, update and delete permissions, checked like select permissions and at the same
 * point (after broken relationships are taken out, since `check` and `filter` may
 * traverse them): a broken one is reported as `<kind>_permission` and left out.
 */
export function withWritePermissionsChecked(metadata: Metadata, catalog: Catalog, inconsistencies: InconsistentObject[], enumRows: EnumTableRows): Metadata {
  const source = metadata.sources[0];
  if (source === undefined) return metadata;
  if (source.tables.every(withoutWritePermissions)) return metadata;
  const model = buildSourceModel(metadata, catalog, enumRows);
  const tables = source.tables.map((entry) => {
    const key = relationKey(entry.table.schema, entry.table.name);
    if (withoutWritePermissions(entry)) return entry;
    const next: TableEntry = { ...entry };
    let changed = false;
    for (const kind of KINDS) {
      const field = `${kind}_permissions` as const;
      const list = entry[field] as PermissionEntry<unknown>[] | undefined;
      if (list === undefined) continue;
      const kept = list.filter((item) => {
        const problem = writeChecks.get(item.permission as object, `${kind}\u0000${key}`, model, catalog.relations, (lookups) => writePermissionProblem(lookups, catalog, key, { kind, permission: item.permission } as WritePermission));
        if (problem === null) return true;
        inconsistencies.push({
          type: `${kind}_permission`,
          definition: { role: item.role, permission: item.permission, source: source.name, table: entry.table },
          reason: `in table ${JSON.stringify(displayName(entry.table))}: in permission for role ${JSON.stringify(item.role)}: ${problem.message}`,
        });
        return false;
      });
      if (kept.length === list.length) continue;
      changed = true;
      if (kept.length === 0) delete next[field];
      else (next as unknown as Record<string, unknown>)[field] = kept;
    }
    // An entry with nothing left out stays the same object (table-memo.ts).
    return changed ? next : entry;
  });
  return { ...metadata, sources: [{ ...source, tables }, ...metadata.sources.slice(1)] };
}
