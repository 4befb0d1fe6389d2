/**
 * Metrics benchmark (issue 17): what the Prometheus metrics cost the by-primary-key query
 * of a role, against the same engine build with them off (target: within 3% of
 * throughput). Not a test: `npm run build && npx tsx test/bench/metrics.bench.ts` runs it
 * alone; `npm run bench` runs it after the others.
 *
 * Two engine processes as users run them (from the build, admin secret set and sent, the
 * role's JWT, logs at the default level), each on a database of its own on one embedded
 * PostgreSQL (data in .data/bench-metrics-pg), so that their metadata stays apart:
 * - off: the default APIs;
 * - on: the metrics API enabled with its secret, scraped once a second during the load
 *   (Prometheus' default is every 15 s: a harder case).
 * Rounds alternate the two, each figure is the median. Settings: BENCH_SECONDS (5),
 * BENCH_ROUNDS (3), BENCH_CONNECTIONS (20), BENCH_METRICS_PG_PORT (5447).
 */
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import pg from 'pg';
import { seedDataset } from './dataset.js';
import { createBenchDatabase, load, median, probe, runAloneIfMain, startBenchEngine, type LoadResult, type Target } from './harness.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const NATS_URL = process.env.SERVICE_GRAPHQL_NATS_URL ?? 'nats://127.0.0.1:4222';
const ADMIN_SECRET = 'bench-metrics-admin-secret';
const METRICS_SECRET = 'bench-metrics-scrape-secret';
const JWT_KEY = 'bench-metrics-jwt-key-of-32-characters-or-more';
const QUERY = '{ track_by_pk(id: 12345) { id name milliseconds } }';
const SCRAPE_EVERY_MS = 1_000;

export const METRICS_BENCH_TITLE = 'Prometheus metrics on the by-primary-key query of a role (JWT), one engine process each';
export const METRICS_BENCH_HEADER = ['engine', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs off'];

const TRACKING = [
  { type: 'track_table', args: { table: 'track' } },
  { type: 'create_select_permission', args: { table: 'track', role: 'user', permission: { columns: ['id', 'name', 'milliseconds'], filter: {} } } },
];

async function track(engine: Target): Promise<void> {
  const answer = await probe(`${engine.url}/v1/query`, JSON.stringify({ type: 'bulk', args: TRACKING }), { 'x-service-admin-secret': ADMIN_SECRET });
  if (!Array.isArray(answer)) throw new Error(`metadata set-up failed: ${JSON.stringify(answer)}`);
}

async function scrape(engine: Target): Promise<string> {
  const response = await fetch(`${engine.url}/v1/metrics`, { headers: { authorization: `Bearer ${METRICS_SECRET}` } });
  if (response.status !== 200) throw new Error(`scrape answered ${response.status}: ${await response.text()}`);
  return response.text();
}

/** Successful queries the engine counted: proves the metrics are on and moving. */
function queriesCounted(text: string): number {
  const match = /^service_graphql_requests_total\{operation_type="query",response_status="success"\} (\S+)$/m.exec(text);
  return match === null ? 0 : Number(match[1]);
}

/** Load on `engine`, scraping it meanwhile when `scraped`. */
async function measure(engine: Target, scraped: boolean, body: string, headers: Record<string, string>, seconds: number): Promise<LoadResult> {
  const timer = scraped ? setInterval(() => void scrape(engine).catch(() => undefined), SCRAPE_EVERY_MS) : undefined;
  try {
    return await load(`${engine.url}/v1/graphql`, body, { seconds, connections: CONNECTIONS, headers });
  } finally {
    clearInterval(timer);
  }
}

export async function runMetricsBench(natsUrl = NATS_URL): Promise<string[][]> {
  const database = await createBenchDatabase({ dataDir: '.data/bench-metrics-pg', port: Number(process.env.BENCH_METRICS_PG_PORT ?? 5447) });
  const extra = `metrics_on_${randomBytes(3).toString('hex')}`;
  const engines: Target[] = [];
  try {
    await database.pool.query(`create database ${extra}`);
    const urls = [database.url, database.url.replace(/\/[^/]+$/, `/${extra}`)];
    for (const url of urls) {
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      await seedDataset(pool);
      await pool.end();
    }
    const start = (url: string, port: number, metrics: boolean) =>
      startBenchEngine({
        databaseUrl: url,
        natsUrl,
        port,
        prefix: `bench${randomBytes(3).toString('hex')}`,
        adminSecret: ADMIN_SECRET,
        env: {
          SERVICE_GRAPHQL_JWT_SECRET: JSON.stringify({ type: 'HS256', key: JWT_KEY }),
          SERVICE_GRAPHQL_PG_CONNECTIONS: '10',
          ...(metrics ? { SERVICE_GRAPHQL_ENABLED_APIS: 'metadata,graphql,config,metrics', SERVICE_GRAPHQL_METRICS_SECRET: METRICS_SECRET } : {}),
        },
      });
    const off = await start(urls[0]!, 5596, false);
    engines.push(off);
    const on = await start(urls[1]!, 5597, true);
    engines.push(on);
    await track(off);
    await track(on);

    const token = await new SignJWT({ 'https://service.io/jwt/claims': { 'x-service-allowed-roles': ['user'], 'x-service-default-role': 'user', 'x-service-user-id': '42' } })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('2h')
      .sign(new TextEncoder().encode(JWT_KEY));
    const headers = { authorization: `Bearer ${token}` };
    const body = JSON.stringify({ query: QUERY });
    const variants = [
      { name: 'off', engine: off, scraped: false },
      { name: 'on, scraped every second', engine: on, scraped: true },
    ];
    for (const { name, engine, scraped } of variants) {
      const answer = (await probe(`${engine.url}/v1/graphql`, body, headers)) as { data?: { track_by_pk?: unknown } };
      if (answer.data?.track_by_pk == null) throw new Error(`${name} cannot answer the query: ${JSON.stringify(answer)}`);
      await measure(engine, scraped, body, headers, 2);
    }
    if (queriesCounted(await scrape(on)) === 0) throw new Error('the engine with metrics on counted no query');
    const rounds = new Map<string, LoadResult[]>(variants.map(({ name }) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const { name, engine, scraped } of variants) rounds.get(name)!.push(await measure(engine, scraped, body, headers, SECONDS));
    }
    const rps = (name: string) => median(rounds.get(name)!.map((result) => result.rps));
    const baseline = rps('off');
    return variants.map(({ name }) => {
      const results = rounds.get(name)!;
      const figure = rps(name);
      const change = name === 'off' ? '' : `${(((figure - baseline) / baseline) * 100).toFixed(1)}%`;
      return [name, figure.toFixed(0), median(results.map((r) => r.p50)).toFixed(1), median(results.map((r) => r.p99)).toFixed(1), String(results.reduce((sum, r) => sum + r.errors, 0)), change];
    });
  } finally {
    for (const engine of engines.reverse()) await engine.stop();
    await database.pool.query(`drop database if exists ${extra} with (force)`).catch(() => undefined);
    await database.close();
  }
}

await runAloneIfMain(import.meta.url, METRICS_BENCH_TITLE, METRICS_BENCH_HEADER, () => runMetricsBench());
