import { filterSchema, pruneSchema } from '@graphql-tools/utils';
import { validateSchema, type GraphQLSchema } from 'graphql';
import type { RemoteSource, RoleRemoteSource } from '../../src/bus/messages/remote-schema.js';
import { LruCache } from '../../src/cache/lru.js';
import { readCustomization, remoteNamesOf, type RemoteNames } from './customization/names.js';
import { servedSchema } from './customization/served-schema.js';
import { schemaFromIntrospection } from './introspection.js';
import { compileRolePermission, roleSchemaFailureMessage, type RemoteRoleView } from './permissions/role-view.js';
import type { SnapshotStore } from './snapshots.js';

/**
 * One remote schema as served: its upstream schema from the snapshot, the unrestricted
 * view (admin, and everyone without remote schema permissions; upstream names), its names
 * under the customization, that view as served, and its served root field names.
 * Subscriptions on remote servers are not served (interface 4.3 rule 4): the views leave
 * the subscription root out, and its fields are named only for the refusal.
 */
export interface RemoteModel {
  name: string;
  upstream: GraphQLSchema;
  names: RemoteNames;
  /** The unrestricted view, in upstream names. */
  view: RemoteRoleView;
  /** `view` as served. */
  served: GraphQLSchema;
  rootFields: { query: string[]; mutation: string[]; subscription: string[] };
}

/** One remote schema as one role sees it: its view in upstream names (with presets), and as served. */
export interface RoleRemote {
  model: RemoteModel;
  view: RemoteRoleView;
  served: GraphQLSchema;
}

/** Why a remote or a role's view of it cannot be served; the describe verb reports it as an inconsistency. */
export class UnusableRemoteError extends Error {
  override readonly name = 'UnusableRemoteError';
}

/** Distinct snapshots, models and role views kept built (a schema build costs milliseconds). */
const KEPT = 256;

/**
 * Builds remote models and role views from what a message carries, and keeps them by
 * their content (snapshot id, customization, role SDL), never by the message's object:
 * over NATS every message is a copy, and any instance may be asked about any remote.
 */
export class RemoteModels {
  readonly #store: SnapshotStore;
  readonly #upstreams = new LruCache<Promise<GraphQLSchema>>(KEPT);
  readonly #models = new LruCache<Promise<RemoteModel>>(KEPT);
  readonly #views = new LruCache<Promise<RoleRemote>>(KEPT);

  constructor(store: SnapshotStore) {
    this.#store = store;
  }

  /** The model of `source`; rejects with UnusableRemoteError when it cannot be served. */
  model(source: RemoteSource): Promise<RemoteModel> {
    const key = JSON.stringify([source.name, source.snapshot, source.definition.customization ?? null]);
    return this.#cached(this.#models, key, async () => buildModel(source, await this.#upstream(source)));
  }

  /** The view of `source` for a role (`permission` null: the whole remote); rejects with UnusableRemoteError. */
  view(source: RoleRemoteSource): Promise<RoleRemote> {
    const { permission } = source;
    const key = JSON.stringify([source.name, source.snapshot, source.definition.customization ?? null, permission]);
    return this.#cached(this.#views, key, async () => {
      const model = await this.model(source);
      return permission === null ? { model, view: model.view, served: model.served } : roleRemote(model, permission);
    });
  }

  #upstream(source: RemoteSource): Promise<GraphQLSchema> {
    return this.#cached(this.#upstreams, JSON.stringify([source.name, source.snapshot]), async () => {
      const introspection = await this.#store.read(source.snapshot);
      if (introspection === null) throw new UnusableRemoteError(`the introspection of remote schema ${JSON.stringify(source.name)} is no longer stored; reload it`);
      try {
        return schemaFromIntrospection(introspection, source.name);
      } catch (error) {
        throw new UnusableRemoteError((error as Error).message);
      }
    });
  }

  /** A build shared by concurrent askers; a failed build is forgotten, so a later ask tries again. */
  #cached<T>(cache: LruCache<Promise<T>>, key: string, build: () => Promise<T>): Promise<T> {
    let pending = cache.get(key);
    if (pending === undefined) {
      pending = build();
      cache.set(key, pending);
      pending.catch(() => cache.delete(key));
    }
    return pending;
  }
}

function buildModel(source: RemoteSource, upstream: GraphQLSchema): RemoteModel {
  let names: RemoteNames;
  try {
    names = remoteNamesOf(upstream, readCustomization(source.definition.customization, '$.definition.customization'));
  } catch (error) {
    throw new UnusableRemoteError((error as Error).message);
  }
  const view = withoutSubscriptions(upstream);
  const served = servedView(source.name, view, names);
  const subscriptionRoot = upstream.getSubscriptionType();
  const subscriptionFields = Object.keys(subscriptionRoot?.getFields() ?? {});
  return {
    name: source.name,
    upstream,
    names,
    view: { schema: view, argumentPresets: new Map(), inputFieldPresets: new Map() },
    served,
    rootFields: {
      query: Object.keys(served.getQueryType()?.getFields() ?? {}),
      mutation: Object.keys(served.getMutationType()?.getFields() ?? {}),
      subscription:
        names.namespace !== null && subscriptionFields.length > 0 ? [names.namespace]
        : subscriptionFields.map((field) => names.servedField(subscriptionRoot!.name, field)),
    },
  };
}

function roleRemote(model: RemoteModel, permission: string): RoleRemote {
  const compiled = compileRolePermission(model.upstream, permission);
  if (!compiled.ok) throw new UnusableRemoteError(roleSchemaFailureMessage(compiled.problems));
  const view = { ...compiled.view, schema: withoutSubscriptions(compiled.view.schema) };
  return { model, view, served: servedView(model.name, view.schema, model.names) };
}

function withoutSubscriptions(schema: GraphQLSchema): GraphQLSchema {
  return pruneSchema(filterSchema({ schema, rootFieldFilter: (operation) => operation !== 'Subscription' }));
}

function servedView(name: string, view: GraphQLSchema, names: RemoteNames): GraphQLSchema {
  let served: GraphQLSchema;
  try {
    served = servedSchema(view, names);
  } catch (error) {
    throw new UnusableRemoteError(`remote schema ${JSON.stringify(name)} cannot be served: ${(error as Error).message}`);
  }
  // Renaming a field of a type but not of its interface (or the reverse) breaks the schema.
  const invalid = names.customized ? validateSchema(served) : [];
  if (invalid.length > 0) throw new UnusableRemoteError(`the customization of remote schema ${JSON.stringify(name)} makes its schema invalid: ${invalid.map((error) => error.message).join('; ')}`);
  return served;
}
