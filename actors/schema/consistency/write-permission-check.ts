import type { DeletePermission, InsertPermission, UpdatePermission } from '../../../src/metadata/types.js';
import type { Catalog } from '../../../src/pg/catalog.js';
import type { ModelLookups } from './permission-check-memo.js';
import { columnsProblem, filterProblem, type PermissionProblem } from './select-permission-check.js';

export type WritePermission =
  | { kind: 'insert'; permission: InsertPermission }
  | { kind: 'update'; permission: UpdatePermission }
  | { kind: 'delete'; permission: DeletePermission };

/**
 * Checks insert, update and delete permissions against the database and the tracked
 * tables as select permissions are checked (select-permission-check.ts): the columns
 * and preset columns exist, and `check`/`filter` name only what exists. Used by the
 * consistency check, which the create operations rely on before they commit.
 */
export function writePermissionProblem(model: ModelLookups, catalog: Catalog, tableKey: string, write: WritePermission): PermissionProblem | null {
  const table = model.tables.get(tableKey);
  const relation = catalog.relations.get(tableKey);
  if (table === undefined || relation === undefined) return { path: '$', message: 'the table is not tracked' };
  const names = new Set(relation.columns.map((column) => column.name));
  const presetsProblem = (set: Record<string, unknown> | undefined): PermissionProblem | null => {
    const missing = Object.keys(set ?? {}).find((column) => !names.has(column));
    return missing === undefined ? null : { path: `$.set.${missing}`, message: `no such column exists: ${JSON.stringify(missing)}` };
  };
  switch (write.kind) {
    case 'insert':
      return columnsProblem(names, write.permission.columns, '$.columns')
        ?? presetsProblem(write.permission.set)
        ?? filterProblem(model, table, table, write.permission.check ?? {}, '$.check');
    case 'update':
      return columnsProblem(names, write.permission.columns, '$.columns')
        ?? presetsProblem(write.permission.set)
        ?? filterProblem(model, table, table, write.permission.filter ?? {}, '$.filter')
        ?? filterProblem(model, table, table, write.permission.check ?? {}, '$.check');
    case 'delete':
      return filterProblem(model, table, table, write.permission.filter ?? {}, '$.filter');
  }
}
