import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateJwtConfig } from '../../actors/auth/jwt/config.js';
import { validateAuthConfig } from '../../actors/auth/validate.js';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine } from '../harness/engine.js';
import { ADMIN_SECRET, HS_SECRET, rsaPair } from './fixtures.js';

const configWith = (env: Record<string, string>) => loadConfig(new Map(), { SERVICE_GRAPHQL_ADMIN_SECRET: ADMIN_SECRET, ...env });
const jwtConfig = (jwt: Record<string, unknown>) => configWith({ SERVICE_GRAPHQL_JWT_SECRET: JSON.stringify(jwt) });

function refusal(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

const pem = rsaPair().publicPem;
const ecPem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
const shortRsaPem = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
const privatePem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

describe('JWT config validation at start-up', () => {
  it('accepts every key type and option of the spec', () => {
    const settings = validateJwtConfig(
      jwtConfig({
        type: 'HS256',
        key: HS_SECRET,
        claims_namespace: 'https://example.com/claims',
        claims_format: 'stringified_json',
        audience: 'app',
        issuer: 'iss',
        allowed_skew: 5,
        header: { type: 'cookie', name: 'jwt' },
      }),
    );
    expect(settings).toMatchObject({ key: { kind: 'key', algorithm: 'HS256' }, audience: ['app'], issuer: 'iss', allowedSkewSeconds: 5, header: { type: 'Cookie', name: 'jwt' } });
    expect(settings?.claims).toEqual({ kind: 'namespace', namespace: 'https://example.com/claims', format: 'stringified_json' });
    expect(validateJwtConfig(jwtConfig({ type: 'RS256', key: pem }))?.key).toMatchObject({ kind: 'key', algorithm: 'RS256' });
    expect(validateJwtConfig(jwtConfig({ jwk_url: 'https://idp.example/.well-known/jwks.json' }))?.key).toEqual({ kind: 'jwk_url', url: 'https://idp.example/.well-known/jwks.json' });
    expect(validateJwtConfig(configWith({}))).toBeUndefined();
  });

  it('uses the default claims namespace when none is given', () => {
    expect(validateJwtConfig(jwtConfig({ type: 'HS256', key: HS_SECRET }))?.claims).toEqual({ kind: 'namespace', namespace: 'https://service.io/jwt/claims', format: 'json' });
  });

  it.each([
    ['an unknown key', { type: 'HS256', key: HS_SECRET, claims_namspace: 'x' }, 'claims_namspace'],
    ['key and jwk_url together', { type: 'HS256', key: HS_SECRET, jwk_url: 'https://x.example' }, 'key, jwk_url both cannot be present'],
    ['neither key nor jwk_url', { type: 'HS256' }, 'key and jwk_url both cannot be empty'],
    ['a key without type', { key: HS_SECRET }, 'type: required'],
    ['an EC key type', { type: 'ES256', key: ecPem }, 'EC public keys are unsupported'],
    ['an EC public key given as RS256', { type: 'RS256', key: ecPem }, 'key: EC public keys are not supported'],
    ['an unsupported key type', { type: 'Ed25519', key: 'x' }, 'Key type: Ed25519 is not supported'],
    ['an HS256 key shorter than 32 characters', { type: 'HS256', key: 'k'.repeat(31) }, 'should be atleast 32 characters'],
    ['an HS384 key shorter than 48 characters', { type: 'HS384', key: 'k'.repeat(47) }, 'should be atleast 48 characters'],
    ['an HS512 key shorter than 64 characters', { type: 'HS512', key: 'k'.repeat(63) }, 'should be atleast 64 characters'],
    ['an RS key that is not PEM', { type: 'RS256', key: 'not a key' }, 'key: not a PEM public key or X509 certificate'],
    ['an RSA private key', { type: 'RS256', key: privatePem }, 'key: a private key was given'],
    ['an RSA key shorter than 2048 bits', { type: 'RS256', key: shortRsaPem }, 'at least 2048 bits'],
    ['a jwk_url that is not a URL', { jwk_url: 'not a url' }, 'jwk_url'],
    ['a jwk_url that is not http(s)', { jwk_url: 'file:///etc/jwks.json' }, 'jwk_url'],
    ['claims_namespace and claims_namespace_path together', { type: 'HS256', key: HS_SECRET, claims_namespace: 'a', claims_namespace_path: '$.a' }, 'claims_namespace and claims_namespace_path both cannot be set'],
    ['a claims_namespace_path that is not a JSON path', { type: 'HS256', key: HS_SECRET, claims_namespace_path: '$.a[' }, 'claims_namespace_path: invalid JSON path'],
    ['an unknown claims_format', { type: 'HS256', key: HS_SECRET, claims_format: 'xml' }, 'claims_format'],
    ['an audience that is not a string or list', { type: 'HS256', key: HS_SECRET, audience: 5 }, 'audience'],
    ['an empty audience list', { type: 'HS256', key: HS_SECRET, audience: [] }, 'audience'],
    ['an issuer that is not a string', { type: 'HS256', key: HS_SECRET, issuer: 1 }, 'issuer'],
    ['a negative allowed_skew', { type: 'HS256', key: HS_SECRET, allowed_skew: -1 }, 'allowed_skew'],
    ['an unknown header type', { type: 'HS256', key: HS_SECRET, header: { type: 'X-Token' } }, 'header.type'],
    ['a Cookie header without a name', { type: 'HS256', key: HS_SECRET, header: { type: 'Cookie' } }, 'header.name'],
    ['a claims_map without allowed roles', { type: 'HS256', key: HS_SECRET, claims_map: { 'x-service-default-role': 'user' } }, 'x-service-allowed-roles is expected but not found'],
    ['a claims_map without a default role', { type: 'HS256', key: HS_SECRET, claims_map: { 'x-service-allowed-roles': ['user'] } }, 'x-service-default-role is expected but not found'],
    ['a claims_map allowed-roles literal that is not a list', { type: 'HS256', key: HS_SECRET, claims_map: { 'x-service-allowed-roles': 'user', 'x-service-default-role': 'user' } }, 'claims_map.x-service-allowed-roles'],
    ['a claims_map path that does not parse', { type: 'HS256', key: HS_SECRET, claims_map: { 'x-service-allowed-roles': { path: '$..[' }, 'x-service-default-role': 'user' } }, 'claims_map.x-service-allowed-roles.path'],
    ['a claims_map name that is not a session variable', { type: 'HS256', key: HS_SECRET, claims_map: { 'x-service-allowed-roles': ['u'], 'x-service-default-role': 'u', user_id: { path: '$.sub' } } }, 'claims_map.user_id'],
  ])('refuses %s, naming the key', (_case, jwt, expected) => {
    const error = refusal(() => validateJwtConfig(jwtConfig(jwt)));
    expect(error.message).toContain('SERVICE_GRAPHQL_JWT_SECRET');
    expect(error.message).toContain(expected);
  });

  it('refuses an unauthorized role without an admin secret, or with an auth webhook', () => {
    expect(refusal(() => validateAuthConfig(loadConfig(new Map(), { SERVICE_GRAPHQL_UNAUTHORIZED_ROLE: 'anonymous' }))).message).toContain('SERVICE_GRAPHQL_ADMIN_SECRET');
    const withHook = configWith({ SERVICE_GRAPHQL_UNAUTHORIZED_ROLE: 'anonymous', SERVICE_GRAPHQL_AUTH_HOOK: 'http://127.0.0.1:1/hook' });
    expect(refusal(() => validateAuthConfig(withHook)).message).toContain('SERVICE_GRAPHQL_AUTH_HOOK');
  });

  it('refuses JWT without an admin secret, and JWT with an auth webhook', () => {
    refusal(() => loadConfig(new Map(), { SERVICE_GRAPHQL_JWT_SECRET: JSON.stringify({ type: 'HS256', key: HS_SECRET }) }));
    refusal(() => configWith({ SERVICE_GRAPHQL_JWT_SECRET: JSON.stringify({ type: 'HS256', key: HS_SECRET }), SERVICE_GRAPHQL_AUTH_HOOK: 'http://127.0.0.1:1/hook' }));
  });
});

describe('an engine with an invalid JWT config', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  it('does not start, and says which key is wrong', async () => {
    const started = startTestEngine({ databaseUrl: database.url, env: { SERVICE_GRAPHQL_ADMIN_SECRET: ADMIN_SECRET, SERVICE_GRAPHQL_JWT_SECRET: JSON.stringify({ type: 'ES256', key: ecPem }) } });
    await expect(started).rejects.toThrow(ConfigError);
    await expect(started).rejects.toThrow(/SERVICE_GRAPHQL_JWT_SECRET.*type: Key type: ES256 is not supported/);
  });
});
