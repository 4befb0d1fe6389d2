import { graphqlErrorBody } from '../../../src/errors/bodies.js';
import { errors } from '../../../src/errors/errors.js';
import { ServiceError } from '../../../src/errors/service-error.js';

/**
 * The error bodies of /v1/graphql (compat-facts 1.1 and 8): `{"errors":[...]}`, no `data`
 * key, always HTTP 200; every error one of the registry's (src/errors/errors.ts).
 */
export function validationError(message: string, path = '$'): Uint8Array {
  return graphqlErrorBody([errors.validationFailed(path, message)]);
}

/**
 * The error body of a request the compiler refused or could not bind (a session variable
 * a permission needs is missing); null for any other error, a bug.
 */
export function compileErrorBody(error: unknown): Uint8Array | null {
  return error instanceof ServiceError ? graphqlErrorBody([error]) : null;
}
