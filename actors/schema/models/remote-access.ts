import type { RemoteSource, RoleRemoteSource } from '../../../src/bus/messages/remote-schema.js';
import type { Metadata, RemoteSchemaEntry } from '../../../src/metadata/types.js';
import type { Catalog } from '../../../src/pg/catalog.js';
import { ADMIN_ROLE } from '../../../src/session/session.js';
import { inheritedRolesOf, inheritedPermission, type InheritedRoles } from './inherited-roles.js';

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
 * every remote whole, a role with a permission sees its SDL, and other roles nothing. An
 * inherited role without its own permission takes its parents' when they are the same SDL
 * (Hasura's rule for remote schema permissions), and none when they differ.
 * Built from consistent metadata only, so every remote here has a snapshot.
 */
export class RoleRemoteSources {
  private constructor(
    private readonly remotes: readonly { entry: RemoteSchemaEntry; source: RemoteSource }[],
    private readonly permissionsEnabled: boolean,
    private readonly inherited: InheritedRoles,
  ) {}

  static from(metadata: Metadata, catalog: Catalog): RoleRemoteSources | null {
    const remotes = (metadata.remote_schemas ?? []).flatMap((entry) => {
      const source = remoteSourceOf(entry, catalog);
      return 'snapshot' in source ? [{ entry, source }] : [];
    });
    return remotes.length === 0 ? null : new RoleRemoteSources(remotes, catalog.remote?.permissionsEnabled === true, inheritedRolesOf(metadata));
  }

  /** Roles that see something of a remote schema: every role when permissions are off (null). */
  permittedRoles(): string[] | null {
    if (!this.permissionsEnabled) return null;
    const explicit = this.remotes.flatMap(({ entry }) => (entry.permissions ?? []).map((permission) => permission.role));
    return [...explicit, ...[...this.inherited.keys()].filter((role) => this.for(role).length > 0)];
  }

  for(role: string): RoleRemoteSource[] {
    if (!this.permissionsEnabled || role === ADMIN_ROLE) return this.remotes.map(({ source }) => ({ ...source, permission: null }));
    return this.remotes.flatMap(({ entry, source }) => {
      const schemas = new Map((entry.permissions ?? []).map((item) => [item.role, item.definition.schema]));
      const permission = inheritedPermission(role, schemas, this.inherited);
      return permission.kind === 'defined' ? [{ ...source, permission: permission.permission }] : [];
    });
  }
}
