import { describe, expect, it } from 'vitest';
import { createJwtAuthenticator } from '../../actors/auth/jwt/authenticate.js';
import { parseJwtSettings } from '../../actors/auth/jwt/config.js';
import { staticKeySource } from '../../actors/auth/jwt/keys.js';
import { createSessionResolver } from '../../actors/auth/resolver.js';
import { sessionFromHookBody } from '../../actors/auth/webhook.js';
import { loadConfig } from '../../src/config/load.js';
import { BACKEND_ONLY_VARIABLE, usesBackendOnlyPermissions } from '../../src/session/session.js';
import { validate } from '../../src/schemas/validator.js';
import { ADMIN_SECRET, HS_SECRET, hsKey, NAMESPACE, serviceClaims, sign } from './fixtures.js';

/**
 * `X-Service-Use-Backend-Only-Permissions` (Hasura's backend-only mutations): only a
 * request with the admin secret, or any request when no auth is configured, may ask for
 * backend_only permissions; every other kind of credential loses the claim.
 */
const ask = { [BACKEND_ONLY_VARIABLE]: 'true' };
const config = (env: Record<string, string>) => loadConfig(new Map(), env);

describe('the backend-only permissions claim', () => {
  it('is kept with the admin secret, for any role, and the session stays valid', async () => {
    const resolve = createSessionResolver(config({ SERVICE_GRAPHQL_ADMIN_SECRET: ADMIN_SECRET }));
    const session = await resolve({ 'x-service-admin-secret': ADMIN_SECRET, 'x-service-role': 'user', ...ask });
    expect(usesBackendOnlyPermissions(session)).toBe(true);
    expect(validate('bus/session', session)).toEqual(session);
  });

  it('is kept in development mode (no auth configured)', async () => {
    const session = await createSessionResolver(config({}))({ 'x-service-role': 'user', [BACKEND_ONLY_VARIABLE]: 'TRUE' });
    expect(usesBackendOnlyPermissions(session)).toBe(true);
  });

  it('means nothing when the header says anything but true', async () => {
    const session = await createSessionResolver(config({}))({ [BACKEND_ONLY_VARIABLE]: 'yes please' });
    expect(usesBackendOnlyPermissions(session)).toBe(false);
  });

  it('is dropped from the unauthorized role', async () => {
    const resolve = createSessionResolver(config({ SERVICE_GRAPHQL_ADMIN_SECRET: ADMIN_SECRET, SERVICE_GRAPHQL_UNAUTHORIZED_ROLE: 'anonymous' }));
    const session = await resolve({ ...ask, 'x-service-user-id': '7' });
    expect(session).toEqual({ role: 'anonymous', variables: { 'x-service-role': 'anonymous', 'x-service-user-id': '7' } });
  });

  it('is dropped from a JWT session, whether sent as a header or as a claim', async () => {
    const jwtSecret = { type: 'HS256', key: HS_SECRET };
    const settings = parseJwtSettings(jwtSecret);
    if (settings.key.kind !== 'key') throw new Error('expected a key');
    const jwt = createJwtAuthenticator(settings, staticKeySource(settings.key));
    const resolve = createSessionResolver(config({ SERVICE_GRAPHQL_ADMIN_SECRET: ADMIN_SECRET, SERVICE_GRAPHQL_JWT_SECRET: JSON.stringify(jwtSecret) }), { jwt });
    const token = await sign({ [NAMESPACE]: serviceClaims(ask) }, hsKey());
    const session = await resolve({ authorization: `Bearer ${token}`, ...ask });
    expect(session.role).toBe('user');
    expect(session.variables[BACKEND_ONLY_VARIABLE]).toBeUndefined();
  });

  it('is dropped from an auth webhook session', async () => {
    const webhook = async () => sessionFromHookBody(JSON.stringify({ 'X-Service-Role': 'user', 'X-Service-Use-Backend-Only-Permissions': 'true' }));
    const resolve = createSessionResolver(config({ SERVICE_GRAPHQL_ADMIN_SECRET: ADMIN_SECRET, SERVICE_GRAPHQL_AUTH_HOOK: 'http://127.0.0.1:1/hook' }), { webhook });
    const session = await resolve(ask);
    expect(session).toEqual({ role: 'user', variables: { 'x-service-role': 'user' } });
  });
});
