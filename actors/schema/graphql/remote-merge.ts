import { stitchSchemas } from '@graphql-tools/stitch';
import { filterSchema } from '@graphql-tools/utils';
import { GraphQLSchema } from 'graphql';
import { REMOTE_SUBSCRIPTIONS } from './remote-routing.js';
import { PLACEHOLDER_FIELD } from './schema/role-schema.js';
import type { RoleRemote } from './remote-views.js';

/** Where each remote root field of a role's schema goes; subscription fields only for the refusal's message. */
export interface RemoteRoutes {
  query: ReadonlyMap<string, RoleRemote>;
  mutation: ReadonlyMap<string, RoleRemote>;
  subscription: ReadonlySet<string>;
}

/** Hasura's root type names, which the merged schema keeps whatever the remotes call theirs. */
const ROOTS = 'schema { query: query_root mutation: mutation_root subscription: subscription_root }';

/**
 * A role's schema with its remote schemas merged in (interface 4.3), by
 * `@graphql-tools/stitch`: root fields side by side under `query_root`/`mutation_root`,
 * same-named types merged (the consistency check refused those that differ). The merged
 * schema validates and introspects requests; execution never goes through it (see
 * remote-forward.ts). With remote query fields, the `no_queries_available` placeholder
 * goes away.
 */
export function mergeRemoteViews(tables: GraphQLSchema, remotes: readonly RoleRemote[]): { schema: GraphQLSchema; routes: RemoteRoutes | null } {
  if (remotes.length === 0) return { schema: tables, routes: null };
  const query = new Map<string, RoleRemote>();
  const mutation = new Map<string, RoleRemote>();
  const subscription = new Set<string>();
  for (const remote of remotes) {
    for (const name of Object.keys(remote.served.getQueryType()?.getFields() ?? {})) query.set(name, remote);
    for (const name of Object.keys(remote.served.getMutationType()?.getFields() ?? {})) mutation.set(name, remote);
    for (const name of remote.model.rootFields.subscription) subscription.add(name);
  }
  const tableRoots = Object.keys(tables.getQueryType()?.getFields() ?? {});
  const onlyPlaceholder = tableRoots.length === 1 && tableRoots[0] === PLACEHOLDER_FIELD;
  const subschemas: GraphQLSchema[] = [];
  if (!onlyPlaceholder || query.size === 0) subschemas.push(tables);
  else if (tables.getMutationType() != null) subschemas.push(filterSchema({ schema: tables, rootFieldFilter: (operation, name) => operation !== 'Query' || name !== PLACEHOLDER_FIELD }));
  subschemas.push(...remotes.map((remote) => remote.served));
  const stitched = stitchSchemas({ typeDefs: ROOTS, subschemas });
  const schema = new GraphQLSchema({ ...stitched.toConfig(), extensions: { ...stitched.extensions, [REMOTE_SUBSCRIPTIONS]: subscription } });
  return { schema, routes: { query, mutation, subscription } };
}
