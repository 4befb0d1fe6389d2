import { describe, expect, it } from 'vitest';
import { secretMatches } from '../../actors/auth/admin-secret.js';
import { authSuite } from './engines.js';
import { ADMIN_SECRET, expectRefused, expectServed, resolveSession } from './fixtures.js';

const suite = authSuite();

describe('admin secret only', () => {
  const engine = suite.engineWith({});

  it('grants admin for the right secret, in either header, and lets admin switch role', async () => {
    expect((await resolveSession(engine(), { 'x-service-admin-secret': ADMIN_SECRET })).role).toBe('admin');
    expect((await resolveSession(engine(), { 'x-service-access-key': ADMIN_SECRET })).role).toBe('admin');
    expect(await resolveSession(engine(), { 'x-service-admin-secret': ADMIN_SECRET, 'x-service-role': 'user', 'x-service-user-id': '3' })).toEqual({
      role: 'user',
      variables: { 'x-service-role': 'user', 'x-service-user-id': '3' },
    });
    await expectServed(engine(), { 'x-service-admin-secret': ADMIN_SECRET });
  });

  it('refuses a wrong admin secret with 401', async () => {
    const { query, graphql } = await expectRefused(engine(), { 'x-service-admin-secret': `${ADMIN_SECRET}x` }, 'access-denied', 401);
    expect(query.json.error).toBe('invalid x-service-admin-secret/x-service-access-key');
    expect(graphql.json.errors[0].message).toBe('invalid x-service-admin-secret/x-service-access-key');
    await expectRefused(engine(), { 'x-service-admin-secret': '' }, 'access-denied', 401);
  });

  it('refuses a request without credentials with 401', async () => {
    const { query } = await expectRefused(engine(), { 'x-service-role': 'user' }, 'access-denied', 401);
    expect(query.json.error).toBe('x-service-admin-secret/x-service-access-key required, but not found');
  });

  it('compares secrets in constant time whatever their lengths', () => {
    expect(secretMatches(ADMIN_SECRET, ADMIN_SECRET)).toBe(true);
    expect(secretMatches(ADMIN_SECRET.slice(0, -1), ADMIN_SECRET)).toBe(false);
    expect(secretMatches(`${ADMIN_SECRET}-and-much-longer`, ADMIN_SECRET)).toBe(false);
  });

  it('reports only the admin secret in the config API', async () => {
    const config = await engine().get('/v1alpha1/config');
    expect(config.json).toMatchObject({ is_admin_secret_set: true, is_auth_hook_set: false, is_jwt_set: false });
    expect(config.json.jwt ?? null).toBeNull();
  });
});

describe('admin secret with an unauthorized role', () => {
  const engine = suite.engineWith({ SERVICE_GRAPHQL_UNAUTHORIZED_ROLE: 'anonymous' });

  it('runs a request without credentials as the unauthorized role, whatever role it asks for', async () => {
    expect(await resolveSession(engine(), { 'x-service-role': 'admin', 'x-service-user-id': '1' })).toEqual({
      role: 'anonymous',
      variables: { 'x-service-role': 'anonymous', 'x-service-user-id': '1' },
    });
    await expectServed(engine(), {});
    const metadata = await engine().query({ type: 'export_metadata', args: {} }, {});
    expect(metadata.status).toBe(400);
    expect(metadata.json.error).toBe('restricted access : admin only');
  });

  it('still refuses a wrong admin secret', async () => {
    await expectRefused(engine(), { 'x-service-admin-secret': 'wrong' }, 'access-denied', 401);
  });
});

describe('no admin secret (development mode)', () => {
  const engine = suite.engineWith({ SERVICE_GRAPHQL_ADMIN_SECRET: '' });

  it('runs every request as admin unless it asks for a role', async () => {
    expect(await resolveSession(engine(), {})).toEqual({ role: 'admin', variables: { 'x-service-role': 'admin' } });
    expect(await resolveSession(engine(), { 'x-service-role': 'user', 'x-service-user-id': '9' })).toEqual({ role: 'user', variables: { 'x-service-role': 'user', 'x-service-user-id': '9' } });
    expect((await engine().get('/v1alpha1/config', {})).json).toMatchObject({ is_admin_secret_set: false, is_auth_hook_set: false, is_jwt_set: false });
  });
});
