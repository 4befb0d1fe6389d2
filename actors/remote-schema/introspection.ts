import { buildClientSchema, getIntrospectionQuery, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import { errors } from '../../src/errors/errors.js';

/** The query sent to a remote server to learn its schema; graphql-js' standard one. */
export const INTROSPECTION_QUERY = getIntrospectionQuery();

/**
 * Reads a remote server's raw introspection response (kept as received, since
 * introspect_remote_schema answers it verbatim, compat-facts 7.1) into a schema.
 * A response that is not a usable schema is a `remote-schema-error`.
 */
export function schemaFromIntrospection(raw: string, name: string): GraphQLSchema {
  let parsed: { data?: IntrospectionQuery | null; errors?: unknown[] };
  try {
    parsed = JSON.parse(raw) as typeof parsed;
  } catch {
    throw errors.remoteSchemaFailed('$', `remote schema ${JSON.stringify(name)}: the introspection response is not valid JSON`);
  }
  if (Array.isArray(parsed.errors) && parsed.errors.length > 0) {
    throw errors.remoteSchemaFailed('$', `remote schema ${JSON.stringify(name)}: introspection failed: ${JSON.stringify(parsed.errors)}`);
  }
  if (parsed.data?.__schema == null) throw errors.remoteSchemaFailed('$', `remote schema ${JSON.stringify(name)}: the introspection response has no data.__schema`);
  try {
    return buildClientSchema(parsed.data);
  } catch (error) {
    throw errors.remoteSchemaFailed('$', `remote schema ${JSON.stringify(name)}: invalid schema: ${(error as Error).message}`);
  }
}
