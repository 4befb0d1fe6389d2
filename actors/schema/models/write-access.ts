import type { BoolExp, ColumnList, DeletePermission, InsertPermission, UpdatePermission } from '../../../src/metadata/types.js';
import { ADMIN_ROLE } from '../../../src/session/session.js';
import type { RoleAccess, TableAccess } from './role-access.js';
import type { ColumnModel, RelationshipModel, SourceModel, TableModel } from './table-model.js';

/**
 * What one role may write (issue 4): per table its insert, update and delete access,
 * and the `mutation_root` fields they make. Like RoleAccess for reads, the role's schema
 * and the mutation compiler are both driven by this one value. Admin writes everything,
 * unchecked. A `backend_only` permission is offered only to a request that asked for
 * backend-only permissions with the admin secret (`usesBackendOnlyPermissions`); such a
 * request is offered the role's other permissions too, as in Hasura.
 */
export interface InsertAccess {
  model: TableModel;
  /** Columns the client may give (permitted, not preset, not generated). */
  columns: ColumnModel[];
  columnsByField: Map<string, ColumnModel>;
  /** Column presets (`set`): value or `X-Service-*` session variable name, by column name. */
  presets: Map<string, unknown>;
  check: BoolExp | null;
  /** Relationships whose related table the role may also insert into (nested inserts). */
  relationships: RelationshipModel[];
}

export interface UpdateAccess {
  model: TableModel;
  /** Columns the client may change (permitted, not preset, not generated). */
  columns: ColumnModel[];
  columnsByField: Map<string, ColumnModel>;
  presets: Map<string, unknown>;
  filter: BoolExp | null;
  check: BoolExp | null;
}

export interface DeleteAccess {
  model: TableModel;
  filter: BoolExp | null;
}

export type MutationRootKind = 'insert' | 'insert-one' | 'update' | 'update-by-pk' | 'update-many' | 'delete' | 'delete-by-pk';

export interface MutationRootTarget {
  kind: MutationRootKind;
  table: string;
}

export interface WriteAccess {
  role: string;
  inserts: Map<string, InsertAccess>;
  updates: Map<string, UpdateAccess>;
  deletes: Map<string, DeleteAccess>;
  rootFields: Map<string, MutationRootTarget>;
}

const ADMIN_INSERT: InsertPermission = { check: {}, columns: '*' };
const ADMIN_UPDATE: UpdatePermission = { columns: '*', filter: {} };
const ADMIN_DELETE: DeletePermission = { filter: {} };

export function writeAccess(model: SourceModel, read: RoleAccess, backendOnly = false): WriteAccess {
  const role = read.role;
  const offered = <P extends { backend_only?: boolean }>(permission: P | undefined): permission is P => permission !== undefined && (backendOnly || permission.backend_only !== true);
  const admin = role === ADMIN_ROLE;
  const inserts = new Map<string, InsertAccess>();
  const updates = new Map<string, UpdateAccess>();
  const deletes = new Map<string, DeleteAccess>();
  for (const table of model.tables.values()) {
    const insert: InsertPermission | undefined = admin ? ADMIN_INSERT : table.insertPermissions.get(role);
    if (offered(insert) && table.writable.insert) {
      const presets = presetMap(insert.set);
      const columns = writableColumns(table, insert.columns ?? '*', presets);
      inserts.set(table.key, { model: table, columns, columnsByField: byField(columns), presets, check: nonEmpty(insert.check), relationships: [] });
    }
    const update: UpdatePermission | undefined = admin ? ADMIN_UPDATE : table.updatePermissions.get(role);
    if (offered(update) && table.writable.update) {
      const presets = presetMap(update.set);
      const columns = writableColumns(table, update.columns, presets);
      updates.set(table.key, { model: table, columns, columnsByField: byField(columns), presets, filter: nonEmpty(update.filter), check: nonEmpty(update.check) });
    }
    const del: DeletePermission | undefined = admin ? ADMIN_DELETE : table.deletePermissions.get(role);
    if (offered(del) && table.writable.delete) deletes.set(table.key, { model: table, filter: nonEmpty(del.filter) });
  }
  for (const access of inserts.values()) {
    access.relationships = access.model.relationships.filter((relationship) => inserts.has(relationship.target));
  }

  const rootFields = new Map<string, MutationRootTarget>();
  const offer = (name: string, kind: MutationRootKind, table: string) => {
    if (!rootFields.has(name) && !read.rootFields.has(name)) rootFields.set(name, { kind, table });
  };
  for (const table of model.tables.values()) {
    const readable = read.tables.get(table.key);
    const pkReadable = readable !== undefined && hasPrimaryKey(table, readable);
    if (inserts.has(table.key)) {
      offer(table.rootFields.insert, 'insert', table.key);
      // Fields answering one row need the row to be readable (Hasura).
      if (readable !== undefined) offer(table.rootFields.insertOne, 'insert-one', table.key);
    }
    // Update and delete select their rows with `<t>_bool_exp`, which only readable tables have.
    if (updates.has(table.key) && readable !== undefined && updates.get(table.key)!.columns.length > 0) {
      offer(table.rootFields.update, 'update', table.key);
      if (pkReadable) offer(table.rootFields.updateByPk, 'update-by-pk', table.key);
      offer(table.rootFields.updateMany, 'update-many', table.key);
    }
    if (deletes.has(table.key) && readable !== undefined) {
      offer(table.rootFields.delete, 'delete', table.key);
      if (pkReadable) offer(table.rootFields.deleteByPk, 'delete-by-pk', table.key);
    }
  }
  return { role, inserts, updates, deletes, rootFields };
}

function hasPrimaryKey(table: TableModel, readable: TableAccess): boolean {
  return table.primaryKey.length > 0 && table.primaryKey.every((column) => readable.columnsByField.has(column.fieldName));
}

function writableColumns(table: TableModel, permitted: ColumnList, presets: Map<string, unknown>): ColumnModel[] {
  const allowed = permitted === '*' ? null : new Set(permitted);
  return table.columns.filter((column) => !column.generated && !presets.has(column.name) && (allowed === null || allowed.has(column.name)));
}

function presetMap(set: Record<string, unknown> | undefined): Map<string, unknown> {
  return new Map(Object.entries(set ?? {}));
}

function byField(columns: ColumnModel[]): Map<string, ColumnModel> {
  return new Map(columns.map((column) => [column.fieldName, column]));
}

function nonEmpty(filter: BoolExp | null | undefined): BoolExp | null {
  return filter === undefined || filter === null || Object.keys(filter).length === 0 ? null : filter;
}
