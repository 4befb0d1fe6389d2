/**
 * An object of the metadata that no longer matches the database (interface 2.7): it is
 * left out of the served schema, listed by get_inconsistent_metadata and removed by
 * drop_inconsistent_metadata.
 */
export type InconsistentObjectType =
  | 'table'
  | 'object_relation'
  | 'array_relation'
  | 'select_permission'
  | 'insert_permission'
  | 'update_permission'
  | 'delete_permission'
  | 'computed_field'
  | 'function'
  | 'remote_schema'
  | 'remote_schema_permission'
  | 'event_trigger'
  | 'inherited_role';

/**
 * An inherited role's parents disagree on a write permission, so the role has none there
 * (Hasura's ConflictingInheritedPermission): reported, in Hasura's shape, but blocking no
 * operation but replace_metadata, as Hasura's is informational.
 */
export const INHERITED_PERMISSION_CONFLICT = 'inherited role permission inconsistency';

export interface InconsistentObject {
  type: InconsistentObjectType | typeof INHERITED_PERMISSION_CONFLICT;
  /** The object as the metadata holds it; a permission conflict names its `name` and `entity` instead. */
  definition?: unknown;
  reason: string;
  name?: string;
  entity?: { permission_type: string; source: string; table: unknown };
}

/** The objects of `after` that `before` did not list, leaving out the informational ones. */
export function newInconsistencies(before: readonly InconsistentObject[], after: readonly InconsistentObject[]): InconsistentObject[] {
  const known = new Set(before.map(identity));
  return after.filter((item) => item.type !== INHERITED_PERMISSION_CONFLICT && !known.has(identity(item)));
}

function identity(item: InconsistentObject): string {
  return JSON.stringify([item.type, item.definition, item.name, item.entity]);
}
