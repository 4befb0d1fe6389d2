import type { Config } from '../../src/config/load.js';
import { errors } from '../../src/errors/errors.js';
import { ADMIN_ROLE, makeSession, sessionVariablesFromHeaders, type Session } from '../../src/session/session.js';
import { presentedSecret, secretMatches } from './admin-secret.js';

/** Request headers (lower-case names) -> the session the request runs as, or an auth error. */
export type SessionResolver = (headers: Record<string, string>) => Promise<Session>;

/**
 * The session from the role header and the `x-service-*` headers: what an admin (or
 * an unauthorized-role request) is allowed to claim for itself (compat-facts 5.1).
 */
function sessionFromHeaders(defaultRole: string, headers: Record<string, string>): Session {
  const role = headers['x-service-role'] ?? defaultRole;
  return makeSession(role, sessionVariablesFromHeaders(headers));
}

/**
 * Chooses how requests are authenticated from the config: no secret (development mode,
 * everyone is admin), or an admin secret with an optional unauthorized role.
 */
export function createSessionResolver(config: Config): SessionResolver {
  const { adminSecret, unauthorizedRole } = config;
  if (adminSecret === undefined) {
    return async (headers) => sessionFromHeaders(ADMIN_ROLE, headers);
  }
  return async (headers) => {
    const presented = presentedSecret(headers);
    if (presented !== undefined) {
      if (!secretMatches(presented, adminSecret)) throw errors.invalidAdminSecret('$');
      return sessionFromHeaders(ADMIN_ROLE, headers);
    }
    if (unauthorizedRole !== undefined) return makeSession(unauthorizedRole, sessionVariablesFromHeaders(headers));
    throw errors.adminSecretRequired('$');
  };
}
