import type { RemoteSource, RoleRemoteSource } from '../../../src/bus/messages/remote-schema.js';
import type { Metadata, RemoteSchemaEntry } from '../../../src/metadata/types.js';
import type { Catalog } from '../../../src/pg/catalog.js';
import { ADMIN_ROLE } from '../../../src/session/session.js';

/** The remote as messages carry it, or why it has nothing to serve (no pointer, or a failed introspection). */
export function remoteSourceOf(entry: RemoteSchemaEntry, catalog: Catalog): RemoteSource | { reason: string } {
  const pointer = catalog.remote?.snapshots.get(entry.name);
  if (pointer === undefined) return { reason: `remote schema ${JSON.stringify(entry.name)} has not been introspected` };
  if (pointer.snapshot === null) return { reason: pointer.error ?? 'the remote schema could not be introspected' };
  return { name: entry.name, definition: entry.definition, snapshot: pointer.snapshot };
}

/**
 * Which remote schemas each role sees (interface 2.3 rule 8, compat-facts 7.3): without
 * remote schema permissions every role sees every remote whole; with them, admin sees
 * every remote whole, a role with a permission sees its SDL, and other roles nothing.
 * Built from consistent metadata only, so every remote here has a snapshot.
 */
export class RoleRemoteSources {
  private constructor(
    private readonly remotes: readonly { entry: RemoteSchemaEntry; source: RemoteSource }[],
    private readonly permissionsEnabled: boolean,
  ) {}

  static from(metadata: Metadata, catalog: Catalog): RoleRemoteSources | null {
    const remotes = (metadata.remote_schemas ?? []).flatMap((entry) => {
      const source = remoteSourceOf(entry, catalog);
      return 'snapshot' in source ? [{ entry, source }] : [];
    });
    return remotes.length === 0 ? null : new RoleRemoteSources(remotes, catalog.remote?.permissionsEnabled === true);
  }

  /** Roles that see something of a remote schema: every role when permissions are off (null). */
  permittedRoles(): string[] | null {
    if (!this.permissionsEnabled) return null;
    return this.remotes.flatMap(({ entry }) => (entry.permissions ?? []).map((permission) => permission.role));
  }

  for(role: string): RoleRemoteSource[] {
    if (!this.permissionsEnabled || role === ADMIN_ROLE) return this.remotes.map(({ source }) => ({ ...source, permission: null }));
    return this.remotes.flatMap(({ entry, source }) => {
      const permission = entry.permissions?.find((item) => item.role === role);
      return permission === undefined ? [] : [{ ...source, permission: permission.definition.schema }];
    });
  }
}
