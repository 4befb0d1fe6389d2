import { stitchSchemas } from '@graphql-tools/stitch';
import { filterSchema } from '@graphql-tools/utils';
import { buildASTSchema, GraphQLSchema, parse } from 'graphql';
import type { RoleRemoteSource, RoleViewReply } from '../../../src/bus/messages/remote-schema.js';
import { PLACEHOLDER_FIELD } from './role-schema.js';

/** Where each remote root field of a role's schema goes, and the remotes it goes to. */
export interface RemoteRoutes {
  query: ReadonlyMap<string, RoleRemoteSource>;
  mutation: ReadonlyMap<string, RoleRemoteSource>;
  /** Remote subscription fields, only for the refusal's message (interface 4.3 rule 4). */
  subscription: ReadonlySet<string>;
}

/** The schema extension holding a merged schema's remote subscription fields (unservedOperation). */
export const REMOTE_SUBSCRIPTIONS = 'remoteSubscriptionFields';

/** Hasura's root type names, which the merged schema keeps. */
const ROOTS = 'schema { query: query_root mutation: mutation_root subscription: subscription_root }';

/**
 * A role's schema with its remote schemas merged in (interface 4.3), by
 * `@graphql-tools/stitch`: the remote-schema actor's SDL for the role (its remotes already
 * merged, roots named as the engine's) beside the tables' schema, same-named types merged
 * (the consistency check refused those that differ). The merged schema validates and
 * introspects requests; remote fields execute on the remote-schema actor. With remote
 * query fields, the `no_queries_available` placeholder goes away.
 */
export function mergeRemoteView(tables: GraphQLSchema, view: RoleViewReply, sources: readonly RoleRemoteSource[]): { schema: GraphQLSchema; routes: RemoteRoutes } {
  const byName = new Map(sources.map((source) => [source.name, source]));
  const query = new Map(Object.entries(view.routes.query).map(([field, remote]) => [field, byName.get(remote)!]));
  const mutation = new Map(Object.entries(view.routes.mutation).map(([field, remote]) => [field, byName.get(remote)!]));
  const subscription = new Set(view.subscription_fields);
  const routes = { query, mutation, subscription };
  if (view.sdl === '') return { schema: tables, routes };
  const tableRoots = Object.keys(tables.getQueryType()?.getFields() ?? {});
  const onlyPlaceholder = tableRoots.length === 1 && tableRoots[0] === PLACEHOLDER_FIELD;
  const subschemas: GraphQLSchema[] = [];
  if (!onlyPlaceholder || query.size === 0) subschemas.push(tables);
  else if (tables.getMutationType() != null) subschemas.push(filterSchema({ schema: tables, rootFieldFilter: (operation, name) => operation !== 'Query' || name !== PLACEHOLDER_FIELD }));
  subschemas.push(buildASTSchema(parse(view.sdl)));
  const stitched = stitchSchemas({ typeDefs: ROOTS, subschemas });
  const schema = new GraphQLSchema({ ...stitched.toConfig(), extensions: { ...stitched.extensions, [REMOTE_SUBSCRIPTIONS]: subscription } });
  return { schema, routes };
}
