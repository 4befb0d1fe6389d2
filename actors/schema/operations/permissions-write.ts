import type { DeletePermission, InsertPermission, QualifiedName, UpdatePermission } from '../../../src/metadata/types.js';
import type { Operation, OperationContext } from './operation.js';
import { assertColumnsExist, createPermission, dropPermission } from './permissions.js';

/**
 * create_insert_permission, create_update_permission, create_delete_permission and their
 * drop_* twins (issue 4). Columns and preset columns must exist; `check` and `filter`
 * are checked by the consistency check the operation's result must pass, as select
 * filters are. The stored permission is in export form (compat-facts 3.2): keys in
 * Hasura's order, an empty `set` and a false `backend_only` left out, an update's
 * missing `check` stored as null.
 */
type CreateArgs<P> = Parameters<Operation<{ table: QualifiedName | string; role: string; permission: P; comment?: string | null }>['run']>[0];

function assertPresetsExist(context: OperationContext, table: QualifiedName, set: Record<string, unknown> | undefined, path: string): void {
  assertColumnsExist(context, table, Object.keys(set ?? {}), path);
}

function withNormalForm<P>(operation: Operation<CreateArgs<P>>, normalize: (permission: P) => P): Operation<CreateArgs<P>> {
  return { ...operation, run: (args, context) => operation.run({ ...args, permission: normalize(args.permission) }, context) };
}

function present<T>(value: T | undefined, keep: (value: T) => boolean): T | undefined {
  return value !== undefined && keep(value) ? value : undefined;
}

const nonEmpty = (set: Record<string, unknown>) => Object.keys(set).length > 0;

export const createInsertPermission = withNormalForm(
  createPermission<InsertPermission>('insert', (permission, table, _entry, context) => {
    const path = `${context.argsPath}.permission`;
    if (permission.columns !== undefined) assertColumnsExist(context, table, permission.columns, `${path}.columns`);
    assertPresetsExist(context, table, permission.set, `${path}.set`);
  }),
  (permission): InsertPermission => compact({
    check: permission.check ?? {},
    set: present(permission.set, nonEmpty),
    columns: permission.columns,
    backend_only: present(permission.backend_only, Boolean),
  }),
);

export const createUpdatePermission = withNormalForm(
  createPermission<UpdatePermission>('update', (permission, table, _entry, context) => {
    const path = `${context.argsPath}.permission`;
    assertColumnsExist(context, table, permission.columns, `${path}.columns`);
    assertPresetsExist(context, table, permission.set, `${path}.set`);
  }),
  (permission): UpdatePermission => compact({
    columns: permission.columns,
    filter: permission.filter ?? {},
    check: permission.check ?? null,
    set: present(permission.set, nonEmpty),
    backend_only: present(permission.backend_only, Boolean),
  }),
);

export const createDeletePermission = withNormalForm(
  createPermission<DeletePermission>('delete', () => undefined),
  (permission): DeletePermission => compact({ filter: permission.filter ?? {}, backend_only: present(permission.backend_only, Boolean) }),
);

export const dropInsertPermission = dropPermission('insert');
export const dropUpdatePermission = dropPermission('update');
export const dropDeletePermission = dropPermission('delete');

/** Drops the keys left undefined, so the stored object has only what export shows. */
function compact<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}
