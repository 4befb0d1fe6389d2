/**
 * Who a request runs as: the role, and the session variables with lower-case
 * `x-service-*` keys and string values (`x-service-role` included), as the auth actor
 * resolved them. `schemas/bus/session.json` is its JSON Schema.
 */
export interface Session {
  role: string;
  variables: Record<string, string>;
  /**
   * When the credentials expire (ms since the epoch): a JWT's `exp`, an auth webhook's
   * `Expires` or `Cache-Control: max-age`. A WebSocket is closed then; absent: never.
   */
  expires_at?: number;
}

export const ADMIN_ROLE = 'admin';
export const SESSION_VARIABLE_PREFIX = 'x-service-';
export const ROLE_VARIABLE = 'x-service-role';
/** The variable that names the user, by Hasura's convention; logs carry it. */
export const USER_ID_VARIABLE = 'x-service-user-id';

export function isAdmin(session: Session): boolean {
  return session.role === ADMIN_ROLE;
}

/**
 * Asks for the role's `backend_only` insert/update/delete permissions. Honoured only
 * when the request carried the admin secret (or no auth is configured): the auth actor
 * keeps this variable only then, and drops it from JWT, webhook and unauthorized sessions.
 */
export const BACKEND_ONLY_VARIABLE = 'x-service-use-backend-only-permissions';

export function usesBackendOnlyPermissions(session: Session): boolean {
  return session.variables[BACKEND_ONLY_VARIABLE]?.trim().toLowerCase() === 'true';
}

/** The session without a claim to backend-only permissions, for credentials that cannot make it. */
export function withoutBackendOnlyClaim(session: Session): Session {
  if (!(BACKEND_ONLY_VARIABLE in session.variables)) return session;
  const { [BACKEND_ONLY_VARIABLE]: _dropped, ...variables } = session.variables;
  return { role: session.role, variables };
}

/**
 * One string per distinct session: its role and every session variable, in a stable order;
 * null when no variable but the role tells its users apart (anonymous requests, say).
 */
export function sessionKey(session: Session): string | null {
  const names = Object.keys(session.variables).filter((name) => name !== ROLE_VARIABLE).sort();
  if (names.length === 0) return null;
  let key = session.role;
  for (const name of names) key += `\u0000${name}\u0000${session.variables[name]}`;
  return key;
}

/** A session for `role` with the given variables, lower-casing keys as Hasura does. */
export function makeSession(role: string, variables: Record<string, string> = {}): Session {
  const lowered: Record<string, string> = {};
  for (const [key, value] of Object.entries(variables)) lowered[key.toLowerCase()] = value;
  lowered[ROLE_VARIABLE] = role;
  return { role, variables: lowered };
}

/** The `x-service-*` headers of a request, as session variables. */
export function sessionVariablesFromHeaders(headers: Record<string, string>): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    const lower = key.toLowerCase();
    if (lower.startsWith(SESSION_VARIABLE_PREFIX) && lower !== 'x-service-admin-secret' && lower !== 'x-service-access-key') {
      variables[lower] = value;
    }
  }
  return variables;
}
