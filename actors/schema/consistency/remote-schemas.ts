import type { Metadata, RemoteSchemaEntry } from '../../../src/metadata/types.js';
import type { Catalog } from '../../../src/pg/catalog.js';
import { typeShapes } from '../../../src/graphql/type-shape.js';
import { buildRoleSchema } from '../graphql/role-schema.js';
import { roleAccess } from '../models/role-access.js';
import { buildSourceModel } from '../models/table-model.js';
import type { RemoteFacts } from '../remote/descriptions.js';
import type { InconsistentObject } from './inconsistency.js';

/**
 * Remote schemas against what the engine serves (interface 4.3, compat-facts 7.2), from
 * the remote-schema actor's descriptions: a remote it cannot serve (no usable snapshot,
 * a broken customization), a root field another source already serves, or a type named
 * like another source's type but shaped differently makes it inconsistent; tables win over
 * remotes, and remotes are taken in metadata order. A permission whose SDL no longer fits
 * the remote is inconsistent on its own. What is left is what the schema is built from.
 */
export function withRemoteSchemasChecked(metadata: Metadata, catalog: Catalog, facts: RemoteFacts, inconsistencies: InconsistentObject[]): Metadata {
  const entries = metadata.remote_schemas ?? [];
  if (entries.length === 0) return metadata;
  const tables = buildRoleSchema(roleAccess(buildSourceModel(metadata, catalog), 'admin'));
  const rootOwners = new Map<string, string>();
  for (const name of Object.keys(tables.getQueryType()?.getFields() ?? {})) rootOwners.set(`query.${name}`, 'tables');
  for (const name of Object.keys(tables.getMutationType()?.getFields() ?? {})) rootOwners.set(`mutation.${name}`, 'tables');
  const typeOwners = new Map<string, { owner: string; shape: string }>();
  addTypes(typeOwners, typeShapes(tables), 'tables');

  const kept: RemoteSchemaEntry[] = [];
  for (const entry of entries) {
    const fail = (reason: string) => inconsistencies.push({ type: 'remote_schema', definition: entry, reason });
    const description = facts.get(entry.name);
    if (description === undefined || !description.ok) {
      fail(description?.reason ?? `remote schema ${JSON.stringify(entry.name)} has not been described`);
      continue;
    }
    const roots = [...description.root_fields.query.map((name) => `query.${name}`), ...description.root_fields.mutation.map((name) => `mutation.${name}`)];
    const clash = roots.find((key) => rootOwners.has(key));
    if (clash !== undefined) {
      const field = clash.slice(clash.indexOf('.') + 1);
      fail(rootOwners.get(clash) === 'tables' ? `Field cannot be overwritten by remote field '${field}'` : `Duplicate remote field '${field}'`);
      continue;
    }
    const owner = `remote schema ${JSON.stringify(entry.name)}`;
    const conflict = typeConflict(typeOwners, description.types, owner);
    if (conflict !== null) {
      fail(conflict);
      continue;
    }
    for (const key of roots) rootOwners.set(key, entry.name);
    addTypes(typeOwners, description.types, owner);

    if (catalog.remote?.permissionsEnabled !== true || entry.permissions === undefined) {
      kept.push(entry);
      continue;
    }
    const permissions = entry.permissions.filter((permission) => {
      const reason = description.permissions[permission.role] ?? null;
      if (reason === null) return true;
      inconsistencies.push({ type: 'remote_schema_permission', definition: { remote_schema: entry.name, role: permission.role, definition: permission.definition }, reason });
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
export function remoteRootConflict(metadata: Metadata, catalog: Catalog, facts: RemoteFacts, inconsistencies: readonly InconsistentObject[]): string | null {
  const inconsistent = new Set(inconsistencies.filter((item) => item.type === 'remote_schema').map((item) => (item.definition as RemoteSchemaEntry).name));
  const remoteRoots = new Set<string>();
  for (const entry of metadata.remote_schemas ?? []) {
    const description = facts.get(entry.name);
    if (inconsistent.has(entry.name) || description === undefined || !description.ok) continue;
    for (const name of description.root_fields.query) remoteRoots.add(`query.${name}`);
    for (const name of description.root_fields.mutation) remoteRoots.add(`mutation.${name}`);
  }
  if (remoteRoots.size === 0) return null;
  const tables = buildRoleSchema(roleAccess(buildSourceModel(metadata, catalog), 'admin'));
  for (const [operation, root] of [['query', tables.getQueryType()], ['mutation', tables.getMutationType()]] as const) {
    for (const name of Object.keys(root?.getFields() ?? {})) if (remoteRoots.has(`${operation}.${name}`)) return name;
  }
  return null;
}

function addTypes(owners: Map<string, { owner: string; shape: string }>, shapes: Record<string, string>, owner: string): void {
  for (const [name, shape] of Object.entries(shapes)) if (!owners.has(name)) owners.set(name, { owner, shape });
}

function typeConflict(owners: Map<string, { owner: string; shape: string }>, shapes: Record<string, string>, owner: string): string | null {
  for (const [name, shape] of Object.entries(shapes)) {
    const seen = owners.get(name);
    if (seen !== undefined && seen.shape !== shape) {
      // Hasura's text, typos included (compat-facts 7.2).
      return `Found conflicting definitions for ${JSON.stringify(name)}.  The definition at ${owner} differs from the the definition at ${seen.owner}`;
    }
  }
  return null;
}
