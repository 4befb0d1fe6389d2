import { ROLE_VARIABLE, type Session } from '../../../src/session/session.js';
import { TokenCache } from '../token-cache.js';
import { identityFromPayload, sessionForIdentity, type TokenIdentity } from './claims.js';
import type { JwtSettings } from './config.js';
import type { JwtKeySource } from './keys.js';
import { tokenFromHeaders } from './token-header.js';
import { verifyJwt } from './verify.js';

export interface JwtAuthenticator {
  readonly settings: JwtSettings;
  /**
   * The session a request's token grants (interface 5.2), or `undefined` when the
   * request carries no token header at all. Throws the JWT errors of compat-facts 5.3.
   */
  sessionFor(headers: Record<string, string>): Promise<Session | undefined>;
  readonly cache: TokenCache<TokenIdentity> | undefined;
}

/**
 * JWT mode. With a cache, a verified token's identity is kept until its `exp` (never
 * longer, and only while the key set is unchanged); the role is still chosen per request.
 * Every instance verifies on its own, so a cluster needs no shared state.
 */
export function createJwtAuthenticator(settings: JwtSettings, keys: JwtKeySource, options: { cache?: TokenCache<TokenIdentity> | false } = {}): JwtAuthenticator {
  const cache = options.cache === false ? undefined : (options.cache ?? new TokenCache<TokenIdentity>());

  /** The token's identity (roles and claims), verified or from the cache. */
  const identityOf = async (token: string): Promise<TokenIdentity> => {
    if (cache === undefined) return identityFromPayload(await verifyJwt(token, keys, settings), settings.claims);
    const cacheKey = TokenCache.keyOf(token);
    const version = keys.version;
    const cached = cache.get(cacheKey, version);
    if (cached !== undefined) return cached;
    const payload = await verifyJwt(token, keys, settings);
    const identity = identityFromPayload(payload, settings.claims);
    cache.set(cacheKey, identity, typeof payload.exp === 'number' ? payload.exp * 1000 : undefined, version);
    return identity;
  };

  return {
    settings,
    cache,
    async sessionFor(headers) {
      const token = tokenFromHeaders(headers, settings.header);
      if (token === undefined) return undefined;
      return sessionForIdentity(await identityOf(token), headers[ROLE_VARIABLE]);
    },
  };
}
