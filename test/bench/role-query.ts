import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import pg from 'pg';
import { seedDataset } from './dataset.js';
import { median, startBenchEngine, type BenchDatabase, type LoadResult, type Target } from './harness.js';

/**
 * What the benchmarks of one feature's cost share (limits.bench.ts, metrics.bench.ts): the
 * by-primary-key query of a role, engines run as users run them (from the build, admin
 * secret, the role's JWT), one database each on the bench's PostgreSQL so that their
 * metadata stays apart, and each variant's figures beside the first one's.
 */
export const ROLE_QUERY = '{ track_by_pk(id: 12345) { id name milliseconds } }';
export const ROLE_BENCH_HEADER = ['engine', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs off'];

export const ROLE_TRACKING = [
  { type: 'track_table', args: { table: 'track' } },
  { type: 'create_select_permission', args: { table: 'track', role: 'user', permission: { columns: ['id', 'name', 'milliseconds'], filter: {} } } },
];

/** `count` seeded databases: the bench database and new ones named `<prefix>_...`, which `drop` removes. */
export async function seededDatabases(database: BenchDatabase, count: number, prefix: string): Promise<{ urls: string[]; drop(): Promise<void> }> {
  const names: string[] = [];
  const urls = [database.url];
  const drop = async () => {
    for (const name of names) await database.pool.query(`drop database if exists ${name} with (force)`).catch(() => undefined);
  };
  try {
    for (let i = 1; i < count; i++) {
      const name = `${prefix}_${randomBytes(3).toString('hex')}`;
      await database.pool.query(`create database ${name}`);
      names.push(name);
      urls.push(database.url.replace(/\/[^/]+$/, `/${name}`));
    }
    for (const url of urls) {
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      await seedDataset(pool);
      await pool.end();
    }
  } catch (error) {
    await drop();
    throw error;
  }
  return { urls, drop };
}

/** An engine from the build with the admin secret and JWT (HS256 with `jwtKey`), and `env` beside. */
export function startRoleEngine(options: { databaseUrl: string; natsUrl: string; port: number; adminSecret: string; jwtKey: string; env?: Record<string, string> }): Promise<Target> {
  return startBenchEngine({
    databaseUrl: options.databaseUrl,
    natsUrl: options.natsUrl,
    port: options.port,
    prefix: `bench${randomBytes(3).toString('hex')}`,
    adminSecret: options.adminSecret,
    env: {
      SERVICE_GRAPHQL_JWT_SECRET: JSON.stringify({ type: 'HS256', key: options.jwtKey }),
      // Several engines share the bench's PostgreSQL (max_connections 100).
      SERVICE_GRAPHQL_PG_CONNECTIONS: '10',
      ...options.env,
    },
  });
}

/** The headers of `role` (default `user`), user id 42, as the JWT of `jwtKey` says. */
export async function roleHeaders(jwtKey: string, role = 'user'): Promise<Record<string, string>> {
  const token = await new SignJWT({ 'https://service.io/jwt/claims': { 'x-service-allowed-roles': [role], 'x-service-default-role': role, 'x-service-user-id': '42' } })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(jwtKey));
  return { authorization: `Bearer ${token}` };
}

/** One row per variant (medians over the rounds), the first variant the baseline of the last column. */
export function compareToFirst(names: readonly string[], rounds: ReadonlyMap<string, LoadResult[]>): string[][] {
  const rps = (name: string) => median(rounds.get(name)!.map((result) => result.rps));
  const baseline = rps(names[0]!);
  return names.map((name, index) => {
    const results = rounds.get(name)!;
    const figure = rps(name);
    const change = index === 0 ? '' : `${(((figure - baseline) / baseline) * 100).toFixed(1)}%`;
    return [name, figure.toFixed(0), median(results.map((r) => r.p50)).toFixed(1), median(results.map((r) => r.p99)).toFixed(1), String(results.reduce((sum, r) => sum + r.errors, 0)), change];
  });
}
