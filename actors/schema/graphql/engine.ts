import { buildSchema, execute, parse, validate, type GraphQLSchema } from 'graphql';
import type { Metadata } from '../../../src/metadata/types.js';
import type { Catalog } from '../../../src/pg/catalog.js';
import type { Pool } from '../../../src/pg/pool.js';
import type { Session } from '../../../src/session/session.js';
import { encodeJson } from '../../../src/bus/wire.js';

/** One GraphQL request of a (possibly batched) POST /v1/graphql body. */
export interface GraphqlRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

export interface ExecutionContext {
  db: Pool;
  requestId: string;
}

/** Serves GraphQL for every role from one metadata version and catalog. */
export interface GraphqlEngine {
  /** Runs one request as `session` and returns the response JSON as bytes. */
  execute(request: GraphqlRequest, session: Session, context: ExecutionContext): Promise<Uint8Array>;
}

const PLACEHOLDER_SDL = `
"""There are no queries available to the current role."""
type query_root {
  """There are no queries available to the current role. Either there are no sources or remote schemas configured, or the current role doesn't have the required permissions."""
  no_queries_available: String!
}
schema { query: query_root }
`;

/** The schema of a role that can query nothing (compat-facts 8). */
function placeholderSchema(): GraphQLSchema {
  return buildSchema(PLACEHOLDER_SDL);
}

export function buildGraphqlEngine(metadata: Metadata, catalog: Catalog): GraphqlEngine {
  void metadata;
  void catalog;
  const schema = placeholderSchema();
  return {
    async execute(request) {
      const document = parse(request.query);
      const problems = validate(schema, document);
      if (problems.length > 0) {
        return encodeJson({ errors: problems.map((problem) => ({ message: problem.message, extensions: { path: '$', code: 'validation-failed' } })) });
      }
      const result = await execute({
        schema,
        document,
        variableValues: request.variables ?? undefined,
        operationName: request.operationName ?? undefined,
        rootValue: { no_queries_available: '' },
      });
      return encodeJson(result);
    },
  };
}
