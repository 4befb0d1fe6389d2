import type { Metadata, PermissionEntry, TableEntry } from '../../../src/metadata/types.js';
import { relationKey, type Catalog } from '../../../src/pg/catalog.js';
import type { EnumTableRows } from '../models/enum-tables.js';
import { buildSourceModel } from '../models/table-model.js';
import { writePermissionProblem, type WritePermission } from './write-permission-check.js';
import { displayName } from '../../../src/metadata/names.js';
import type { InconsistentObject } from './inconsistency.js';
import { PermissionCheckMemo } from './permission-check-memo.js';
import type { PermissionProblem } from './select-permission-check.js';
import { CheckedEntries, permissionBasis, type PermissionsOutcome } from './permission-outcomes.js';
import { KeptOutcomes } from './kept-outcomes.js';
import { EntryCount } from '../../../src/metadata/entry-count.js';

const KINDS = ['insert', 'update', 'delete'] as const;

const writeChecks = new PermissionCheckMemo<PermissionProblem | null>();
/** Each table's write permissions, kept from one check to the next (kept-outcomes.ts). */
const writePass = new KeptOutcomes<PermissionsOutcome>();
/** The entries the write pass leaves. */
const writeEntries = new CheckedEntries();

/** Asked of every entry a check looks at: spelled out rather than built from KINDS. */
function withoutWritePermissions(entry: TableEntry): boolean {
  return entry.insert_permissions === undefined && entry.update_permissions === undefined && entry.delete_permissions === undefined;
}

/** The entries with a write permission, counted as they come and go. */
const entriesWithWritePermissions = new EntryCount<TableEntry>((entry) => !withoutWritePermissions(entry));

/**
 * Insert, update and delete permissions, checked like select permissions and at the same
 * point (after broken relationships are taken out, since `check` and `filter` may
 * traverse them): a broken one is reported as `<kind>_permission` and left out.
 */
export function withWritePermissionsChecked(metadata: Metadata, catalog: Catalog, inconsistencies: InconsistentObject[], enumRows: EnumTableRows): Metadata {
  const source = metadata.sources[0];
  if (source === undefined) return metadata;
  if (entriesWithWritePermissions.of(source.tables) === 0) return metadata;
  const model = buildSourceModel(metadata, catalog, enumRows);
  const outcomes = writePass.run(source.tables, permissionBasis(metadata, catalog, enumRows, model), (entry): PermissionsOutcome => {
    if (withoutWritePermissions(entry)) return { lookedUp: [], checked: entry, problems: [] };
    const key = relationKey(entry.table.schema, entry.table.name);
    const next: TableEntry = { ...entry };
    const lookedUp: string[] = [];
    const problems: InconsistentObject[] = [];
    let changed = false;
    for (const kind of KINDS) {
      const field = `${kind}_permissions` as const;
      const list = entry[field] as PermissionEntry<unknown>[] | undefined;
      if (list === undefined) continue;
      const kept = list.filter((item) => {
        const problem = writeChecks.get(item.permission as object, `${kind}\u0000${key}`, model, catalog.relations, (lookups) => writePermissionProblem(lookups, catalog, key, { kind, permission: item.permission } as WritePermission));
        lookedUp.push(...writeChecks.lookedUp(item.permission as object));
        if (problem === null) return true;
        problems.push({
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
    return { lookedUp, checked: changed ? next : entry, problems };
  });
  const tables = writeEntries.of(outcomes, inconsistencies);
  return { ...metadata, sources: [{ ...source, tables }, ...metadata.sources.slice(1)] };
}
