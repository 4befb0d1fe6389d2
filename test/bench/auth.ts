import { randomBytes } from 'node:crypto';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import { authActor } from '../../actors/auth/actor.js';
import { createJwtAuthenticator } from '../../actors/auth/jwt/authenticate.js';
import { parseJwtSettings } from '../../actors/auth/jwt/config.js';
import { staticKeySource } from '../../actors/auth/jwt/keys.js';
import { startActor } from '../../src/actor/runtime.js';
import { Bus } from '../../src/bus/bus.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log/logger.js';

/**
 * The auth path alone: verifications per second for HS256 and RS256, with and without
 * the token cache, and what `auth.resolve` adds when it crosses NATS.
 */
const CLAIMS = { 'https://service.io/jwt/claims': { 'x-service-allowed-roles': ['user'], 'x-service-default-role': 'user', 'x-service-user-id': '42' } };
const ITERATIONS = Number(process.env.BENCH_AUTH_ITERATIONS ?? 20_000);

async function verificationsPerSecond(jwtConfig: Record<string, unknown>, token: string, cache: boolean): Promise<number> {
  const settings = parseJwtSettings(jwtConfig);
  const authenticator = createJwtAuthenticator(settings, staticKeySource(settings.key), { cache: cache ? undefined : false });
  const headers = { authorization: `Bearer ${token}` };
  await authenticator.sessionFor(headers);
  const started = performance.now();
  for (let i = 0; i < ITERATIONS; i++) await authenticator.sessionFor(headers);
  return ITERATIONS / ((performance.now() - started) / 1000);
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Round trips of auth.resolve through the NATS server, against a direct call of the same actor's handler. */
async function busLatency(natsUrl: string, hsConfig: Record<string, unknown>, token: string): Promise<{ p50: number; p99: number; directP50: number }> {
  const log = createLogger('silent');
  const prefix = `bench${randomBytes(3).toString('hex')}`;
  const config = loadConfig(new Map(), { SERVICE_GRAPHQL_ADMIN_SECRET: 'bench-secret', SERVICE_GRAPHQL_JWT_SECRET: JSON.stringify(hsConfig), SERVICE_GRAPHQL_NATS_PREFIX: prefix });
  const serverBus = await Bus.connect({ servers: natsUrl, prefix, name: 'bench-auth', log });
  const clientBus = await Bus.connect({ servers: natsUrl, prefix, name: 'bench-client', log });
  const localBus = await Bus.connect({ servers: natsUrl, prefix: `${prefix}l`, name: 'bench-local', log, localDelivery: true });
  const actor = await startActor(authActor, { bus: serverBus, config, log, instance: 'bench' });
  const localActor = await startActor(authActor, { bus: localBus, config: { ...config, natsPrefix: `${prefix}l` }, log, instance: 'bench-local' });
  await serverBus.flush();
  const message = { headers: { authorization: `Bearer ${token}` } };
  const time = async (bus: Bus): Promise<number[]> => {
    const samples: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const started = performance.now();
      await bus.request(bus.subjects.authResolve, message, { requestId: 'b', timeoutMs: 5000 });
      samples.push(performance.now() - started);
    }
    return samples.slice(500).sort((a, b) => a - b);
  };
  const overNats = await time(clientBus);
  const direct = await time(localBus);
  await actor.stop();
  await localActor.stop();
  await Promise.all([serverBus.close(), clientBus.close(), localBus.close()]);
  return { p50: percentile(overNats, 0.5), p99: percentile(overNats, 0.99), directP50: percentile(direct, 0.5) };
}

export async function runAuthBench(natsUrl: string): Promise<string[][]> {
  const hsKey = randomBytes(32).toString('hex');
  const hsConfig = { type: 'HS256', key: hsKey };
  const hsToken = await new SignJWT(CLAIMS).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(hsKey));
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const rsConfig = { type: 'RS256', key: await exportSPKI(publicKey) };
  const rsToken = await new SignJWT(CLAIMS).setProtectedHeader({ alg: 'RS256' }).setExpirationTime('1h').sign(privateKey);

  const rows: string[][] = [];
  for (const [name, config, token] of [['HS256', hsConfig, hsToken], ['RS256', rsConfig, rsToken]] as const) {
    rows.push([`${name}, no cache`, `${(await verificationsPerSecond(config, token, false)).toFixed(0)} verifications/s`]);
    rows.push([`${name}, token cache`, `${(await verificationsPerSecond(config, token, true)).toFixed(0)} verifications/s`]);
  }
  const latency = await busLatency(natsUrl, hsConfig, hsToken);
  rows.push(['auth.resolve over NATS (HS256, cached)', `p50 ${latency.p50.toFixed(3)} ms, p99 ${latency.p99.toFixed(3)} ms`]);
  rows.push(['auth.resolve in-process (local delivery)', `p50 ${latency.directP50.toFixed(3)} ms`]);
  rows.push(['added by crossing NATS at p50', `${(latency.p50 - latency.directP50).toFixed(3)} ms`]);
  return rows;
}
