import { describe, expect, it, vi } from 'vitest';
import { createJwtAuthenticator } from '../../actors/auth/jwt/authenticate.js';
import { parseJwtSettings } from '../../actors/auth/jwt/config.js';
import { evaluateJsonPath, parseJsonPath } from '../../actors/auth/jwt/json-path.js';
import { staticKeySource, type JwtKeySource } from '../../actors/auth/jwt/keys.js';
import { tokenFromHeaders } from '../../actors/auth/jwt/token-header.js';
import { TokenCache } from '../../actors/auth/token-cache.js';
import { forwardedHeaders } from '../../actors/auth/webhook.js';
import { HS_SECRET, hsKey, NAMESPACE, serviceClaims, sign } from './fixtures.js';

describe('JSON paths of the JWT config', () => {
  const payload = { sub: '1', app: { roles: ['a', 'b'], 'org id': '7', "it's": 'q' }, list: [[1, 2]] };

  it.each([
    ['$', payload],
    ['$.sub', '1'],
    ['$.app.roles', ['a', 'b']],
    ['$.app.roles[1]', 'b'],
    ["$.app['org id']", '7'],
    ['$.app["org id"]', '7'],
    ["$.app['it\\'s']", 'q'],
    ['$.list[0][1]', 2],
    ['app.roles[0]', 'a'],
    ['$.app.roles[2]', undefined],
    ['$.sub.x', undefined],
    ['$.missing', undefined],
    ['$.app.roles.length', undefined],
  ])('%s', (path, expected) => {
    expect(evaluateJsonPath(payload, parseJsonPath(path))).toEqual(expected);
  });

  it.each(['', '$.', '$[', "$['a'", '$[a]', '$.a b', '$..a'])('refuses %j', (path) => {
    expect(() => parseJsonPath(path)).toThrow();
  });

  it('does not walk into inherited properties', () => {
    expect(evaluateJsonPath({}, parseJsonPath('$.constructor'))).toBeUndefined();
    expect(evaluateJsonPath({}, parseJsonPath('$.__proto__'))).toBeUndefined();
  });
});

describe('the token header', () => {
  it('reads "Bearer <token>", in any case of the scheme and with extra spaces', () => {
    expect(tokenFromHeaders({ authorization: 'Bearer abc' }, { type: 'Authorization' })).toBe('abc');
    expect(tokenFromHeaders({ authorization: '  bearer   abc ' }, { type: 'Authorization' })).toBe('abc');
    expect(tokenFromHeaders({}, { type: 'Authorization' })).toBeUndefined();
  });

  it('reads a cookie, quoted or not', () => {
    expect(tokenFromHeaders({ cookie: 'a=1; jwt="abc"' }, { type: 'Cookie', name: 'jwt' })).toBe('abc');
    expect(tokenFromHeaders({ cookie: 'jwt=abc;b=2' }, { type: 'Cookie', name: 'jwt' })).toBe('abc');
    expect(() => tokenFromHeaders({ cookie: 'xjwt=abc' }, { type: 'Cookie', name: 'jwt' })).toThrow('Could not find jwt in Cookie header');
  });
});

describe('the webhook GET headers', () => {
  it('leave out content, connection and client-identity headers, and keep the rest', () => {
    const headers = { authorization: 'a', 'x-service-user-id': '1', host: 'h', 'content-type': 'c', 'content-length': '1', connection: 'close', 'transfer-encoding': 'chunked', 'user-agent': 'u', cookie: 'c=1' };
    expect(forwardedHeaders(headers)).toEqual({ authorization: 'a', 'x-service-user-id': '1', cookie: 'c=1' });
  });
});

describe('TokenCache', () => {
  it('keeps an entry until the token expires, never longer', () => {
    let now = 1_000;
    const cache = new TokenCache<string>(10, () => now);
    cache.set('k', 'v', 2_000, 0);
    expect(cache.get('k', 0)).toBe('v');
    now = 1_999;
    expect(cache.get('k', 0)).toBe('v');
    now = 2_000;
    expect(cache.get('k', 0)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('does not keep tokens without exp or already expired', () => {
    const cache = new TokenCache<string>(10, () => 1_000);
    cache.set('a', 'v', undefined, 0);
    cache.set('b', 'v', 999, 0);
    expect(cache.size).toBe(0);
  });

  it('drops an entry verified with keys that were rotated out', () => {
    const cache = new TokenCache<string>(10, () => 0);
    cache.set('k', 'v', 10, 1);
    expect(cache.get('k', 2)).toBeUndefined();
  });

  it('is bounded: the oldest entry goes when full', () => {
    const cache = new TokenCache<string>(3, () => 0);
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, key, 10, 0);
    expect(cache.size).toBe(3);
    expect(cache.get('a', 0)).toBeUndefined();
    expect(cache.get('d', 0)).toBe('d');
  });

  it('keys entries by a SHA-256 of the token, not the token', () => {
    expect(TokenCache.keyOf('header.payload.signature')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('the JWT authenticator with its token cache', () => {
  const settings = parseJwtSettings({ type: 'HS256', key: HS_SECRET });
  if (settings.key.kind !== 'key') throw new Error('expected a key');
  const keys = staticKeySource(settings.key);

  it('verifies a token once while it is cached, and again after it expires', async () => {
    vi.useFakeTimers({ now: Date.parse('2030-01-01T00:00:00Z'), toFake: ['Date'] });
    try {
      const counting = { ...keys, current: vi.fn(keys.current) } satisfies JwtKeySource;
      const auth = createJwtAuthenticator(settings, counting);
      const token = await sign({ [NAMESPACE]: serviceClaims() }, hsKey(), { expiresIn: 60 });
      const headers = { authorization: `Bearer ${token}` };
      expect((await auth.sessionFor(headers))?.role).toBe('user');
      expect((await auth.sessionFor({ ...headers, 'x-service-role': 'editor' }))?.role).toBe('editor');
      expect(counting.current).toHaveBeenCalledTimes(1);
      vi.setSystemTime(Date.now() + 61_000);
      await expect(auth.sessionFor(headers)).rejects.toMatchObject({ code: 'invalid-jwt', message: 'Could not verify JWT: JWTExpired' });
      expect(counting.current).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('verifies every time without a cache', async () => {
    const counting = { ...keys, current: vi.fn(keys.current) } satisfies JwtKeySource;
    const auth = createJwtAuthenticator(settings, counting, { cache: false });
    const headers = { authorization: `Bearer ${await sign({ [NAMESPACE]: serviceClaims() }, hsKey())}` };
    await auth.sessionFor(headers);
    await auth.sessionFor(headers);
    expect(counting.current).toHaveBeenCalledTimes(2);
  });

  it('does not cache a token whose claims are refused', async () => {
    const auth = createJwtAuthenticator(settings, keys);
    const headers = { authorization: `Bearer ${await sign({ [NAMESPACE]: { 'x-service-default-role': 'user' } }, hsKey())}` };
    await expect(auth.sessionFor(headers)).rejects.toMatchObject({ code: 'jwt-missing-role-claims' });
    expect(auth.cache?.size).toBe(0);
  });
});
