import { UnsecuredJWT, base64url } from 'jose';
import { describe, expect, it } from 'vitest';
import { authSuite, jwtEnv } from './engines.js';
import {
  ADMIN_SECRET,
  bearer,
  expectRefused,
  expectServed,
  HS_SECRET,
  hsKey,
  NAMESPACE,
  resolveError,
  resolveSession,
  serviceClaims,
  sign,
} from './fixtures.js';

const suite = authSuite();
const key = hsKey();
const token = (claims: Record<string, unknown> = serviceClaims(), options = {}) => sign({ sub: '42', [NAMESPACE]: claims }, key, options);

describe('JWT mode with an HS256 shared key and the default claims namespace', () => {
  const engine = suite.engineWith(jwtEnv({ type: 'HS256', key: HS_SECRET }));

  it('serves a request with a valid token, as the default role with the x-service-* claims as session variables', async () => {
    const jwt = await token();
    const headers = bearer(jwt);
    await expectServed(engine(), headers);
    // The token's exp ends a WebSocket's session when it passes.
    const { exp } = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as { exp: number };
    expect(await resolveSession(engine(), headers)).toEqual({ role: 'user', variables: { 'x-service-role': 'user', 'x-service-user-id': '42' }, expires_at: exp * 1000 });
  });

  it('runs as the X-Service-Role the request asks for when the token allows it', async () => {
    const session = await resolveSession(engine(), { ...bearer(await token()), 'x-service-role': 'editor' });
    expect(session).toEqual({ role: 'editor', variables: { 'x-service-role': 'editor', 'x-service-user-id': '42' }, expires_at: expect.any(Number) });
  });

  it('takes session variables from the token only, never from other request headers', async () => {
    const session = await resolveSession(engine(), { ...bearer(await token()), 'x-service-user-id': '1', 'x-service-org-id': '7' });
    expect(session.variables).toEqual({ 'x-service-role': 'user', 'x-service-user-id': '42' });
  });

  it('lower-cases claim names and keeps only x-service-* claims', async () => {
    const session = await resolveSession(engine(), bearer(await token(serviceClaims({ 'X-Service-Org-Id': '7', other: 'dropped' }))));
    expect(session.variables).toEqual({ 'x-service-role': 'user', 'x-service-user-id': '42', 'x-service-org-id': '7' });
  });

  it('skips JWT when the admin secret is sent: admin, even with a bad token', async () => {
    const headers = { 'x-service-admin-secret': ADMIN_SECRET, authorization: 'Bearer garbage' };
    expect((await resolveSession(engine(), headers)).role).toBe('admin');
    expect((await engine().query({ type: 'export_metadata', args: {} }, headers)).status).toBe(200);
  });

  it('refuses a wrong admin secret with 401 even when a valid token comes along', async () => {
    await expectRefused(engine(), { ...bearer(await token()), 'x-service-admin-secret': 'wrong' }, 'access-denied', 401);
  });

  it('refuses a request without an Authorization header when there is no unauthorized role', async () => {
    const { query } = await expectRefused(engine(), {}, 'invalid-headers', 400);
    expect(query.json.error).toBe('Missing Authorization header in JWT authentication mode');
  });

  it('refuses a token that is not for a role the server knows: role header not among the allowed roles', async () => {
    const { query } = await expectRefused(engine(), { ...bearer(await token()), 'x-service-role': 'admin' }, 'access-denied', 400);
    expect(query.json.error).toBe('Your requested role is not in allowed roles');
  });

  it('refuses a token whose default role is not among its allowed roles', async () => {
    await expectRefused(engine(), bearer(await token(serviceClaims({ 'x-service-default-role': 'admin' }))), 'access-denied', 400);
  });

  it('refuses a token without the default-role claim', async () => {
    const claims = serviceClaims();
    delete claims['x-service-default-role'];
    const { query } = await expectRefused(engine(), bearer(await token(claims)), 'jwt-missing-role-claims', 400);
    expect(query.json.error).toBe('JWT claim does not contain x-service-default-role');
  });

  it('refuses a token without the allowed-roles claim', async () => {
    const claims = serviceClaims();
    delete claims['x-service-allowed-roles'];
    const { query } = await expectRefused(engine(), bearer(await token(claims)), 'jwt-missing-role-claims', 400);
    expect(query.json.error).toBe('JWT claim does not contain x-service-allowed-roles');
  });

  it('refuses allowed roles that are not a list, and claims that are not strings', async () => {
    const { query } = await expectRefused(engine(), bearer(await token(serviceClaims({ 'x-service-allowed-roles': 'user' }))), 'jwt-invalid-claims', 400);
    expect(query.json.error).toBe('invalid x-service-allowed-roles; should be a list of roles: parsing [] failed, expected Array, but encountered String');
    await expectRefused(engine(), bearer(await token(serviceClaims({ 'x-service-user-id': 42 }))), 'jwt-invalid-claims', 400);
  });

  it('refuses a token without the claims namespace, or with a namespace that is not an object', async () => {
    const { query } = await expectRefused(engine(), bearer(await sign({ sub: '42' }, key)), 'jwt-invalid-claims', 400);
    expect(query.json.error).toBe(`claims key: '${NAMESPACE}' not found`);
    const stringified = await sign({ [NAMESPACE]: JSON.stringify(serviceClaims()) }, key);
    expect((await resolveError(engine(), bearer(stringified))).message).toBe('expecting a json object when claims_format is json');
  });

  it('refuses an unsigned token (alg: none)', async () => {
    const unsigned = new UnsecuredJWT({ [NAMESPACE]: serviceClaims() }).setExpirationTime('1h').encode();
    await expectRefused(engine(), bearer(unsigned), 'invalid-jwt', 400);
  });

  it('refuses an expired token with "JWTExpired"', async () => {
    const { query, graphql } = await expectRefused(engine(), bearer(await token(serviceClaims(), { expiresIn: -60 })), 'invalid-jwt', 400);
    expect(query.json.error).toBe('Could not verify JWT: JWTExpired');
    expect(graphql.json.errors[0].message).toBe('Could not verify JWT: JWTExpired');
  });

  it('refuses a token whose nbf is in the future', async () => {
    const { query } = await expectRefused(engine(), bearer(await token(serviceClaims(), { notBefore: 600 })), 'invalid-jwt', 400);
    expect(query.json.error).toBe('Could not verify JWT: JWTNotYetValid');
  });

  it('refuses a token issued in the future', async () => {
    const future = Math.floor(Date.now() / 1000) + 600;
    const { query } = await expectRefused(engine(), bearer(await token(serviceClaims(), { issuedAt: future })), 'invalid-jwt', 400);
    expect(query.json.error).toBe('Could not verify JWT: JWTIssuedAtFuture');
  });

  it('refuses a token whose payload was tampered with', async () => {
    const [header, , signature] = (await token()).split('.');
    const forged = base64url.encode(JSON.stringify({ sub: '42', exp: 4102444800, [NAMESPACE]: serviceClaims({ 'x-service-allowed-roles': ['user', 'admin'], 'x-service-default-role': 'admin' }) }));
    const { query } = await expectRefused(engine(), bearer(`${header}.${forged}.${signature}`), 'invalid-jwt', 400);
    expect(query.json.error).toBe('Could not verify JWT: JWSError JWSInvalidSignature');
  });

  it('refuses a token signed with another key', async () => {
    const other = await sign({ [NAMESPACE]: serviceClaims() }, hsKey('another-shared-secret-of-32-characters-or-more'));
    await expectRefused(engine(), bearer(other), 'invalid-jwt', 400);
  });

  it('refuses a token signed with another HMAC algorithm than the configured one', async () => {
    await expectRefused(engine(), bearer(await token(serviceClaims(), { alg: 'HS512' })), 'invalid-jwt', 400);
  });

  it.each([
    ['the token without "Bearer"', async () => token()],
    ['another scheme', async () => `Basic ${await token()}`],
    ['two tokens', async () => `Bearer ${await token()} ${await token()}`],
    ['"Bearer" alone', async () => 'Bearer'],
  ])('refuses a malformed Authorization header: %s', async (_case, header) => {
    const { query } = await expectRefused(engine(), { authorization: await header() }, 'invalid-headers', 400);
    expect(query.json.error).toBe('Malformed Authorization header');
  });

  it('refuses a garbage token', async () => {
    const { query } = await expectRefused(engine(), bearer('garbage'), 'invalid-jwt', 400);
    expect(query.json.error).toMatch(/^Could not verify JWT: JWSError/);
    await expectRefused(engine(), bearer('a.b.c'), 'invalid-jwt', 400);
  });

  it('serves a cached token again, and still checks the role header each time', async () => {
    const headers = bearer(await token());
    await expectServed(engine(), headers);
    await expectServed(engine(), headers);
    await expectRefused(engine(), { ...headers, 'x-service-role': 'manager' }, 'access-denied', 400);
    expect((await resolveSession(engine(), { ...headers, 'x-service-role': 'editor' })).role).toBe('editor');
  });

  it('reports JWT in the config API', async () => {
    const config = await engine().get('/v1alpha1/config');
    expect(config.json).toMatchObject({ is_admin_secret_set: true, is_auth_hook_set: false, is_jwt_set: true, jwt: { claims_namespace: NAMESPACE, claims_format: 'json' } });
  });
});

describe.each([
  ['HS384', 48],
  ['HS512', 64],
])('JWT mode with an %s shared key', (type, length) => {
  const secret = 'k'.repeat(length);
  const engine = suite.engineWith(jwtEnv({ type, key: secret }));

  it('serves a token signed with that algorithm and refuses HS256', async () => {
    const hs = hsKey(secret);
    await expectServed(engine(), bearer(await sign({ [NAMESPACE]: serviceClaims() }, hs, { alg: type })));
    await expectRefused(engine(), bearer(await sign({ [NAMESPACE]: serviceClaims() }, hs, { alg: 'HS256' })), 'invalid-jwt', 400);
  });
});

describe('JWT options: audience, issuer, allowed_skew, and an unauthorized role', () => {
  const engine = suite.engineWith(
    jwtEnv({ type: 'HS256', key: HS_SECRET, audience: ['app-1', 'app-2'], issuer: 'https://issuer.example', allowed_skew: 30 }, { SERVICE_GRAPHQL_UNAUTHORIZED_ROLE: 'anonymous' }),
  );
  const withClaims = (extra: Record<string, unknown>, options = {}) => sign({ [NAMESPACE]: serviceClaims(), aud: 'app-2', iss: 'https://issuer.example', ...extra }, key, options);

  it('serves a token for one of the audiences from the issuer', async () => {
    await expectServed(engine(), bearer(await withClaims({})));
    await expectServed(engine(), bearer(await withClaims({ aud: ['other', 'app-1'] })));
  });

  it('refuses a token for another audience, or for none', async () => {
    const { query } = await expectRefused(engine(), bearer(await withClaims({ aud: 'app-3' })), 'invalid-jwt', 400);
    expect(query.json.error).toBe('Could not verify JWT: JWTNotInAudience');
    await expectRefused(engine(), bearer(await withClaims({ aud: undefined })), 'invalid-jwt', 400);
  });

  it('refuses a token from another issuer', async () => {
    const { query } = await expectRefused(engine(), bearer(await withClaims({ iss: 'https://evil.example' })), 'invalid-jwt', 400);
    expect(query.json.error).toBe('Could not verify JWT: JWTNotInIssuer');
  });

  it('accepts a token that expired less than allowed_skew ago, not one that expired before', async () => {
    await expectServed(engine(), bearer(await withClaims({}, { expiresIn: -10 })));
    const { query } = await expectRefused(engine(), bearer(await withClaims({}, { expiresIn: -60 })), 'invalid-jwt', 400);
    expect(query.json.error).toBe('Could not verify JWT: JWTExpired');
  });

  it('runs a request without a token as the unauthorized role, with its header session variables', async () => {
    await expectServed(engine(), {});
    expect(await resolveSession(engine(), { 'x-service-user-id': '5' })).toEqual({ role: 'anonymous', variables: { 'x-service-role': 'anonymous', 'x-service-user-id': '5' } });
  });

  it('still refuses a bad token when an unauthorized role is configured', async () => {
    await expectRefused(engine(), bearer('garbage'), 'invalid-jwt', 400);
    await expectRefused(engine(), { authorization: 'Basic abc' }, 'invalid-headers', 400);
  });
});

describe('JWT claims_namespace_path with json claims', () => {
  const engine = suite.engineWith(jwtEnv({ type: 'HS256', key: HS_SECRET, claims_namespace_path: '$.service.claims' }));

  it('reads the claims at the path', async () => {
    const session = await resolveSession(engine(), bearer(await sign({ service: { claims: serviceClaims() } }, key)));
    expect(session).toEqual({ role: 'user', variables: { 'x-service-role': 'user', 'x-service-user-id': '42' }, expires_at: expect.any(Number) });
  });

  it('refuses a token without claims at the path', async () => {
    const { query } = await expectRefused(engine(), bearer(await sign({ service: {} }, key)), 'jwt-invalid-claims', 400);
    expect(query.json.error).toBe("claims not found at claims_namespace_path: '$.service.claims'");
  });

  it('reports the path in the config API', async () => {
    expect((await engine().get('/v1alpha1/config')).json.jwt).toEqual({ claims_namespace: '$.service.claims', claims_format: 'json' });
  });
});

describe('JWT claims_namespace_path "$" (claims at the payload root)', () => {
  const engine = suite.engineWith(jwtEnv({ type: 'HS256', key: HS_SECRET, claims_namespace_path: '$' }));

  it('reads the x-service-* claims from the payload itself', async () => {
    const session = await resolveSession(engine(), bearer(await sign({ sub: '1', ...serviceClaims({ 'x-service-user-id': '9' }) }, key)));
    expect(session).toEqual({ role: 'user', variables: { 'x-service-role': 'user', 'x-service-user-id': '9' }, expires_at: expect.any(Number) });
  });
});

describe('JWT claims_namespace with stringified_json claims', () => {
  const namespace = 'https://example.com/claims';
  const engine = suite.engineWith(jwtEnv({ type: 'HS256', key: HS_SECRET, claims_namespace: namespace, claims_format: 'stringified_json' }));

  it('parses the claims from the JSON string', async () => {
    await expectServed(engine(), bearer(await sign({ [namespace]: JSON.stringify(serviceClaims()) }, key)));
  });

  it('refuses stringified claims that are not JSON', async () => {
    const { query } = await expectRefused(engine(), bearer(await sign({ [namespace]: '{not json' }, key)), 'jwt-invalid-claims', 400);
    expect(query.json.error).toBe(`expecting stringified json at: 'claims_namespace ${namespace}', but found: {not json`);
  });

  it('refuses claims that are an object rather than a string', async () => {
    const { query } = await expectRefused(engine(), bearer(await sign({ [namespace]: serviceClaims() }, key)), 'jwt-invalid-claims', 400);
    expect(query.json.error).toBe('expecting a string when claims_format is stringified_json');
  });

  it('reports the namespace and format in the config API', async () => {
    expect((await engine().get('/v1alpha1/config')).json.jwt).toEqual({ claims_namespace: namespace, claims_format: 'stringified_json' });
  });
});

describe('JWT claims_map and the token in a cookie', () => {
  const claimsMap = {
    'x-service-allowed-roles': { path: '$.app.roles' },
    'x-service-default-role': { path: '$.app.roles[0]' },
    'x-service-user-id': { path: '$.sub' },
    'x-service-org-id': { path: "$.app['org id']", default: 'public' },
    'x-service-tier': 'free',
  };
  const engine = suite.engineWith(jwtEnv({ type: 'HS256', key: HS_SECRET, claims_map: claimsMap, header: { type: 'Cookie', name: 'session_jwt' } }));
  const cookie = (jwt: string) => ({ cookie: `theme=dark; session_jwt=${jwt}; other=1` });

  it('maps paths (indexing arrays), defaults and literals to session variables', async () => {
    const session = await resolveSession(engine(), cookie(await sign({ sub: '42', app: { roles: ['reader', 'writer'] } }, key)));
    expect(session).toEqual({ role: 'reader', variables: { 'x-service-role': 'reader', 'x-service-user-id': '42', 'x-service-org-id': 'public', 'x-service-tier': 'free' }, expires_at: expect.any(Number) });
    const withOrg = await resolveSession(engine(), { ...cookie(await sign({ sub: '42', app: { roles: ['reader', 'writer'], 'org id': '7' } }, key)), 'x-service-role': 'writer' });
    expect(withOrg.role).toBe('writer');
    expect(withOrg.variables['x-service-org-id']).toBe('7');
    await expectServed(engine(), cookie(await sign({ sub: '42', app: { roles: ['reader'] } }, key)));
  });

  it('refuses a token missing a mapped claim that has no default', async () => {
    const { query } = await expectRefused(engine(), cookie(await sign({ app: { roles: ['reader'] } }, key)), 'jwt-invalid-claims', 400);
    expect(query.json.error).toBe('JWT claim from claims_map, x-service-user-id not found');
  });

  it('refuses a token whose mapped roles are missing', async () => {
    await expectRefused(engine(), cookie(await sign({ sub: '42', app: {} }, key)), 'jwt-missing-role-claims', 400);
  });

  it('refuses a Cookie header without the configured cookie, and asks for the Cookie header when none is sent', async () => {
    const { query } = await expectRefused(engine(), { cookie: 'theme=dark' }, 'invalid-headers', 400);
    expect(query.json.error).toBe('Could not find session_jwt in Cookie header');
    const missing = await expectRefused(engine(), bearer(await sign({ sub: '42', app: { roles: ['reader'] } }, key)), 'invalid-headers', 400);
    expect(missing.query.json.error).toBe('Missing Cookie header in JWT authentication mode');
  });

  it('reports the claims map in the config API', async () => {
    expect((await engine().get('/v1alpha1/config')).json.jwt).toEqual({ claims_namespace: NAMESPACE, claims_format: 'json', claims_map: claimsMap });
  });
});
