import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
  isUnionType,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';
import type { Metadata, RemoteSchemaEntry } from '../../../src/metadata/types.js';
import type { Catalog } from '../../../src/pg/catalog.js';
import { roleSchemaFailureMessage } from '../../remote-schema/permissions/role-view.js';
import type { InconsistentObject } from '../consistency/inconsistency.js';
import { roleAccess } from './role-access.js';
import { remoteModelOf, rolePermissionOf } from './remote-model.js';
import { buildRoleSchema } from './schema/role-schema.js';
import { buildSourceModel } from './table-model.js';

/**
 * Remote schemas against what the engine serves (interface 4.3, compat-facts 7.2): a
 * remote without a usable snapshot (down at start or reload), a root field another
 * source already serves, or a type named like another source's type but shaped
 * differently makes it inconsistent; tables win over remotes, and remotes are taken in
 * name order. A permission whose SDL no longer fits the upstream schema is
 * inconsistent on its own. What is left is what the schema is built from.
 */
export function withRemoteSchemasChecked(metadata: Metadata, catalog: Catalog, inconsistencies: InconsistentObject[]): Metadata {
  const entries = metadata.remote_schemas ?? [];
  if (entries.length === 0) return metadata;
  const snapshots = catalog.remote?.snapshots ?? new Map();
  const tables = buildRoleSchema(roleAccess(buildSourceModel(metadata, catalog), 'admin'));
  const rootOwners = new Map<string, string>();
  for (const name of Object.keys(tables.getQueryType()?.getFields() ?? {})) rootOwners.set(`query.${name}`, 'tables');
  for (const name of Object.keys(tables.getMutationType()?.getFields() ?? {})) rootOwners.set(`mutation.${name}`, 'tables');
  const typeOwners = new Map<string, { owner: string; shape: string }>();
  addTypes(typeOwners, tables, 'tables');

  const kept: RemoteSchemaEntry[] = [];
  for (const entry of entries) {
    const fail = (reason: string) => inconsistencies.push({ type: 'remote_schema', definition: entry, reason });
    let model;
    try {
      model = remoteModelOf(entry, snapshots.get(entry.name));
    } catch (error) {
      fail((error as Error).message);
      continue;
    }
    const clash = [...model.rootFields.query.map((name) => `query.${name}`), ...model.rootFields.mutation.map((name) => `mutation.${name}`)].find((key) => rootOwners.has(key));
    if (clash !== undefined) {
      const field = clash.slice(clash.indexOf('.') + 1);
      fail(rootOwners.get(clash) === 'tables' ? `Field cannot be overwritten by remote field '${field}'` : `Duplicate remote field '${field}'`);
      continue;
    }
    const conflict = typeConflict(typeOwners, model.served, `remote schema ${JSON.stringify(entry.name)}`);
    if (conflict !== null) {
      fail(conflict);
      continue;
    }
    for (const key of [...model.rootFields.query.map((name) => `query.${name}`), ...model.rootFields.mutation.map((name) => `mutation.${name}`)]) rootOwners.set(key, entry.name);
    addTypes(typeOwners, model.served, `remote schema ${JSON.stringify(entry.name)}`);

    if (catalog.remote?.permissionsEnabled !== true || entry.permissions === undefined) {
      kept.push(entry);
      continue;
    }
    const permissions = entry.permissions.filter((permission) => {
      const compiled = rolePermissionOf(model, permission.role, permission.definition.schema);
      if (compiled.ok) return true;
      inconsistencies.push({
        type: 'remote_schema_permission',
        definition: { remote_schema: entry.name, role: permission.role, definition: permission.definition },
        reason: roleSchemaFailureMessage(compiled.problems),
      });
      return false;
    });
    const next: RemoteSchemaEntry = { ...entry, permissions };
    if (permissions.length === 0) delete next.permissions;
    kept.push(next);
  }
  return { ...metadata, remote_schemas: kept };
}

/**
 * The first root field a table of `metadata` would take from a remote schema that serves
 * it now, or null (compat-facts 7.2: tracking such a table is refused with
 * `remote-schema-conflicts`, where a remote added over a table is inconsistent instead).
 * Remotes already inconsistent serve nothing and are left out.
 */
export function remoteRootConflict(metadata: Metadata, catalog: Catalog, inconsistencies: readonly InconsistentObject[]): string | null {
  const snapshots = catalog.remote?.snapshots;
  const inconsistent = new Set(inconsistencies.filter((item) => item.type === 'remote_schema').map((item) => (item.definition as RemoteSchemaEntry).name));
  const remoteRoots = new Set<string>();
  for (const entry of metadata.remote_schemas ?? []) {
    if (inconsistent.has(entry.name) || snapshots === undefined) continue;
    try {
      const { rootFields } = remoteModelOf(entry, snapshots.get(entry.name));
      for (const name of rootFields.query) remoteRoots.add(`query.${name}`);
      for (const name of rootFields.mutation) remoteRoots.add(`mutation.${name}`);
    } catch {
      // An unusable remote is inconsistent already.
    }
  }
  if (remoteRoots.size === 0) return null;
  const tables = buildRoleSchema(roleAccess(buildSourceModel(metadata, catalog), 'admin'));
  for (const [operation, root] of [['query', tables.getQueryType()], ['mutation', tables.getMutationType()]] as const) {
    for (const name of Object.keys(root?.getFields() ?? {})) if (remoteRoots.has(`${operation}.${name}`)) return name;
  }
  return null;
}

function addTypes(owners: Map<string, { owner: string; shape: string }>, schema: GraphQLSchema, owner: string): void {
  for (const type of ownTypes(schema)) if (!owners.has(type.name)) owners.set(type.name, { owner, shape: shapeOf(type) });
}

function typeConflict(owners: Map<string, { owner: string; shape: string }>, schema: GraphQLSchema, owner: string): string | null {
  for (const type of ownTypes(schema)) {
    const seen = owners.get(type.name);
    if (seen !== undefined && seen.shape !== shapeOf(type)) {
      // Hasura's text, typos included (compat-facts 7.2).
      return `Found conflicting definitions for ${JSON.stringify(type.name)}.  The definition at ${owner} differs from the the definition at ${seen.owner}`;
    }
  }
  return null;
}

/** Named types other than roots, built-in scalars and introspection types: the ones that merge. */
function ownTypes(schema: GraphQLSchema): GraphQLNamedType[] {
  const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter((type) => type != null));
  return Object.values(schema.getTypeMap()).filter((type) => !isIntrospectionType(type) && !isSpecifiedScalarType(type) && !roots.has(type as never));
}

/** A type's structure without descriptions or order: what "the same type" means for merging (interface 4.3 rule 2). */
function shapeOf(type: GraphQLNamedType): string {
  if (isObjectType(type) || isInterfaceType(type)) {
    const fields = Object.values(type.getFields()).map((field) => `${field.name}(${field.args.map((arg) => `${arg.name}:${String(arg.type)}`).sort().join(',')}):${String(field.type)}`);
    const interfaces = type.getInterfaces().map((item) => item.name).sort();
    return `${isObjectType(type) ? 'object' : 'interface'}[${interfaces.join(',')}]{${fields.sort().join(';')}}`;
  }
  if (isUnionType(type)) return `union{${type.getTypes().map((item) => item.name).sort().join('|')}}`;
  if (isEnumType(type)) return `enum{${type.getValues().map((item) => item.name).sort().join(',')}}`;
  if (isInputObjectType(type)) return `input{${Object.values(type.getFields()).map((field) => `${field.name}:${String(field.type)}`).sort().join(';')}}`;
  return 'scalar';
}
