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
import { createBenchDatabase, load, probe, runAloneIfMain, type LoadResult, type Target } from './harness.js';
import { compareToFirst, ROLE_BENCH_HEADER, ROLE_QUERY, ROLE_TRACKING, roleHeaders, seededDatabases, startRoleEngine } from './role-query.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const NATS_URL = process.env.SERVICE_GRAPHQL_NATS_URL ?? 'nats://127.0.0.1:4222';
const ADMIN_SECRET = 'bench-metrics-admin-secret';
const METRICS_SECRET = 'bench-metrics-scrape-secret';
const JWT_KEY = 'bench-metrics-jwt-key-of-32-characters-or-more';
const SCRAPE_EVERY_MS = 1_000;

export const METRICS_BENCH_TITLE = 'Prometheus metrics on the by-primary-key query of a role (JWT), one engine process each';
export const METRICS_BENCH_HEADER = ROLE_BENCH_HEADER;

async function track(engine: Target): Promise<void> {
  const answer = await probe(`${engine.url}/v1/query`, JSON.stringify({ type: 'bulk', args: ROLE_TRACKING }), { 'x-service-admin-secret': ADMIN_SECRET });
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
  const engines: Target[] = [];
  let drop = async (): Promise<void> => undefined;
  try {
    const databases = await seededDatabases(database, 2, 'metrics_on');
    drop = databases.drop;
    const start = (url: string, port: number, env: Record<string, string>) => startRoleEngine({ databaseUrl: url, natsUrl, port, adminSecret: ADMIN_SECRET, jwtKey: JWT_KEY, env });
    const off = await start(databases.urls[0]!, 5596, {});
    engines.push(off);
    const on = await start(databases.urls[1]!, 5597, { SERVICE_GRAPHQL_ENABLED_APIS: 'metadata,graphql,config,metrics', SERVICE_GRAPHQL_METRICS_SECRET: METRICS_SECRET });
    engines.push(on);
    await track(off);
    await track(on);

    const headers = await roleHeaders(JWT_KEY);
    const body = JSON.stringify({ query: ROLE_QUERY });
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
    return compareToFirst(variants.map(({ name }) => name), rounds);
  } finally {
    for (const engine of engines.reverse()) await engine.stop();
    await drop();
    await database.close();
  }
}

await runAloneIfMain(import.meta.url, METRICS_BENCH_TITLE, METRICS_BENCH_HEADER, () => runMetricsBench());
