/**
 * Limits benchmark (issue 14): what the API limits and the allowlist cost the
 * by-primary-key query of a role, against the same engine build with them off (target:
 * within 3% of throughput). Not a test: `npm run build && npx tsx test/bench/limits.bench.ts`
 * runs it alone; `npm run bench` runs it after the others.
 *
 * Two engine processes as users run them (from the build, admin secret set and sent, the
 * role's JWT, logs at the default level), each on a database of its own on one embedded
 * PostgreSQL (data in .data/bench-limits-pg), so that their metadata stays apart:
 * - off: no API limits, allowlist off;
 * - checks: depth, node, batch and time limits set for the role, the allowlist on with
 *   the query in a global collection;
 * - checks + rate limit: the same, plus a rate limit per user id (its counts in JetStream
 *   KV, three KV operations a request), high enough never to refuse.
 * Rounds alternate the three, each figure is the median. Settings: BENCH_SECONDS (5),
 * BENCH_ROUNDS (3), BENCH_CONNECTIONS (20), BENCH_LIMITS_PG_PORT (5444).
 */
import { createBenchDatabase, load, probe, runAloneIfMain, type LoadResult, type Target } from './harness.js';
import { compareToFirst, ROLE_BENCH_HEADER, ROLE_QUERY as QUERY, ROLE_TRACKING as TRACKING, roleHeaders, seededDatabases, startRoleEngine } from './role-query.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const NATS_URL = process.env.SERVICE_GRAPHQL_NATS_URL ?? 'nats://127.0.0.1:4222';
const ADMIN_SECRET = 'bench-limits-admin-secret';
const JWT_KEY = 'bench-limits-jwt-key-of-32-characters-or-more';

export const LIMITS_BENCH_TITLE = 'API limits and allowlist on the by-primary-key query of a role (JWT), one engine process each';
export const LIMITS_BENCH_HEADER = ROLE_BENCH_HEADER;

const LIMITS = {
  depth_limit: { global: 5 },
  node_limit: { global: 20 },
  batch_limit: { global: 10 },
  time_limit: { global: 10 },
};
const RATE_LIMIT = { rate_limit: { global: { max_reqs_per_min: 100_000_000, unique_params: ['x-service-user-id'] } } };

interface Variant {
  name: string;
  engine: Target;
}

async function metadata(engine: Target, operations: unknown[]): Promise<void> {
  const answer = await probe(`${engine.url}/v1/query`, JSON.stringify({ type: 'bulk', args: operations }), { 'x-service-admin-secret': ADMIN_SECRET });
  if (!Array.isArray(answer)) throw new Error(`metadata set-up failed: ${JSON.stringify(answer)}`);
}

const ALLOWLIST = [
  { type: 'create_query_collection', args: { name: 'bench', definition: { queries: [{ name: 'by_pk', query: QUERY }] } } },
  { type: 'add_collection_to_allowlist', args: { collection: 'bench' } },
];

export async function runLimitsBench(natsUrl = NATS_URL): Promise<string[][]> {
  const database = await createBenchDatabase({ dataDir: '.data/bench-limits-pg', port: Number(process.env.BENCH_LIMITS_PG_PORT ?? 5444) });
  const engines: Target[] = [];
  let drop = async (): Promise<void> => undefined;
  try {
    const databases = await seededDatabases(database, 3, 'limits');
    drop = databases.drop;
    const urls = databases.urls;
    const start = (url: string, port: number, allowlist: boolean) =>
      startRoleEngine({ databaseUrl: url, natsUrl, port, adminSecret: ADMIN_SECRET, jwtKey: JWT_KEY, env: allowlist ? { SERVICE_GRAPHQL_ENABLE_ALLOWLIST: 'true' } : {} });
    const off = await start(urls[0]!, 5580, false);
    engines.push(off);
    const checks = await start(urls[1]!, 5581, true);
    engines.push(checks);
    const rated = await start(urls[2]!, 5582, true);
    engines.push(rated);
    await metadata(off, TRACKING);
    await metadata(checks, [...TRACKING, ...ALLOWLIST, { type: 'set_api_limits', args: LIMITS }]);
    await metadata(rated, [...TRACKING, ...ALLOWLIST, { type: 'set_api_limits', args: { ...LIMITS, ...RATE_LIMIT } }]);

    const headers = await roleHeaders(JWT_KEY);
    const body = JSON.stringify({ query: QUERY });
    const variants: Variant[] = [
      { name: 'off', engine: off },
      { name: 'checks (depth, node, batch, time, allowlist)', engine: checks },
      { name: 'checks + rate limit (JetStream KV)', engine: rated },
    ];
    for (const { name, engine } of variants) {
      const answer = (await probe(`${engine.url}/v1/graphql`, body, headers)) as { data?: { track_by_pk?: unknown }; errors?: unknown };
      if (answer.data?.track_by_pk == null) throw new Error(`${name} cannot answer the query: ${JSON.stringify(answer)}`);
      // The refusal proves the checks are on: a query outside the allowlist.
      if (name !== 'off') {
        const refused = (await probe(`${engine.url}/v1/graphql`, JSON.stringify({ query: '{ track_by_pk(id: 1) { id } }' }), headers)) as { errors?: { message: string }[] };
        if (refused.errors?.[0]?.message !== 'query is not allowed') throw new Error(`${name} does not check its allowlist: ${JSON.stringify(refused)}`);
      }
      await load(`${engine.url}/v1/graphql`, body, { seconds: 2, connections: CONNECTIONS, headers });
    }
    const rounds = new Map<string, LoadResult[]>(variants.map(({ name }) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const { name, engine } of variants) rounds.get(name)!.push(await load(`${engine.url}/v1/graphql`, body, { seconds: SECONDS, connections: CONNECTIONS, headers }));
    }
    return compareToFirst(variants.map(({ name }) => name), rounds);
  } finally {
    for (const engine of engines.reverse()) await engine.stop();
    await drop();
    await database.close();
  }
}

await runAloneIfMain(import.meta.url, LIMITS_BENCH_TITLE, LIMITS_BENCH_HEADER, () => runLimitsBench());
