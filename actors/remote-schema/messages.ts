import type { Session } from '../../src/session/session.js';
import type { RemoteDefinition } from './definition.js';

/** `<p>.remote.introspect` (schemas/bus/remote-introspect.json): reply is the raw introspection response. */
export interface IntrospectRequest {
  name: string;
  definition: RemoteDefinition;
}

/** `<p>.remote.validate_permission` (schemas/bus/remote-validate-permission.json): reply `{"valid":true}` or a validation-failed error. */
export interface ValidatePermissionRequest {
  name: string;
  /** The remote's cached raw introspection response. */
  introspection: string;
  schema: string;
}

/**
 * The reply meta key of `<p>.remote.execute` (and of `<p>.graphql`, for the edge) holding
 * the remote's `Set-Cookie` values as a JSON array of strings (compat-facts 7.2).
 */
export const SET_COOKIE_META = 'set-cookie';

/**
 * `<p>.remote.execute` (schemas/bus/remote-execute.json): one upstream GraphQL call.
 * The reply is the response body for the client: the remote's bytes as received, or
 * `{"data":null,"errors":[...]}` when the remote reported errors (compat-facts 1.1),
 * with `SET_COOKIE_META` in the reply meta when the remote set cookies.
 */
export interface ExecuteRequest {
  name: string;
  definition: RemoteDefinition;
  query: string;
  variables: Record<string, unknown>;
  operationName: string | null;
  session: Session;
  /** The client's request headers, for `forward_client_headers`. */
  headers: Record<string, string>;
}
