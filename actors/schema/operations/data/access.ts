import { errors } from '../../../../src/errors/errors.js';
import type { Metadata, QualifiedName } from '../../../../src/metadata/types.js';
import { quoted, toQualified } from '../../../../src/metadata/names.js';
import type { Catalog } from '../../../../src/pg/catalog.js';
import { relationKey } from '../../../../src/pg/catalog.js';
import { ADMIN_ROLE, isAdmin, usesBackendOnlyPermissions, type Session } from '../../../../src/session/session.js';
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

interface ModelEntry {
  catalog: Catalog;
  model: SourceModel;
  /** Roles some permission names (and admin): only theirs are kept, so arbitrary role names cost nothing. */
  permitted: Set<string>;
  /** Each permitted role's access (and its backend-only variant), built on first use, as the GraphQL engine keeps them. */
  roles: Map<string, { read: RoleAccess; writes: WriteAccess }>;
}

const models = new WeakMap<Metadata, ModelEntry>();

export function dataAccess(context: OperationContext): DataAccess {
  let entry = models.get(context.metadata);
  if (entry === undefined || entry.catalog !== context.catalog) {
    const model = buildSourceModel(context.metadata, context.catalog);
    entry = { catalog: context.catalog, model, permitted: permittedRoles(model), roles: new Map() };
    models.set(context.metadata, entry);
  }
  const { role } = context.session;
  const backendOnly = usesBackendOnlyPermissions(context.session);
  const key = `${backendOnly ? 'backend-only' : 'client'}\u0000${role}`;
  let roleEntry = entry.roles.get(key);
  if (roleEntry === undefined) {
    const read = roleAccess(entry.model, role);
    roleEntry = { read, writes: writeAccess(entry.model, read, backendOnly) };
    if (entry.permitted.has(role)) entry.roles.set(key, roleEntry);
  }
  return { model: entry.model, ...roleEntry, session: context.session };
}

function permittedRoles(model: SourceModel): Set<string> {
  const roles = new Set([ADMIN_ROLE]);
  for (const table of model.tables.values()) {
    for (const permissions of [table.selectPermissions, table.insertPermissions, table.updatePermissions, table.deletePermissions]) {
      for (const role of permissions.keys()) roles.add(role);
    }
  }
  return roles;
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
