import type { DescribeReply, DescribeRequest, RemoteDefinition, RemoteDefinitionRequest, SnapshotReply, SnapshotRequest } from '../../../src/bus/messages/remote-schema.js';
import { REMOTE_VERBS } from '../../../src/bus/subjects.js';
import { errors } from '../../../src/errors/errors.js';
import { ServiceError } from '../../../src/errors/service-error.js';
import type { Metadata, RemoteSchemaEntry } from '../../../src/metadata/types.js';
import { failureReason, introspectRemote } from '../remote/probe.js';
import { deleteSnapshotPointer, writeSnapshotPointer } from '../remote/snapshot-pointers.js';
import { SUCCESS, type Operation, type OperationContext } from './operation.js';

/**
 * The remote schema operations of `/v1/query` (interface 2.2, 2.3, 4.2; compat-facts 7).
 * The remote-schema actor checks definitions, introspects (keeping the answer as a
 * snapshot) and judges role SDL; which snapshot a remote is served from is written to
 * `service_catalog.remote_schema_snapshots` in the operation's transaction, and every
 * operation that moves a pointer also writes the metadata, so the version moves on and
 * every instance re-reads the pointers (interface 9.5).
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

/** A remote-schema actor's refusal of the operation's args, at the path it names under them. */
function underArgs(context: OperationContext, error: unknown): unknown {
  return error instanceof ServiceError ? error.under(context.argsPath) : error;
}

/** The definition resolves (its environment variables are set now, interface 2.2) and its customization is well-formed. */
async function checkDefinition(context: OperationContext, entry: Pick<RemoteSchemaEntry, 'name' | 'definition'>): Promise<void> {
  try {
    await context.request((subjects) => subjects.remote(REMOTE_VERBS.check), { name: entry.name, definition: entry.definition } satisfies RemoteDefinitionRequest);
  } catch (error) {
    throw underArgs(context, error);
  }
}

/** Checks the definition, introspects and points at the snapshot, failing the operation when any of it fails. */
async function introspectStrictly(context: OperationContext, entry: Pick<RemoteSchemaEntry, 'name' | 'definition'>): Promise<void> {
  let snapshot: string;
  try {
    snapshot = await introspectRemote(context.request, entry);
  } catch (error) {
    throw underArgs(context, error);
  }
  await writeSnapshotPointer(await context.transaction(), entry.name, { snapshot });
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
        return { name: entry.name, outcome: { snapshot: await introspectRemote(context.request, entry) } };
      } catch (error) {
        context.log.warn({ remoteSchema: entry.name, err: error }, 'remote schema reload failed');
        return { name: entry.name, outcome: { error: failureReason(error) } };
      }
    }),
  );
  const transaction = await context.transaction();
  for (const { name, outcome } of outcomes) await writeSnapshotPointer(transaction, name, outcome);
  await context.reloadCatalog();
}

export const addRemoteSchema: Operation<RemoteSchemaArgs> = {
  type: 'add_remote_schema',
  argsSchema: 'query/add_remote_schema',
  async run(args, context) {
    if (findRemote(context, args.name) !== undefined) throw errors.alreadyExists(context.argsPath, `remote schema with name ${JSON.stringify(args.name)} already exists`);
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
    const urlChanged = existing.definition.url !== args.definition.url || existing.definition.url_from_env !== args.definition.url_from_env;
    const pointer = context.catalog.remote?.snapshots.get(args.name);
    if (urlChanged || pointer?.snapshot == null) await introspectStrictly(context, args);
    else await checkDefinition(context, args);
    const entry = entryOf(args, existing.permissions);
    return { response: SUCCESS, metadata: withRemoteSchemas(context.metadata, (entries) => entries.map((item) => (item.name === args.name ? entry : item))) };
  },
};

export const removeRemoteSchema: Operation<NameArgs> = {
  type: 'remove_remote_schema',
  argsSchema: 'query/remove_remote_schema',
  async run(args, context) {
    if (findRemote(context, args.name) === undefined) throw errors.notExists(context.argsPath, 'no such remote schema');
    await deleteSnapshotPointer(await context.transaction(), args.name);
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

/** The snapshot a remote is served from, or the remote-schema-error of why it has none. */
function servedSnapshot(context: OperationContext, name: string): string {
  const pointer = context.catalog.remote?.snapshots.get(name);
  if (pointer?.snapshot == null) throw errors.remoteSchemaFailed(context.argsPath, pointer?.error ?? `remote schema ${JSON.stringify(name)} has not been introspected`);
  return pointer.snapshot;
}

/** compat-facts 7.1: the remote's introspection response as it was received (and kept). */
export const introspectRemoteSchema: Operation<NameArgs> = {
  type: 'introspect_remote_schema',
  argsSchema: 'query/introspect_remote_schema',
  readOnly: true,
  async run(args, context) {
    if (findRemote(context, args.name) === undefined) throw errors.notExists(context.argsPath, `remote schema: ${JSON.stringify(args.name)} not found`);
    const snapshot = servedSnapshot(context, args.name);
    let reply: SnapshotReply;
    try {
      reply = await context.request<SnapshotReply>((subjects) => subjects.remote(REMOTE_VERBS.snapshot), { snapshot } satisfies SnapshotRequest);
    } catch (error) {
      throw underArgs(context, error);
    }
    return { response: JSON.parse(reply.introspection) as unknown };
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
    const snapshot = servedSnapshot(context, entry.name);
    const request: DescribeRequest = { remotes: [{ name: entry.name, definition: entry.definition, snapshot, permissions: [{ role: args.role, schema: args.definition.schema }] }] };
    let reply: DescribeReply;
    try {
      reply = await context.request<DescribeReply>((subjects) => subjects.remote(REMOTE_VERBS.describe), request);
    } catch (error) {
      throw underArgs(context, error);
    }
    const description = reply.remotes[entry.name];
    if (description === undefined || !description.ok) throw errors.remoteSchemaFailed(context.argsPath, description?.reason ?? `remote schema ${JSON.stringify(entry.name)} cannot be served`);
    const refusal = description.permissions[args.role] ?? null;
    if (refusal !== null) throw errors.remotePermissionInvalid(context.argsPath, refusal);
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
    const pointer = context.catalog.remote?.snapshots.get(entry.name);
    return before === undefined || JSON.stringify(before.definition) !== JSON.stringify(entry.definition) || pointer?.snapshot == null;
  });
}

/** `reload_metadata`'s `reload_remote_schemas`: true for all (inconsistent ones included, interface 4.2 rule 4) or a list of names. */
export function remotesToReload(context: OperationContext, which: boolean | string[] | undefined): RemoteSchemaEntry[] {
  if (which === undefined || which === false) return [];
  const names = which === true ? null : new Set(which);
  return remoteSchemasOf(context.metadata).filter((entry) => names === null || names.has(entry.name));
}
