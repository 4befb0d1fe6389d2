import { ServiceError } from './service-error.js';

/**
 * Every error a user can cause, with its stable code and HTTP status, in one place
 * (codes and texts from compat-facts section 1.3). Tests match on the code, not the text.
 * Each entry takes the JSON path first, then whatever its message names.
 */
function define<A extends unknown[]>(code: string, status: number, message: (...args: A) => string) {
  return (path: string, ...args: A): ServiceError => new ServiceError(code, status, message(...args), path);
}

const quote = (name: string): string => JSON.stringify(name);

export const errors = {
  // HTTP edge
  invalidJson: define('invalid-json', 400, (detail: string) => `Error in $: ${detail}`),
  parseFailed: define('parse-failed', 400, (detail: string) => detail),
  bodyTooLarge: define('bad-request', 413, (limit: number) => `request body is larger than the limit of ${limit} bytes`),
  notFound: define('not-found', 404, () => 'resource does not exist'),
  methodNotAllowed: define('method-not-allowed', 405, (method: string) => `method ${method} is not allowed here`),
  graphqlGetNotSupported: define('not-supported', 200, () => 'GET requests are not supported on /v1/graphql; use POST'),
  unknownOperation: define('parse-failed', 400, (type: string) => `unknown operation type: ${quote(type)}`),

  // Bus
  noResponders: define('unavailable', 503, (subject: string) => `no actor is serving ${subject}; is the engine running with that actor?`),
  busTimeout: define('unavailable', 503, (subject: string, ms: number) => `no reply on ${subject} within ${ms} ms`),

  // Authentication and authorisation (compat-facts 5.1)
  adminSecretRequired: define('access-denied', 401, () => 'x-service-admin-secret/x-service-access-key required, but not found'),
  invalidAdminSecret: define('access-denied', 401, () => 'invalid x-service-admin-secret/x-service-access-key'),
  adminOnly: define('access-denied', 400, () => 'restricted access : admin only'),

  // JWT and auth webhook (compat-facts 5.3; the webhook's texts are Hasura's WebHook.hs)
  jwtMissingHeader: define('invalid-headers', 400, (header: string) => `Missing ${header} header in JWT authentication mode`),
  jwtMalformedHeader: define('invalid-headers', 400, () => 'Malformed Authorization header'),
  jwtMissingCookie: define('invalid-headers', 400, (cookie: string) => `Could not find ${cookie} in Cookie header`),
  jwtInvalid: define('invalid-jwt', 400, (reason: string) => `Could not verify JWT: ${reason}`),
  jwtMissingRoleClaim: define('jwt-missing-role-claims', 400, (claim: string) => `JWT claim does not contain ${claim}`),
  jwtInvalidClaims: define('jwt-invalid-claims', 400, (detail: string) => detail),
  roleNotAllowed: define('access-denied', 400, () => 'Your requested role is not in allowed roles'),
  authHookUnauthorized: define('access-denied', 401, () => 'Authentication hook unauthorized this request'),
  authHookFailed: define('unexpected', 500, () => 'webhook authentication request failed'),
  authHookInvalidResponse: define('unexpected', 500, (detail: string) => `Invalid response from authorization hook${detail === '' ? '' : `: ${detail}`}`),
  sessionRoleMissing: define('invalid-params', 400, () => 'x-service-role not found in session variables'),

  // Metadata operations
  notExists: define('not-exists', 400, (what: string) => what),
  alreadyExists: define('already-exists', 400, (what: string) => what),
  notSupported: define('not-supported', 400, (what: string) => what),
  invalidParams: define('invalid-params', 400, (what: string) => what),
  invalidConfiguration: define('invalid-configuration', 400, (reasons: string) => `Inconsistent object: ${reasons}`),
  alreadyTracked: define('already-tracked', 400, (what: string) => what),
  remoteSchemaConflicts: define('remote-schema-conflicts', 400, (field: string) => `node ${field} already exists in current graphql schema`),
  alreadyUntracked: define('already-untracked', 400, (what: string) => what),
  dependencyError: define('dependency-error', 400, (what: string) => what),
  inconsistentMetadata: define('unexpected', 400, () => 'cannot continue due to inconsistent metadata'),
  eventBusy: define('busy', 400, () => 'event is already being processed'),
  metadataConflict: define('conflict', 409, () => 'the metadata was changed by another request at the same time; retry the operation'),

  // Event triggers (compat-facts 4.5)
  environmentVariableNotSet: define('not-found', 400, (variable: string) => `environment variable ${quote(variable)} is not set`),

  // Remote schemas (compat-facts 7)
  remoteSchemaFailed: define('remote-schema-error', 400, (detail: string) => detail),
  remotePermissionsDisabled: define('constraint-violation', 400, () => 'remote schema permissions can only be added when remote schema permissions are enabled in the graphql-engine'),
  remotePermissionInvalid: define('validation-failed', 400, (detail: string) => detail),
  presetSessionVariableMissing: define('not-found', 400, (variable: string) => `missing session variable: ${quote(variable)}`),
  presetSessionVariableInvalid: define('not-found', 400, (variable: string, type: string) => `session variable ${quote(variable)} is not a valid ${type}`),

  // GraphQL requests (compat-facts 1.1, 8)
  validationFailed: define('validation-failed', 400, (message: string) => message),

  // Postgres
  postgresConnection: define('postgres-error', 500, () => 'connection error'),
  postgresMaxConnections: define('postgres-max-connections-error', 500, () => 'max connections reached on postgres'),
  postgresQuery: define('postgres-error', 400, (message: string) => message),

  // Anything that is a bug of ours
  unexpected: define('unexpected', 500, () => 'an unexpected error occurred; the engine logged the details'),
} as const;

export type ErrorName = keyof typeof errors;
