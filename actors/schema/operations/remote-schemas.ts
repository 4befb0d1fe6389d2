import { errors } from '../../../src/errors/errors.js';
import { ServiceError } from '../../../src/errors/service-error.js';
import type { Metadata, RemoteSchemaEntry } from '../../../src/metadata/types.js';
import { checkCustomization, resolveDefinition, type RemoteDefinition } from '../../remote-schema/definition.js';
import { deleteRemoteSnapshot, writeRemoteSnapshot } from '../graphql/remote-cache.js';
import { failureReason, introspectRemote } from '../graphql/remote-introspection.js';
import { SUCCESS, type Operation, type OperationContext } from './operation.js';

/**
 * The remote schema operations of `/v1/query` (interface 2.2, 2.3, 4.2; compat-facts 7).
 * The remote-schema actor introspects and validates; the result is cached in
 * `service_catalog.remote_schemas` in the operation's transaction, and every operation
 * that changes the cache also writes the metadata, so the version moves on and every
 * instance re-reads the cache (interface 9.5).
 */
interface RemoteSchemaArgs {
  name: string;
  definition: RemoteDefinition;
  comment?: string | null;
}

interface NameArgs {
  name: string;
}

interface PermissionArgs {
  remote_schema: string;
  role: string;
  definition?: { schema: string };
  comment?: string | null;
}

const remoteSchemasOf = (metadata: Metadata): RemoteSchemaEntry[] => metadata.remote_schemas ?? [];
const findRemote = (context: OperationContext, name: string) => remoteSchemasOf(context.metadata).find((entry) => entry.name === name);

function withRemoteSchemas(metadata: Metadata, change: (entries: RemoteSchemaEntry[]) => RemoteSchemaEntry[]): Metadata {
  return { ...metadata, remote_schemas: change(remoteSchemasOf(metadata)) };
}

function entryOf(args: RemoteSchemaArgs, permissions?: RemoteSchemaEntry['permissions']): RemoteSchemaEntry {
  const entry: RemoteSchemaEntry = { name: args.name, definition: args.definition };
  if (args.comment !== undefined && args.comment !== null) entry.comment = args.comment;
  if (permissions !== undefined && permissions.length > 0) entry.permissions = permissions;
  return entry;
}

/** Checks the definition here (environment variables must be set now, interface 2.2) before asking anyone. */
function checkDefinition(args: RemoteSchemaArgs, context: OperationContext): void {
  resolveDefinition(args.definition, `${context.argsPath}.definition`);
  checkCustomization(args.definition, `${context.argsPath}.definition`);
}

/** Introspects and caches, failing the operation when the remote cannot be introspected. */
async function introspectStrictly(context: OperationContext, entry: Pick<RemoteSchemaEntry, 'name' | 'definition'>): Promise<void> {
  let introspection: string;
  try {
    introspection = await introspectRemote(context.request, entry);
  } catch (error) {
    if (error instanceof ServiceError) throw error.atPath(context.argsPath);
    throw error;
  }
  await writeRemoteSnapshot(await context.transaction(), entry.name, { introspection });
  await context.reloadCatalog();
}

/**
 * Introspects again and caches whatever comes of it: a remote that is down becomes
 * inconsistent while everything else keeps serving (reload, replace).
 */
export async function refreshRemoteSnapshots(context: OperationContext, entries: readonly RemoteSchemaEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const outcomes = await Promise.all(
    entries.map(async (entry) => {
      try {
        return { name: entry.name, outcome: { introspection: await introspectRemote(context.request, entry) } };
      } catch (error) {
        context.log.warn({ remoteSchema: entry.name, err: error }, 'remote schema reload failed');
        return { name: entry.name, outcome: { error: failureReason(error) } };
      }
    }),
  );
  const transaction = await context.transaction();
  for (const { name, outcome } of outcomes) await writeRemoteSnapshot(transaction, name, outcome);
  await context.reloadCatalog();
}

export const addRemoteSchema: Operation<RemoteSchemaArgs> = {
  type: 'add_remote_schema',
  argsSchema: 'query/add_remote_schema',
  async run(args, context) {
    if (findRemote(context, args.name) !== undefined) throw errors.alreadyExists(context.argsPath, `remote schema with name ${JSON.stringify(args.name)} already exists`);
    checkDefinition(args, context);
    await introspectStrictly(context, args);
    return { response: SUCCESS, metadata: withRemoteSchemas(context.metadata, (entries) => [...entries, entryOf(args)]) };
  },
};

/** compat-facts 7.1: re-introspects only when the URL changed; permissions stay. */
export const updateRemoteSchema: Operation<RemoteSchemaArgs> = {
  type: 'update_remote_schema',
  argsSchema: 'query/update_remote_schema',
  async run(args, context) {
    const existing = findRemote(context, args.name);
    if (existing === undefined) throw errors.notExists(context.argsPath, `remote schema with name ${JSON.stringify(args.name)} doesn't exist`);
    checkDefinition(args, context);
    const urlChanged = existing.definition.url !== args.definition.url || existing.definition.url_from_env !== args.definition.url_from_env;
    const snapshot = context.catalog.remote?.snapshots.get(args.name);
    if (urlChanged || snapshot?.introspection == null) await introspectStrictly(context, args);
    const entry = entryOf(args, existing.permissions);
    return { response: SUCCESS, metadata: withRemoteSchemas(context.metadata, (entries) => entries.map((item) => (item.name === args.name ? entry : item))) };
  },
};

export const removeRemoteSchema: Operation<NameArgs> = {
  type: 'remove_remote_schema',
  argsSchema: 'query/remove_remote_schema',
  async run(args, context) {
    if (findRemote(context, args.name) === undefined) throw errors.notExists(context.argsPath, 'no such remote schema');
    await deleteRemoteSnapshot(await context.transaction(), args.name);
    await context.reloadCatalog();
    return { response: SUCCESS, metadata: withRemoteSchemas(context.metadata, (entries) => entries.filter((entry) => entry.name !== args.name)) };
  },
};

export const reloadRemoteSchema: Operation<NameArgs> = {
  type: 'reload_remote_schema',
  argsSchema: 'query/reload_remote_schema',
  async run(args, context) {
    const entry = findRemote(context, args.name);
    if (entry === undefined) throw errors.notExists(context.argsPath, `remote schema with name ${JSON.stringify(args.name)} does not exist`);
    await refreshRemoteSnapshots(context, [entry]);
    // The same metadata, written again: the new version tells every instance to re-read the cache.
    return { response: SUCCESS, metadata: context.metadata, consistency: 'allow' };
  },
};

/** compat-facts 7.1: the remote's introspection response as it was received (and cached). */
export const introspectRemoteSchema: Operation<NameArgs> = {
  type: 'introspect_remote_schema',
  argsSchema: 'query/introspect_remote_schema',
  readOnly: true,
  async run(args, context) {
    if (findRemote(context, args.name) === undefined) throw errors.notExists(context.argsPath, `remote schema: ${JSON.stringify(args.name)} not found`);
    const snapshot = context.catalog.remote?.snapshots.get(args.name);
    if (snapshot?.introspection == null) {
      throw errors.remoteSchemaFailed(context.argsPath, snapshot?.error ?? `remote schema ${JSON.stringify(args.name)} has not been introspected`);
    }
    return { response: JSON.parse(snapshot.introspection) as unknown };
  },
};

function permissionTarget(args: PermissionArgs, context: OperationContext): RemoteSchemaEntry {
  const entry = findRemote(context, args.remote_schema);
  if (entry === undefined) throw errors.notExists(context.argsPath, `remote schema ${JSON.stringify(args.remote_schema)} doesn't exist`);
  return entry;
}

const permissionName = (args: PermissionArgs) => `permissions for role: ${JSON.stringify(args.role)} for remote schema:${JSON.stringify(args.remote_schema)}`;

export const addRemoteSchemaPermissions: Operation<PermissionArgs & { definition: { schema: string } }> = {
  type: 'add_remote_schema_permissions',
  argsSchema: 'query/add_remote_schema_permissions',
  async run(args, context) {
    if (context.catalog.remote?.permissionsEnabled !== true) {
      throw errors.remotePermissionsDisabled(context.argsPath);
    }
    const entry = permissionTarget(args, context);
    if ((entry.permissions ?? []).some((permission) => permission.role === args.role)) throw errors.alreadyExists(context.argsPath, `${permissionName(args)} already exists`);
    const snapshot = context.catalog.remote?.snapshots.get(entry.name);
    if (snapshot?.introspection == null) {
      throw errors.remoteSchemaFailed(context.argsPath, snapshot?.error ?? `remote schema ${JSON.stringify(entry.name)} has not been introspected`);
    }
    try {
      await context.request((subjects) => subjects.remote('validate_permission'), { name: entry.name, introspection: snapshot.introspection, schema: args.definition.schema });
    } catch (error) {
      if (error instanceof ServiceError) throw error.atPath(context.argsPath);
      throw error;
    }
    const permission: NonNullable<RemoteSchemaEntry['permissions']>[number] = { role: args.role, definition: { schema: args.definition.schema } };
    if (args.comment !== undefined && args.comment !== null) permission.comment = args.comment;
    const next: RemoteSchemaEntry = { ...entry, permissions: [...(entry.permissions ?? []), permission] };
    return { response: SUCCESS, metadata: withRemoteSchemas(context.metadata, (entries) => entries.map((item) => (item.name === entry.name ? next : item))) };
  },
};

export const dropRemoteSchemaPermissions: Operation<PermissionArgs> = {
  type: 'drop_remote_schema_permissions',
  argsSchema: 'query/drop_remote_schema_permissions',
  async run(args, context) {
    const entry = permissionTarget(args, context);
    if (!(entry.permissions ?? []).some((permission) => permission.role === args.role)) throw errors.notExists(context.argsPath, `${permissionName(args)} doesn't exist`);
    const next: RemoteSchemaEntry = { ...entry, permissions: (entry.permissions ?? []).filter((permission) => permission.role !== args.role) };
    if (next.permissions!.length === 0) delete next.permissions;
    return { response: SUCCESS, metadata: withRemoteSchemas(context.metadata, (entries) => entries.map((item) => (item.name === entry.name ? next : item))), consistency: 'allow' };
  },
};

export const REMOTE_SCHEMA_OPERATIONS = [
  addRemoteSchema,
  updateRemoteSchema,
  removeRemoteSchema,
  reloadRemoteSchema,
  introspectRemoteSchema,
  addRemoteSchemaPermissions,
  dropRemoteSchemaPermissions,
] as const;

/** Remotes of `next` to introspect on replace_metadata: new ones, changed ones and those without a usable snapshot. */
export function remotesToIntrospect(context: OperationContext, next: Metadata): RemoteSchemaEntry[] {
  const current = new Map(remoteSchemasOf(context.metadata).map((entry) => [entry.name, entry]));
  return remoteSchemasOf(next).filter((entry) => {
    const before = current.get(entry.name);
    const snapshot = context.catalog.remote?.snapshots.get(entry.name);
    return before === undefined || JSON.stringify(before.definition) !== JSON.stringify(entry.definition) || snapshot?.introspection == null;
  });
}

/** `reload_metadata`'s `reload_remote_schemas`: true for all (inconsistent ones included, interface 4.2 rule 4) or a list of names. */
export function remotesToReload(context: OperationContext, which: boolean | string[] | undefined): RemoteSchemaEntry[] {
  if (which === undefined || which === false) return [];
  const names = which === true ? null : new Set(which);
  return remoteSchemasOf(context.metadata).filter((entry) => names === null || names.has(entry.name));
}
