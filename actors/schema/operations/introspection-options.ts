import { SUCCESS, type Operation } from './operation.js';

/** Hasura's set_graphql_schema_introspection_options: the whole set of roles that may not introspect, replaced. */
export const setGraphqlSchemaIntrospectionOptions: Operation<{ disabled_for_roles: string[] }> = {
  type: 'set_graphql_schema_introspection_options',
  argsSchema: 'query/set_graphql_schema_introspection_options',
  async run(args, context) {
    return { response: SUCCESS, metadata: { ...context.metadata, graphql_schema_introspection: { disabled_for_roles: args.disabled_for_roles } } };
  },
};
