import { errors } from '../../../../src/errors/errors.js';
import type { Metadata, QualifiedName } from '../../../../src/metadata/types.js';
import { quoted, toQualified } from '../../../../src/metadata/names.js';
import type { Catalog } from '../../../../src/pg/catalog.js';
import { relationKey } from '../../../../src/pg/catalog.js';
import { isAdmin, usesBackendOnlyPermissions, type Session } from '../../../../src/session/session.js';
import { roleAccess, type RoleAccess, type TableAccess } from '../../models/role-access.js';
import { buildSourceModel, type ColumnModel, type SourceModel, type TableModel } from '../../models/table-model.js';
import { writeAccess, type WriteAccess } from '../../models/write-access.js';
import type { OperationContext } from '../operation.js';

/**
 * What the session's role may read and write, from the same models the GraphQL schema and
 * compiler use, so the data API grants exactly what GraphQL grants. The table model is
 * built once per (metadata, catalog) pair, as the GraphQL engine builds it once per version.
 */
export interface DataAccess {
  model: SourceModel;
  read: RoleAccess;
  writes: WriteAccess;
  session: Session;
}

export type TableArg = QualifiedName | string;

const models = new WeakMap<Metadata, { catalog: Catalog; model: SourceModel }>();

export function dataAccess(context: OperationContext): DataAccess {
  let kept = models.get(context.metadata);
  if (kept === undefined || kept.catalog !== context.catalog) {
    kept = { catalog: context.catalog, model: buildSourceModel(context.metadata, context.catalog) };
    models.set(context.metadata, kept);
  }
  const read = roleAccess(kept.model, context.session.role);
  return { model: kept.model, read, writes: writeAccess(kept.model, read, usesBackendOnlyPermissions(context.session)), session: context.session };
}

/** The tracked table `arg` names (Hasura: `table "x" does not exist`). */
export function trackedTable(access: DataAccess, arg: TableArg, path: string): TableModel {
  const name = toQualified(arg);
  const table = access.model.tables.get(relationKey(name.schema, name.name));
  if (table === undefined) throw errors.notExists(path, `table ${quoted(name)} does not exist`);
  return table;
}

export type PermissionKind = 'select' | 'insert' | 'update' | 'delete';

/**
 * Hasura's refusal of an operation the role has no permission for (DML/Internal.hs
 * `askPermInfo`); `why` is the operation's own addition when the missing one is select.
 */
export function notAllowed(access: DataAccess, kind: PermissionKind, table: TableModel, path: string, why = ''): never {
  throw errors.permissionDenied(path, `${kind} on ${quoted(table.table)} for role ${JSON.stringify(access.read.role)} is not allowed. ${why}`);
}

/** What the role may read of `table`, or Hasura's refusal, with why the operation needs it. */
export function readableTable(access: DataAccess, table: TableModel, path: string, why = ''): TableAccess {
  return access.read.tables.get(table.key) ?? notAllowed(access, 'select', table, path, why);
}

/** Hasura's reason an update or delete needs a select permission (Update.hs, Delete.hs). */
export function whereNeedsSelect(kind: 'update' | 'delete'): string {
  return `; "${kind}" is only allowed if the role has "select" permission as "where" can't be used without "select" permission on the table`;
}

/**
 * A column the role may use for `kind`, or Hasura's refusal (`checkPermOnCol`): the admin
 * is told the column does not exist, another role only that it may not use it, so a role
 * cannot probe for columns outside its permission.
 */
export function permittedColumn(access: DataAccess, columns: ReadonlyMap<string, ColumnModel>, kind: PermissionKind, name: string, path: string): ColumnModel {
  const column = columns.get(name);
  if (column !== undefined) return column;
  if (isAdmin(access.session)) throw errors.permissionDenied(path, `no such column exists : ${JSON.stringify(name)}`);
  throw errors.permissionDenied(path, `role ${JSON.stringify(access.read.role)} does not have permission to ${kind} column ${JSON.stringify(name)}`);
}
