import { filterSchema, pruneSchema } from '@graphql-tools/utils';
import { validateSchema, type GraphQLSchema } from 'graphql';
import type { RemoteSchemaEntry } from '../../../src/metadata/types.js';
import type { RemoteSnapshot } from '../../../src/pg/catalog.js';
import { readCustomization, remoteNamesOf, type RemoteNames } from '../../remote-schema/customization/names.js';
import { customizeSchema } from '../../remote-schema/customization/served-schema.js';
import { schemaFromIntrospection } from '../../remote-schema/introspection.js';
import { compileRolePermission, type CompiledPermission, type RemoteRoleView } from '../../remote-schema/permissions/role-view.js';

/**
 * One remote schema as served: its upstream schema from the cached introspection, the
 * unrestricted view (admin, and everyone without remote schema permissions; upstream
 * names), its names under the customization, that view as served and its served root
 * field names. Subscriptions on remote servers are not served (interface 4.3 rule 4), so
 * the views leave the subscription root out.
 */
export interface RemoteModel {
  entry: RemoteSchemaEntry;
  upstream: GraphQLSchema;
  fullView: RemoteRoleView;
  names: RemoteNames;
  /** `fullView.schema` under the customization. */
  served: GraphQLSchema;
  rootFields: { query: string[]; mutation: string[]; subscription: string[] };
}

/** Built schemas by remote name, reused while the snapshot is the same (a schema build costs milliseconds). */
const built = new Map<string, { fetchedAt: number; introspection: string; customization: string; model: Omit<RemoteModel, 'entry'> }>();
const permissions = new Map<string, { upstream: GraphQLSchema; sdl: string; compiled: CompiledPermission }>();

/** The model of `entry` from its snapshot; throws the reason it is unusable. */
export function remoteModelOf(entry: RemoteSchemaEntry, snapshot: RemoteSnapshot | undefined): RemoteModel {
  if (snapshot === undefined) throw new Error(`remote schema ${JSON.stringify(entry.name)} has not been introspected`);
  if (snapshot.introspection === null) throw new Error(snapshot.error ?? 'the remote schema could not be introspected');
  const customization = JSON.stringify(entry.definition.customization ?? null);
  const cached = built.get(entry.name);
  if (cached !== undefined && cached.fetchedAt === snapshot.fetchedAt && cached.introspection === snapshot.introspection && cached.customization === customization) {
    return { entry, ...cached.model };
  }
  const upstream = schemaFromIntrospection(snapshot.introspection, entry.name);
  const view = pruneSchema(filterSchema({ schema: upstream, rootFieldFilter: (operation) => operation !== 'Subscription' }));
  const names = remoteNamesOf(upstream, readCustomization(entry.definition.customization, '$.definition.customization'));
  const served = customizeSchema(view, names);
  // Renaming a field of a type but not of its interface (or the reverse) breaks the schema.
  const invalid = names.customized ? validateSchema(served) : [];
  if (invalid.length > 0) throw new Error(`the customization of remote schema ${JSON.stringify(entry.name)} makes its schema invalid: ${invalid.map((error) => error.message).join('; ')}`);
  const subscriptionFields = Object.keys(upstream.getSubscriptionType()?.getFields() ?? {});
  const model = {
    upstream,
    fullView: { schema: view, argumentPresets: new Map(), inputFieldPresets: new Map() },
    names,
    served,
    rootFields: {
      query: Object.keys(served.getQueryType()?.getFields() ?? {}),
      mutation: Object.keys(served.getMutationType()?.getFields() ?? {}),
      subscription:
        names.namespace !== null && subscriptionFields.length > 0 ? [names.namespace]
        : subscriptionFields.map((field) => names.servedField(upstream.getSubscriptionType()!.name, field)),
    },
  };
  built.set(entry.name, { fetchedAt: snapshot.fetchedAt, introspection: snapshot.introspection, customization, model });
  return { entry, ...model };
}

/** A role's permission compiled against the model's upstream schema (memoised). */
export function rolePermissionOf(model: RemoteModel, role: string, sdl: string): CompiledPermission {
  const key = `${model.entry.name}\u0000${role}`;
  const cached = permissions.get(key);
  if (cached !== undefined && cached.upstream === model.upstream && cached.sdl === sdl) return cached.compiled;
  const compiled = compileRolePermission(model.upstream, sdl);
  permissions.set(key, { upstream: model.upstream, sdl, compiled });
  return compiled;
}
