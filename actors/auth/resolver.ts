import type { Config } from '../../src/config/load.js';
import { errors } from '../../src/errors/errors.js';
import { invariant } from '../../src/errors/service-error.js';
import { ADMIN_ROLE, makeSession, sessionVariablesFromHeaders, withoutBackendOnlyClaim, type Session } from '../../src/session/session.js';
import { presentedSecret, secretMatcher } from './admin-secret.js';
import type { JwtAuthenticator } from './jwt/authenticate.js';
import type { AuthWebhook, HookRequest } from './webhook.js';

/** Request headers (lower-case names) -> the session the request runs as, or an auth error. */
export type SessionResolver = (headers: Record<string, string>, request?: HookRequest) => Promise<Session>;

/** The authenticators of the modes `config` enables (the auth actor builds them at start). */
export interface AuthModes {
  jwt?: JwtAuthenticator;
  webhook?: AuthWebhook;
}

/**
 * The session from the role header and the `x-service-*` headers: what an admin (or
 * an unauthorized-role request) is allowed to claim for itself (compat-facts 5.1).
 */
function sessionFromHeaders(defaultRole: string, headers: Record<string, string>): Session {
  const role = headers['x-service-role'] ?? defaultRole;
  return makeSession(role, sessionVariablesFromHeaders(headers));
}

/**
 * Chooses how requests are authenticated (interface 5.1, compat-facts 5.1): no secret
 * (development mode, everyone is admin); else a presented admin secret is checked first
 * (right: admin, wrong: 401) and, without one, the JWT, the auth webhook or the
 * unauthorized role decides. Only the first two may ask for backend-only permissions
 * (`X-Service-Use-Backend-Only-Permissions`); the others' sessions lose that variable.
 */
export function createSessionResolver(config: Config, modes: AuthModes = {}): SessionResolver {
  const { adminSecret, unauthorizedRole } = config;
  if (adminSecret === undefined) {
    return async (headers) => sessionFromHeaders(ADMIN_ROLE, headers);
  }
  invariant(config.jwtSecret === undefined || modes.jwt !== undefined, 'JWT mode needs its authenticator');
  invariant(config.authHook === undefined || modes.webhook !== undefined, 'auth-webhook mode needs its webhook');
  const withoutCredentials = (headers: Record<string, string>, missing: () => Error): Session => {
    if (unauthorizedRole === undefined) throw missing();
    return withoutBackendOnlyClaim(makeSession(unauthorizedRole, sessionVariablesFromHeaders(headers)));
  };
  const { jwt, webhook } = modes;
  const isAdminSecret = secretMatcher(adminSecret);

  return async (headers, request) => {
    const presented = presentedSecret(headers);
    if (presented !== undefined) {
      if (!isAdminSecret(presented)) throw errors.invalidAdminSecret('$');
      return sessionFromHeaders(ADMIN_ROLE, headers);
    }
    if (jwt !== undefined) {
      const session = await jwt.sessionFor(headers);
      return session === undefined
        ? withoutCredentials(headers, () => errors.jwtMissingHeader('$', jwt.settings.header.type))
        : withoutBackendOnlyClaim(session);
    }
    if (webhook !== undefined) return withoutBackendOnlyClaim(await webhook(headers, request));
    return withoutCredentials(headers, () => errors.adminSecretRequired('$'));
  };
}
