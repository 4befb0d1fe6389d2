import { errors } from '../../../src/errors/errors.js';
import { makeSession, SESSION_VARIABLE_PREFIX, type Session } from '../../../src/session/session.js';
import { ALLOWED_ROLES_CLAIM, DEFAULT_ROLE_CLAIM, type ClaimsMap, type ClaimsMapValue, type ClaimsSource } from './config.js';
import { evaluateJsonPath } from './json-path.js';
import { aesonTypeName } from '../../../src/json/aeson-type.js';

/** What a verified token grants, before the request picks its role (interface 5.2). */
export interface TokenIdentity {
  allowedRoles: readonly string[];
  defaultRole: string;
  /** The other `x-service-*` claims, lower-case names, string values. */
  variables: Readonly<Record<string, string>>;
  /** The token's `exp` (ms since the epoch), when it has one. */
  expiresAt?: number;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function roleList(value: unknown): string[] {
  const hint = `invalid ${ALLOWED_ROLES_CLAIM}; should be a list of roles`;
  if (!Array.isArray(value)) throw errors.jwtInvalidClaims('$', `${hint}: parsing [] failed, expected Array, but encountered ${aesonTypeName(value)}`);
  for (const item of value) {
    if (typeof item !== 'string') throw errors.jwtInvalidClaims('$', `${hint}: parsing Text failed, expected String, but encountered ${aesonTypeName(item)}`);
  }
  return value as string[];
}

function roleName(value: unknown): string {
  if (typeof value !== 'string') {
    throw errors.jwtInvalidClaims('$', `invalid ${DEFAULT_ROLE_CLAIM}; should be a single role name: parsing Text failed, expected String, but encountered ${aesonTypeName(value)}`);
  }
  return value;
}

function sessionValue(name: string, value: unknown): string {
  if (typeof value !== 'string') {
    throw errors.jwtInvalidClaims('$', `x-service-* claims: parsing Text failed for ${name}, expected String, but encountered ${aesonTypeName(value)}`);
  }
  return value;
}

/** The claims object at the configured namespace, parsed when it is stringified JSON. */
function namespaceClaims(payload: Record<string, unknown>, source: Extract<ClaimsSource, { format: unknown }>): Record<string, unknown> {
  const found = source.kind === 'namespace' ? payload[source.namespace] : evaluateJsonPath(payload, source.path);
  if (found === undefined) {
    throw errors.jwtInvalidClaims(
      '$',
      source.kind === 'namespace' ? `claims key: '${source.namespace}' not found` : `claims not found at claims_namespace_path: '${source.path.text}'`,
    );
  }
  if (source.format === 'json') {
    if (!isObject(found)) throw errors.jwtInvalidClaims('$', 'expecting a json object when claims_format is json');
    return found;
  }
  if (typeof found !== 'string') throw errors.jwtInvalidClaims('$', 'expecting a string when claims_format is stringified_json');
  let parsed: unknown;
  try {
    parsed = JSON.parse(found);
  } catch {
    parsed = undefined;
  }
  if (!isObject(parsed)) {
    const location = source.kind === 'namespace' ? `claims_namespace ${source.namespace}` : `claims_namespace_path ${source.path.text}`;
    throw errors.jwtInvalidClaims('$', `expecting stringified json at: '${location}', but found: ${found}`);
  }
  return parsed;
}

function identityFromNamespace(claims: Record<string, unknown>): TokenIdentity {
  const serviceClaims = new Map<string, unknown>();
  for (const [name, value] of Object.entries(claims)) {
    const lower = name.toLowerCase();
    if (lower.startsWith(SESSION_VARIABLE_PREFIX)) serviceClaims.set(lower, value);
  }
  if (!serviceClaims.has(ALLOWED_ROLES_CLAIM)) throw errors.jwtMissingRoleClaim('$', ALLOWED_ROLES_CLAIM);
  if (!serviceClaims.has(DEFAULT_ROLE_CLAIM)) throw errors.jwtMissingRoleClaim('$', DEFAULT_ROLE_CLAIM);
  const allowedRoles = roleList(serviceClaims.get(ALLOWED_ROLES_CLAIM));
  const defaultRole = roleName(serviceClaims.get(DEFAULT_ROLE_CLAIM));
  const variables: Record<string, string> = {};
  for (const [name, value] of serviceClaims) {
    if (name !== ALLOWED_ROLES_CLAIM && name !== DEFAULT_ROLE_CLAIM) variables[name] = sessionValue(name, value);
  }
  return { allowedRoles, defaultRole, variables };
}

/** A `claims_map` entry's value: the literal, what its path finds, else its default. */
function mapValue<T>(payload: Record<string, unknown>, entry: ClaimsMapValue<T>): unknown {
  if (entry.kind === 'literal') return entry.value;
  const found = evaluateJsonPath(payload, entry.path);
  return found === undefined ? entry.default : found;
}

function identityFromMap(payload: Record<string, unknown>, map: ClaimsMap): TokenIdentity {
  const allowed = mapValue(payload, map.allowedRoles);
  if (allowed === undefined) throw errors.jwtMissingRoleClaim('$', ALLOWED_ROLES_CLAIM);
  const fallback = mapValue(payload, map.defaultRole);
  if (fallback === undefined) throw errors.jwtMissingRoleClaim('$', DEFAULT_ROLE_CLAIM);
  const variables: Record<string, string> = {};
  for (const [name, entry] of map.others) {
    const value = mapValue(payload, entry);
    if (value === undefined) throw errors.jwtInvalidClaims('$', `JWT claim from claims_map, ${name} not found`);
    variables[name] = sessionValue(name, value);
  }
  return { allowedRoles: roleList(allowed), defaultRole: roleName(fallback), variables };
}

/** The roles and session variables a verified payload grants, per the configured claims source. */
export function identityFromPayload(payload: Record<string, unknown>, source: ClaimsSource): TokenIdentity {
  const identity = source.kind === 'map' ? identityFromMap(payload, source.map) : identityFromNamespace(namespaceClaims(payload, source));
  return typeof payload.exp === 'number' ? { ...identity, expiresAt: payload.exp * 1000 } : identity;
}

/**
 * The session for one request: the `X-Service-Role` it asks for, else the default role,
 * which must be among the allowed roles either way; no other header counts (compat-facts 5.2).
 */
export function sessionForIdentity(identity: TokenIdentity, requestedRole: string | undefined): Session {
  const role = requestedRole ?? identity.defaultRole;
  if (!identity.allowedRoles.includes(role)) throw errors.roleNotAllowed('$');
  const session = makeSession(role, identity.variables);
  return identity.expiresAt === undefined ? session : { ...session, expires_at: identity.expiresAt };
}
