import { errors } from '../../../src/errors/errors.js';
import { withTable } from '../../../src/metadata/edit.js';
import type { PermissionEntry, QualifiedName, SelectPermission, TableEntry } from '../../../src/metadata/types.js';
import { relationKey } from '../../../src/pg/catalog.js';
import { ADMIN_ROLE } from '../../../src/session/session.js';
import { displayName } from '../../../src/metadata/names.js';
import { SUCCESS, type Operation, type OperationContext } from './operation.js';
import { trackedTable } from './tables.js';

type TableArg = QualifiedName | string;
type PermissionKind = 'select' | 'insert' | 'update' | 'delete';
type PermissionKey = `${PermissionKind}_permissions`;

interface CreateArgs<P> {
  table: TableArg;
  role: string;
  permission: P;
  comment?: string | null;
}

/** Checks that every column a permission names exists on the table. */
export function assertColumnsExist(context: OperationContext, table: QualifiedName, columns: readonly string[] | '*', path: string): void {
  if (columns === '*') return;
  const relation = context.catalog.relations.get(relationKey(table.schema, table.name));
  columns.forEach((column, index) => {
    if (!relation?.columns.some((candidate) => candidate.name === column)) {
      throw errors.invalidConfiguration(`${path}[${index}]`, `in table ${JSON.stringify(displayName(table))}: column ${JSON.stringify(column)} does not exist`);
    }
  });
}

/**
 * create_<kind>_permission: one permission per table, role and kind. `validate` checks
 * what the kind needs beyond that (columns, computed fields, filters).
 */
export function createPermission<P>(kind: PermissionKind, validate: (permission: P, table: QualifiedName, entry: TableEntry, context: OperationContext) => void): Operation<CreateArgs<P>> {
  const key = `${kind}_permissions` as PermissionKey;
  return {
    type: `create_${kind}_permission`,
    argsSchema: `query/create_${kind}_permission`,
    appliesAhead: true,
    async run(args, context) {
      const { table, entry } = trackedTable(context, args.table);
      const existing = (entry[key] ?? []) as PermissionEntry<unknown>[];
      // The admin role holds every permission already, so Hasura answers as for a duplicate.
      if (args.role === ADMIN_ROLE || existing.some((permission) => permission.role === args.role)) {
        throw errors.alreadyExists(context.argsPath, `${kind} permission already defined on table ${JSON.stringify(displayName(table))} with role ${JSON.stringify(args.role)}`);
      }
      validate(args.permission, table, entry, context);
      const added: PermissionEntry<P> = { role: args.role, permission: args.permission };
      if (args.comment != null) added.comment = args.comment;
      const metadata = withTable(context.metadata, table, (current) => ({ ...current, [key]: [...((current[key] ?? []) as PermissionEntry<unknown>[]), added] }));
      return { response: SUCCESS, metadata };
    },
  };
}

export function dropPermission(kind: PermissionKind): Operation<{ table: TableArg; role: string }> {
  const key = `${kind}_permissions` as PermissionKey;
  return {
    type: `drop_${kind}_permission`,
    argsSchema: `query/drop_${kind}_permission`,
    appliesAhead: true,
    async run(args, context) {
      const { table, entry } = trackedTable(context, args.table);
      const existing = (entry[key] ?? []) as PermissionEntry<unknown>[];
      if (!existing.some((permission) => permission.role === args.role)) {
        throw errors.notExists(`${context.argsPath}.role`, `${kind} permission for role ${JSON.stringify(args.role)} is not defined on table ${JSON.stringify(displayName(table))}`);
      }
      const metadata = withTable(context.metadata, table, (current) => ({
        ...current,
        [key]: ((current[key] ?? []) as PermissionEntry<unknown>[]).filter((permission) => permission.role !== args.role),
      }));
      return { response: SUCCESS, metadata };
    },
  };
}

export const createSelectPermission = createPermission<SelectPermission>('select', (permission, table, entry, context) => {
  const path = `${context.argsPath}.permission`;
  assertColumnsExist(context, table, permission.columns, `${path}.columns`);
  (permission.computed_fields ?? []).forEach((name, index) => {
    if (!(entry.computed_fields ?? []).some((field) => field.name === name)) {
      throw errors.invalidConfiguration(`${path}.computed_fields[${index}]`, `in table ${JSON.stringify(displayName(table))}: computed field ${JSON.stringify(name)} does not exist`);
    }
  });
});

export const dropSelectPermission = dropPermission('select');
