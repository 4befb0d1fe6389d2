import { graphqlErrorBody } from '../../../src/errors/bodies.js';
import { ServiceError } from '../../../src/errors/service-error.js';

/**
 * The /v1/graphql error body (compat-facts 1.1 and 8: `{"errors":[...]}`, no `data` key,
 * always HTTP 200) of a request the compiler refused or could not bind (a session variable
 * a permission needs is missing); null for any other error, a bug.
 */
export function compileErrorBody(error: unknown): Uint8Array | null {
  return error instanceof ServiceError ? graphqlErrorBody([error]) : null;
}
