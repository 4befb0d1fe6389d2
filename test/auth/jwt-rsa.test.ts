import { readFileSync } from 'node:fs';
import { createPrivateKey } from 'node:crypto';
import { UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { authSuite, jwtEnv } from './engines.js';
import { bearer, expectRefused, expectServed, NAMESPACE, resolveSession, rsaPair, serviceClaims, sign } from './fixtures.js';

const suite = authSuite();
const claims = { sub: '42', [NAMESPACE]: serviceClaims() };

describe('JWT mode with an RS256 PEM public key', () => {
  const pair = rsaPair();
  const engine = suite.engineWith(jwtEnv({ type: 'RS256', key: pair.publicPem }));

  it('serves a token signed with the private key', async () => {
    const headers = bearer(await sign(claims, pair.privateKey, { alg: 'RS256' }));
    await expectServed(engine(), headers);
    expect((await resolveSession(engine(), headers)).variables).toEqual({ 'x-service-role': 'user', 'x-service-user-id': '42' });
  });

  it('refuses an HS256 token signed with the public key as the shared secret', async () => {
    const forged = await sign(claims, new TextEncoder().encode(pair.publicPem), { alg: 'HS256' });
    const { query } = await expectRefused(engine(), bearer(forged), 'invalid-jwt', 400);
    expect(query.json.error).toMatch(/^Could not verify JWT: JWSError/);
  });

  it('refuses an unsigned token (alg: none)', async () => {
    await expectRefused(engine(), bearer(new UnsecuredJWT(claims).encode()), 'invalid-jwt', 400);
  });

  it('refuses a token signed by another RSA key, and one signed with another RS algorithm', async () => {
    await expectRefused(engine(), bearer(await sign(claims, rsaPair().privateKey, { alg: 'RS256' })), 'invalid-jwt', 400);
    await expectRefused(engine(), bearer(await sign(claims, pair.privateKey, { alg: 'RS512' })), 'invalid-jwt', 400);
  });
});

describe('JWT mode with an RS512 X509 certificate', () => {
  const certificate = readFileSync(new URL('keys/x509-test-cert.pem', import.meta.url), 'utf8');
  const privateKey = createPrivateKey(readFileSync(new URL('keys/x509-test-key.pem', import.meta.url), 'utf8'));
  const engine = suite.engineWith(jwtEnv({ type: 'RS512', key: certificate }));

  it('serves a token signed with the certificate\'s key', async () => {
    await expectServed(engine(), bearer(await sign(claims, privateKey, { alg: 'RS512' })));
  });

  it('refuses an HS512 token signed with the certificate as the shared secret', async () => {
    await expectRefused(engine(), bearer(await sign(claims, new TextEncoder().encode(certificate), { alg: 'HS512' })), 'invalid-jwt', 400);
  });
});

describe('JWT mode with an RS384 PKCS#1 public key', () => {
  const pair = rsaPair();
  const engine = suite.engineWith(jwtEnv({ type: 'RS384', key: pair.publicKey.export({ type: 'pkcs1', format: 'pem' }).toString() }));

  it('serves a token signed with the private key', async () => {
    await expectServed(engine(), bearer(await sign(claims, pair.privateKey, { alg: 'RS384' })));
  });
});
