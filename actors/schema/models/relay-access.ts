import type { FunctionRootTarget, RoleAccess, TableAccess } from './role-access.js';

/**
 * What the Relay API (`/v1beta1/relay`) offers a role, derived from the same RoleAccess as
 * /v1/graphql so that permissions cannot differ between the two: a table is a `Node` when
 * the role may read every column of its primary key (its global id is made of them, as
 * Hasura's Note [Relay Node Id] describes), and only Nodes get `<t>_connection` fields,
 * since a cursor ends with the primary key.
 */
export const relayNames = {
  nodeInterface: 'Node',
  pageInfo: 'PageInfo',
  connection: (table: string) => `${table}Connection`,
  edge: (table: string) => `${table}Edge`,
  /** `<t>_connection` at the root, `<rel>_connection` on an array relationship. */
  connectionField: (name: string) => `${name}_connection`,
} as const;

/** The version number heading every global id Hasura v2 emits (`currentNodeIdVersion`). */
export const NODE_ID_VERSION = 1;

export function isNode(access: TableAccess): boolean {
  const { primaryKey } = access.model;
  return primaryKey.length > 0 && primaryKey.every((column) => access.columnsByField.get(column.fieldName)?.name === column.name);
}

/** What a root `_connection` field pages through: a Node table's rows, or those a function returns. */
export interface ConnectionRoot {
  access: TableAccess;
  function?: FunctionRootTarget;
}

/**
 * The role's root connections by field name, in the order of its query root:
 * `<t>_connection` per Node table, `<fn>_connection` per query function returning a
 * set of a Node table's rows.
 */
export function connectionRootFields(role: RoleAccess): Map<string, ConnectionRoot> {
  const fields = new Map<string, ConnectionRoot>();
  for (const target of role.rootFields.values()) {
    if (target.kind === 'select-count') continue;
    const access = role.tables.get(target.table)!;
    if (!isNode(access)) continue;
    // Named after the table's GraphQL name, not its (customizable) select field (Hasura's mkRelayConnectionField).
    if (target.kind === 'select') fields.set(relayNames.connectionField(access.model.typeName), { access });
    if (target.kind === 'function' && target.function.returnsSet) fields.set(relayNames.connectionField(target.function.fieldName), { access, function: target });
  }
  return fields;
}

/** The Node table a global id names (`schema`, `name`), if the role may read it. */
export function nodeTable(role: RoleAccess, schema: string, name: string): TableAccess | undefined {
  for (const access of role.tables.values()) {
    if (access.model.table.schema === schema && access.model.table.name === name && isNode(access)) return access;
  }
  return undefined;
}

/** The array relationship a `<rel>_connection` field of `access` stands for, when its target is a Node. */
export function connectionRelationship(role: RoleAccess, access: TableAccess, fieldName: string) {
  const suffix = relayNames.connectionField('');
  if (!fieldName.endsWith(suffix)) return undefined;
  const target = access.fields.get(fieldName.slice(0, -suffix.length));
  if (target?.kind !== 'array-relationship') return undefined;
  const related = role.tables.get(target.relationship.target)!;
  return isNode(related) ? { relationship: target.relationship, related } : undefined;
}
