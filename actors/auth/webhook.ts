import got from 'got';
import { errors } from '../../src/errors/errors.js';
import { makeSession, ROLE_VARIABLE, SESSION_VARIABLE_PREFIX, type Session } from '../../src/session/session.js';
import { USER_AGENT } from '../../src/version.js';
import type { TypedLog } from '../../src/log/log-types.js';

export type AuthHookMode = 'GET' | 'POST';

export interface AuthWebhookOptions {
  url: string;
  mode: AuthHookMode;
  timeoutMs?: number;
  /** webhook-log: Hasura's type for the auth webhook's answers (event trigger calls log under it too). */
  log?: TypedLog;
}

/** The GraphQL request a POST-mode webhook may look at; `null` outside /v1/graphql. */
export type HookRequest = unknown;

export type AuthWebhook = (headers: Record<string, string>, request?: HookRequest) => Promise<Session>;

/**
 * Client headers a GET-mode webhook does not receive: Hasura's `commonClientHeadersIgnored`
 * plus the hop-by-hop headers of RFC 9110 7.6.1, which belong to the client's connection.
 */
const NOT_FORWARDED = new Set([
  'content-length', 'content-md5', 'user-agent', 'host', 'origin', 'referer', 'accept', 'accept-encoding',
  'accept-language', 'accept-datetime', 'cache-control', 'connection', 'dnt', 'content-type',
  'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-connection',
  'expect', 'http2-settings',
]);

export function forwardedHeaders(headers: Record<string, string>): Record<string, string> {
  const forwarded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!NOT_FORWARDED.has(name.toLowerCase())) forwarded[name] = value;
  }
  return forwarded;
}

/**
 * The session from a 200 answer: a JSON object of strings whose `X-Service-*` keys
 * (any case) are the session variables; `X-Service-Role` is required.
 */
export function sessionFromHookBody(text: string): Session {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw errors.authHookInvalidResponse('$', (error as Error).message);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw errors.authHookInvalidResponse('$', 'expected a JSON object of session variables');
  }
  const variables: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) {
    if (typeof value !== 'string') throw errors.authHookInvalidResponse('$', `the value of ${JSON.stringify(name)} is not a string`);
    const lower = name.toLowerCase();
    if (lower.startsWith(SESSION_VARIABLE_PREFIX)) variables[lower] = value;
  }
  const role = variables[ROLE_VARIABLE];
  if (role === undefined) throw errors.sessionRoleMissing('$');
  return makeSession(role, variables);
}

/**
 * Auth-webhook mode, as Hasura's `userInfoFromAuthHook`: GET forwards the client's
 * headers; POST sends `{headers, request}`. 200 gives the session, 401 refuses the
 * request, anything else (or no answer) is a server error.
 */
export function createAuthWebhook(options: AuthWebhookOptions): AuthWebhook {
  const { url, mode, timeoutMs = 10_000 } = options;
  return async (headers, request = null) => {
    let response;
    const started = performance.now();
    const logCall = (fields: Record<string, unknown>) => options.log?.info({ url, method: mode, ms: Math.round(performance.now() - started), ...fields }, 'auth webhook');
    try {
      response = await got(url, {
        method: mode,
        timeout: { request: timeoutMs },
        retry: { limit: 0 },
        throwHttpErrors: false,
        ...(mode === 'GET'
          ? { headers: { ...forwardedHeaders(headers), 'user-agent': USER_AGENT } }
          : { headers: { 'user-agent': USER_AGENT, 'content-type': 'application/json' }, body: JSON.stringify({ headers, request }) }),
      });
    } catch (error) {
      logCall({ error: (error as Error).message });
      throw errors.authHookFailed('$').withInternal({ error: (error as Error).message });
    }
    logCall({ status: response.statusCode });
    if (response.statusCode === 200) {
      const session = sessionFromHookBody(response.body);
      const expiresAt = expiryOf(response.headers, Date.now());
      return expiresAt === undefined ? session : { ...session, expires_at: expiresAt };
    }
    if (response.statusCode === 401) throw errors.authHookUnauthorized('$');
    throw errors.authHookInvalidResponse('$', '').withInternal({ status: response.statusCode });
  };
}

/**
 * When a webhook's session expires, as Hasura reads it for WebSockets: `Cache-Control:
 * max-age` (or `s-maxage`) seconds from now, else an `Expires` date; undefined: never.
 */
export function expiryOf(headers: Record<string, string | string[] | undefined>, now: number): number | undefined {
  const cacheControl = String(headers['cache-control'] ?? '');
  const maxAge = /(?:^|[,\s])(?:s-maxage|max-age)\s*=\s*(\d+)/i.exec(cacheControl);
  if (maxAge !== null) return now + Number(maxAge[1]) * 1000;
  const expires = headers.expires;
  if (typeof expires !== 'string') return undefined;
  const at = Date.parse(expires);
  return Number.isNaN(at) ? undefined : at;
}
