import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Bus } from '../../src/bus/bus.js';
import { ConfigError } from '../../src/config/load.js';
import { createLogger } from '../../src/log/logger.js';
import type { MonitorEvent } from '../../src/monitor/messages.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, testPrefix, type TestEngine } from '../harness/engine.js';
import { inject } from 'vitest';
import { ADMIN_SECRET, bearer, eventually, expectRefused, expectServed, NAMESPACE, resolveError, rsaPair, serviceClaims, sign, startJwksServer, TYPENAME, type JwksServer } from './fixtures.js';

const keyA = rsaPair();
const keyB = rsaPair();
const claims = { sub: '42', [NAMESPACE]: serviceClaims() };
const tokenA = () => sign(claims, keyA.privateKey, { alg: 'RS256', kid: 'a' });
const tokenB = () => sign(claims, keyB.privateKey, { alg: 'RS256', kid: 'b' });

let database: TestDatabase;
let jwks: JwksServer | undefined;
let engine: TestEngine | undefined;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterEach(async () => {
  await engine?.stop();
  await jwks?.close();
  engine = undefined;
  jwks = undefined;
});
afterAll(async () => {
  await database.drop();
});

const startWith = (server: JwksServer, prefix?: string) =>
  startTestEngine({ databaseUrl: database.url, prefix, env: { SERVICE_GRAPHQL_ADMIN_SECRET: ADMIN_SECRET, SERVICE_GRAPHQL_JWT_SECRET: JSON.stringify({ jwk_url: `${server.url}/jwks.json` }) } });

const served = async (token: string) => (await engine!.graphql(TYPENAME, bearer(token))).json.data !== undefined;

function monitorEvents(testEngine: TestEngine): MonitorEvent[] {
  const events: MonitorEvent[] = [];
  testEngine.engine.bus.listen<MonitorEvent>(testEngine.engine.bus.subjects.monitorEvent('auth.jwk'), (event) => void events.push(event));
  return events;
}

describe('JWT mode with a jwk_url', () => {
  it('verifies tokens with the published keys, and refuses EC and unknown keys', async () => {
    const ec = { kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0', kid: 'ec' };
    jwks = await startJwksServer([keyA.jwk('a'), ec]);
    engine = await startWith(jwks);
    await expectServed(engine, bearer(await tokenA()));
    await expectServed(engine, bearer(await sign(claims, keyA.privateKey, { alg: 'RS256' })));
    await expectRefused(engine, bearer(await tokenB()), 'invalid-jwt', 400);
    expect((await engine.get('/v1alpha1/config')).json).toMatchObject({ is_jwt_set: true, jwt: { claims_namespace: NAMESPACE, claims_format: 'json' } });
  });

  it('picks up a rotation after Cache-Control max-age, not before', async () => {
    jwks = await startJwksServer([keyA.jwk('a')], { 'cache-control': 'public, max-age=2' });
    const startedAt = Date.now();
    engine = await startWith(jwks);
    jwks.keys = [keyB.jwk('b')];
    expect(await served(await tokenB())).toBe(false);
    expect(await served(await tokenA())).toBe(true);
    expect(jwks.fetches).toBe(1);

    const b = await tokenB();
    expect(await eventually(() => served(b), Boolean, 6000)).toBe(true);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(2000);
    expect(jwks.fetches).toBe(2);
    const { query } = await expectRefused(engine, bearer(await tokenA()), 'invalid-jwt', 400);
    expect(query.json.error).toMatch(/^Could not verify JWT: JWSError/);
  });

  it('refreshes at the time of Expires when there is no Cache-Control', async () => {
    jwks = await startJwksServer([keyA.jwk('a')], { expires: new Date(Date.now() + 2000).toUTCString() });
    engine = await startWith(jwks);
    jwks.keys = [keyB.jwk('b')];
    const b = await tokenB();
    expect(await served(b)).toBe(false);
    expect(await eventually(() => served(b), Boolean, 6000)).toBe(true);
  });

  it('never refreshes when the first response has neither a max-age nor a usable Expires', async () => {
    jwks = await startJwksServer([keyA.jwk('a')], { 'cache-control': 'no-cache', expires: new Date(Date.now() + 1000).toUTCString() });
    engine = await startWith(jwks);
    jwks.keys = [keyB.jwk('b')];
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(jwks.fetches).toBe(1);
    expect(await served(await tokenA())).toBe(true);
    expect(await served(await tokenB())).toBe(false);
  });

  it('does not start when the JWKS server is down', async () => {
    jwks = await startJwksServer([keyA.jwk('a')]);
    await jwks.close();
    const prefix = testPrefix();
    const bus = await Bus.connect({ servers: inject('natsUrl'), prefix, name: 'jwk-test', log: createLogger('silent') });
    const events: MonitorEvent[] = [];
    bus.listen<MonitorEvent>(bus.subjects.monitorEvent('auth.jwk'), (event) => void events.push(event));
    await bus.flush();
    try {
      await expect(startWith(jwks, prefix)).rejects.toThrow(ConfigError);
      await expect(startWith(jwks, prefix)).rejects.toThrow(/jwk_url: could not load the JWK set/);
      await eventually(async () => events.length, (n) => n > 0, 2000);
      expect(events[0]!.detail).toMatchObject({ event: 'fetch_failed', at_start: true });
    } finally {
      await bus.close();
    }
  });

  it('does not start when the JWKS answers an error status or a set without RSA keys', async () => {
    jwks = await startJwksServer([keyA.jwk('a')]);
    jwks.status = 500;
    await expect(startWith(jwks)).rejects.toThrow(/Non-2xx response/);
    jwks.status = 200;
    jwks.keys = [{ kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' }];
    await expect(startWith(jwks)).rejects.toThrow(/no usable RSA signing key.*EC keys are not supported/);
  });

  it('keeps the last good keys when a refresh fails, and reports it on the monitor subject', async () => {
    jwks = await startJwksServer([keyA.jwk('a')], { 'cache-control': 'max-age=1' });
    engine = await startWith(jwks);
    const events = monitorEvents(engine);
    await engine.engine.bus.flush();
    await jwks.close();
    const failed = await eventually(async () => events.filter((event) => event.detail.event === 'refresh_failed'), (found) => found.length > 0, 5000);
    expect(failed[0]).toMatchObject({ kind: 'auth.jwk', actor: 'auth', detail: { kept_kids: ['a'], next_refresh_ms: 60_000 } });
    await expectServed(engine, bearer(await tokenA()));
    expect((await resolveError(engine, bearer(await tokenB()))).code).toBe('invalid-jwt');
  });
});
