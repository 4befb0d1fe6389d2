import type { GraphQLSchema } from 'graphql';
import type { Metadata } from '../../../src/metadata/types.js';
import type { Catalog } from '../../../src/pg/catalog.js';
import { ADMIN_ROLE } from '../../../src/session/session.js';
import { customizeSchema } from '../../remote-schema/customization/served-schema.js';
import type { RemoteNames } from '../../remote-schema/customization/names.js';
import type { RemoteRoleView } from '../../remote-schema/permissions/role-view.js';
import { remoteModelOf, rolePermissionOf, type RemoteModel } from './remote-model.js';

/** One remote schema as one role sees it: its view in upstream names, and as served under the customization. */
export interface RoleRemote {
  model: RemoteModel;
  view: RemoteRoleView;
  served: GraphQLSchema;
}

/** Role views as served, by view (a view lives as long as its compiled permission). */
const servedViews = new WeakMap<RemoteRoleView, { names: RemoteNames; schema: GraphQLSchema }>();

function servedView(model: RemoteModel, view: RemoteRoleView): GraphQLSchema {
  const cached = servedViews.get(view);
  if (cached !== undefined && cached.names === model.names) return cached.schema;
  const schema = customizeSchema(view.schema, model.names);
  servedViews.set(view, { names: model.names, schema });
  return schema;
}

/**
 * Which remote schemas each role sees (interface 2.3 rule 8, compat-facts 7.3): without
 * remote schema permissions every role sees every remote whole; with them, admin sees
 * every remote whole, a role with a permission sees its SDL, and other roles nothing.
 * Built from consistent metadata only, so every snapshot and permission here is usable.
 */
export class RemoteSchemaSet {
  private constructor(
    private readonly models: readonly RemoteModel[],
    private readonly permissionsEnabled: boolean,
  ) {}

  static from(metadata: Metadata, catalog: Catalog): RemoteSchemaSet | null {
    const entries = metadata.remote_schemas ?? [];
    const snapshots = catalog.remote?.snapshots;
    if (entries.length === 0 || snapshots === undefined) return null;
    return new RemoteSchemaSet(entries.map((entry) => remoteModelOf(entry, snapshots.get(entry.name))), catalog.remote!.permissionsEnabled);
  }

  /** Roles that see something of a remote schema: every role when permissions are off (null). */
  permittedRoles(): string[] | null {
    if (!this.permissionsEnabled) return null;
    return this.models.flatMap((model) => (model.entry.permissions ?? []).map((permission) => permission.role));
  }

  viewsFor(role: string): RoleRemote[] {
    if (!this.permissionsEnabled || role === ADMIN_ROLE) return this.models.map((model) => ({ model, view: model.fullView, served: model.served }));
    return this.models.flatMap((model) => {
      const permission = model.entry.permissions?.find((item) => item.role === role);
      if (permission === undefined) return [];
      const compiled = rolePermissionOf(model, role, permission.definition.schema);
      return compiled.ok ? [{ model, view: compiled.view, served: servedView(model, compiled.view) }] : [];
    });
  }
}
