import { isAdmin, SESSION_VARIABLE_PREFIX, type Session } from '../../src/session/session.js';
import type { ResolvedRemote } from './definition.js';

/**
 * Headers a client sends that are never forwarded: hop-by-hop headers (RFC 9110 7.6.1),
 * those describing the client's own request or connection (Hasura's
 * `commonClientHeadersIgnored`), and the engine's credentials: the admin secret reaches a
 * remote only when the remote's definition sets it as a static header.
 */
const NEVER_FORWARDED = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'content-md5',
  'content-type',
  'host',
  'origin',
  'referer',
  'accept',
  'accept-encoding',
  'accept-language',
  'accept-datetime',
  'cache-control',
  'dnt',
  'user-agent',
  'expect',
  'x-service-admin-secret',
  'x-service-access-key',
]);

/**
 * The headers of one call to a remote server (compat-facts 7.2): the client's headers
 * when `forward_client_headers` is set, then the session variables as `x-service-*` for
 * a non-admin role (in place of any the client sent, which the auth step did not vouch
 * for), then the configured headers, which win over both.
 */
export function upstreamHeaders(remote: ResolvedRemote, session: Session, clientHeaders: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {};
  const admin = isAdmin(session);
  if (remote.forwardClientHeaders) {
    for (const [name, value] of Object.entries(clientHeaders)) {
      const lower = name.toLowerCase();
      if (NEVER_FORWARDED.has(lower)) continue;
      if (!admin && lower.startsWith(SESSION_VARIABLE_PREFIX)) continue;
      headers[lower] = value;
    }
  }
  if (!admin) for (const [name, value] of Object.entries(session.variables)) headers[name] = value;
  for (const [name, value] of remote.headers) headers[name.toLowerCase()] = value;
  headers['content-type'] = 'application/json';
  return headers;
}
