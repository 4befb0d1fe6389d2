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
  | 'event_trigger';

export interface InconsistentObject {
  type: InconsistentObjectType;
  definition: unknown;
  reason: string;
}

/** The objects of `after` that `before` did not list. */
export function newInconsistencies(before: readonly InconsistentObject[], after: readonly InconsistentObject[]): InconsistentObject[] {
  const known = new Set(before.map((item) => JSON.stringify([item.type, item.definition])));
  return after.filter((item) => !known.has(JSON.stringify([item.type, item.definition])));
}
