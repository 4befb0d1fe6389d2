import { encodeJson } from '../../../src/bus/wire.js';
import { MissingSessionVariables } from '../sql/params.js';
import { QueryError } from '../sql/query-error.js';

/**
 * GraphQL-style error bodies (compat-facts 1.1 and 8): `{"errors":[{message, extensions:
 * {path, code, internal?}}]}`, no `data` key, always HTTP 200 on /v1/graphql.
 */
export interface GraphqlErrorEntry {
  message: string;
  path: string;
  code: string;
  /** Detail only the admin role may see (Postgres error, statement). */
  internal?: unknown;
}

export function errorBody(errors: readonly GraphqlErrorEntry[]): Uint8Array {
  const entries = errors.map((error) => ({
    message: error.message,
    extensions: { path: error.path, code: error.code, ...(error.internal === undefined ? {} : { internal: error.internal }) },
  }));
  return encodeJson({ errors: entries });
}

export function validationError(message: string, path = '$'): Uint8Array {
  return errorBody([{ message, path, code: 'validation-failed' }]);
}

/**
 * The error body of a request the compiler refused (QueryError) or could not bind (a
 * session variable a permission needs is missing); null for any other error, a bug.
 */
export function compileErrorBody(error: unknown): Uint8Array | null {
  if (error instanceof QueryError) return errorBody([{ message: error.message, path: error.path, code: error.code }]);
  if (error instanceof MissingSessionVariables) return errorBody([{ message: error.message, path: '$', code: 'not-found' }]);
  return null;
}
