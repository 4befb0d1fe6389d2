import type { ServiceError } from './service-error.js';

/**
 * The two error encodings of the engine (compat-facts 1.1, 1.2), for errors of the one
 * registry (errors.ts). `internal` (PostgreSQL's detail, the statement) appears only where
 * the caller says the session may see it: the admin role.
 */

/** `/v1/query`, the config API and the edge: `{path, error, code, internal?}`. */
export function queryErrorJson(error: ServiceError, showInternal: boolean): string {
  const body: Record<string, unknown> = { path: error.path, error: error.message, code: error.code };
  if (showInternal && error.internal !== undefined) body.internal = error.internal;
  return JSON.stringify(body);
}

/** `/v1/graphql`: `{"errors":[{message, extensions: {path, code, internal?}}]}`, no `data` key. */
export function graphqlErrorBody(errors: readonly ServiceError[], showInternal = false): Uint8Array {
  const entries = errors.map((error) => ({
    message: error.message,
    extensions: { path: error.path, code: error.code, ...(showInternal && error.internal !== undefined ? { internal: error.internal } : {}) },
  }));
  return Buffer.from(JSON.stringify({ errors: entries }));
}
