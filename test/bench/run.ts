import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { startEmbeddedPostgres } from '../../src/pg/embedded.js';
import { createPool } from '../../src/pg/pool.js';
import { runAuthBench } from './auth.js';
import { LIMITS_BENCH_HEADER, LIMITS_BENCH_TITLE, runLimitsBench } from './limits.bench.js';
import { TRACING_BENCH_HEADER, TRACING_BENCH_TITLE, runTracingBench } from './tracing.bench.js';
import { METRICS_BENCH_HEADER, METRICS_BENCH_TITLE, runMetricsBench } from './metrics.bench.js';
import { seedDataset } from './dataset.js';
import { load, median, printTable, probe, processTreeCpuSeconds, residentMiB, startBenchEngine, startTarget, type LoadResult, type Target } from './harness.js';
import { QUERIES, QUERY_TRACKING } from './queries.js';
import { REMOTE_BENCH_HEADER, REMOTE_BENCH_TITLE, runRemoteBench } from './remote.bench.js';
import { MUTATION_TRACKING, prepareMutationTable } from './mutations.js';
import { measureSchemaBuild } from './schema-build.js';
import { METADATA_SCALE_BENCH_HEADER, METADATA_SCALE_BENCH_TITLE, runMetadataScaleBench } from './metadata-scale.bench.js';
import { runSubscriptionsBench, SUBSCRIPTIONS_BENCH_HEADER, SUBSCRIPTIONS_BENCH_TITLE } from './subscriptions.bench.js';
import { runTriggersBench, TRIGGERS_BENCH_HEADER, TRIGGERS_BENCH_TITLE } from './triggers.bench.js';

/**
 * `npm run bench`: this engine, PostGraphile v5 and the hand-written SQL limit, measured
 * in the same run on the same database, query by query. Figures are requests/s, p50 and
 * p99 latency (ms), each target's CPU time per request (its process and children, from
 * /proc), and the engine's ratios to both peers. Last come the remote schema
 * benchmark (remote.bench.ts), the event trigger one (triggers.bench.ts), the
 * subscriptions one (subscriptions.bench.ts), the limits one (limits.bench.ts) and the
 * tracing one (tracing.bench.ts), the metrics one (metrics.bench.ts) and metadata at scale
 * (metadata-scale.bench.ts), each with its own database and engine; each also runs alone
 * (`npx tsx test/bench/<name>.bench.ts` after `npm run build`).
 * The engine runs as users run it: from its build, the admin secret set and sent, logs at
 * the default level. The machine's load average is printed beside the figures.
 * Settings: BENCH_SECONDS per round (default 5), BENCH_ROUNDS (default 3), BENCH_CONNECTIONS
 * (default 20), BENCH_QUERIES_ONLY=1 (the query table only).
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const ENGINE_PORT = 5550;
const POSTGRAPHILE_PORT = 5551;
const HANDWRITTEN_PORT = 5552;
// The engine under test starts a nats-server here itself if none answers.
const NATS_URL = process.env.SERVICE_GRAPHQL_NATS_URL ?? 'nats://127.0.0.1:4222';

/** The hand-written statement with every value a parameter (queries.ts `parameterized`), where it differs. */
const PARAMETERIZED = 'hand-written SQL, all values parameters';

/** The engine runs as users run it: the admin secret set and sent (with logs at the default level, harness.ts). */
const ADMIN_SECRET = 'bench-admin-secret';
const ADMIN_HEADERS = { 'x-service-admin-secret': ADMIN_SECRET };
/** BENCH_QUERIES_ONLY=1: the query table only, without the sections after it. */
const QUERIES_ONLY = process.env.BENCH_QUERIES_ONLY === '1';

async function main(): Promise<void> {
  const database = await startEmbeddedPostgres({ dataDir: '.data/bench-pg', port: Number(process.env.BENCH_PG_PORT ?? 5441) });
  const pool = createPool(database.url, { max: 2, applicationName: 'bench' });
  const targets: Target[] = [];
  try {
    process.stdout.write('seeding the data set...\n');
    await seedDataset(pool);
    await prepareMutationTable(pool);
    const engine = await startBenchEngine({ databaseUrl: database.url, natsUrl: NATS_URL, port: ENGINE_PORT, prefix: `bench${randomBytes(3).toString('hex')}`, adminSecret: ADMIN_SECRET });
    targets.push(engine);
    await probe(`${engine.url}/v1/query`, JSON.stringify({ type: 'clear_metadata', args: {} }), ADMIN_HEADERS);
    const tracked = await probe(`${engine.url}/v1/query`, JSON.stringify({ type: 'bulk', args: [...QUERY_TRACKING, ...MUTATION_TRACKING] }), ADMIN_HEADERS);
    if (!Array.isArray(tracked)) throw new Error(`tracking failed: ${JSON.stringify(tracked)}`);
    const postgraphile = await startTarget('test/bench/peers/node_modules/.bin/node', ['test/bench/peers/postgraphile.mjs', database.url, String(POSTGRAPHILE_PORT)], {}, /listening/, () => `http://127.0.0.1:${POSTGRAPHILE_PORT}/graphql`);
    targets.push(postgraphile);
    const handwritten = await startTarget(process.execPath, ['--import', 'tsx', 'test/bench/peers/handwritten.ts', database.url, String(HANDWRITTEN_PORT)], {}, /listening/, () => `http://127.0.0.1:${HANDWRITTEN_PORT}`);
    targets.push(handwritten);

    const rows: string[][] = [];
    let peakRss = 0;
    const loadBefore = loadAverage();
    for (const [index, query] of QUERIES.entries()) {
      const variables = query.variables === undefined ? {} : { variables: query.variables };
      const runs: [string, string, string, Record<string, string>, Target][] = [
        ['engine', `${engine.url}/v1/graphql`, JSON.stringify({ query: query.engine, ...variables }), ADMIN_HEADERS, engine],
        ['postgraphile', postgraphile.url, JSON.stringify({ query: query.postgraphile, ...variables }), {}, postgraphile],
        ['hand-written SQL', `${handwritten.url}/${index}`, '{}', {}, handwritten],
      ];
      if (query.parameterized !== undefined) runs.push([PARAMETERIZED, `${handwritten.url}/${index}/parameterized`, '{}', {}, handwritten]);
      for (const [name, url, body, headers] of runs) {
        const answer = (await probe(url, body, headers)) as { errors?: unknown };
        if (answer.errors !== undefined) throw new Error(`${name} cannot answer "${query.name}": ${JSON.stringify(answer.errors)}`);
        await load(url, body, { seconds: 2, connections: CONNECTIONS, headers });
      }
      // Rounds alternate the targets, so that a noisy moment of the machine does not fall
      // on one target only; each figure is the median of its rounds.
      const rounds = new Map<string, Measured[]>(runs.map(([name]) => [name, []]));
      for (let round = 0; round < ROUNDS; round++) {
        for (const [name, url, body, headers, target] of runs) {
          const sampler = name === 'engine' ? sampleRss(engine.child.pid!) : undefined;
          const cpuBefore = await processTreeCpuSeconds(target.child.pid!);
          const result = await load(url, body, { seconds: SECONDS, connections: CONNECTIONS, headers });
          const cpuAfter = await processTreeCpuSeconds(target.child.pid!);
          const cpuUs = cpuBefore === null || cpuAfter === null || result.rps === 0 ? null : ((cpuAfter - cpuBefore) * 1e6) / (result.rps * SECONDS);
          rounds.get(name)!.push({ ...result, cpuUs });
          if (sampler !== undefined) peakRss = Math.max(peakRss, await sampler.stop());
        }
      }
      const results = new Map([...rounds].map(([name, list]) => [name, medianResult(list)]));
      const ours = results.get('engine')!;
      for (const [name] of runs) {
        const result = results.get(name)!;
        rows.push([query.name, name, result.rps.toFixed(0), result.p50.toFixed(1), result.p99.toFixed(1), result.cpuUs === null ? 'n/a' : result.cpuUs.toFixed(1), String(result.errors)]);
      }
      rows.push([query.name, 'engine / postgraphile', ratio(ours.rps, results.get('postgraphile')!.rps), '', '', '', '']);
      rows.push([query.name, 'engine / hand-written', ratio(ours.rps, results.get('hand-written SQL')!.rps), '', '', '', '']);
      const parameterized = results.get(PARAMETERIZED);
      if (parameterized !== undefined) rows.push([query.name, `engine / ${PARAMETERIZED}`, ratio(ours.rps, parameterized.rps), '', '', '', '']);
    }
    process.stdout.write(`machine load before the rounds: ${loadBefore}; after: ${loadAverage()}\n`);
    printTable(['query', 'target', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'errors'], rows);
    process.stdout.write(`\nengine resident memory under load: peak ${peakRss} MiB\n`);
    if (QUERIES_ONLY) return;
    const build = await measureSchemaBuild(pool, database.url, 500);
    process.stdout.write(`${build.tables} tracked tables: checked, built and the first admin request served in ${build.buildMs.toFixed(0)} ms, ${build.roleMs.toFixed(0)} ms more for the first request of a role with permissions\n`);

    process.stdout.write('\nauth path\n');
    printTable(['case', 'figure'], await runAuthBench(NATS_URL));
  } finally {
    for (const target of targets.reverse()) await target.stop();
    await pool.end();
    await database.stop();
  }

  if (QUERIES_ONLY) return;
  // Last, with its own database and engine once the others are stopped.
  process.stdout.write(`\n${REMOTE_BENCH_TITLE}\n`);
  printTable(REMOTE_BENCH_HEADER, await runRemoteBench(NATS_URL));

  // Event triggers (triggers.bench.ts), also with a database and engine of their own.
  process.stdout.write(`\n${TRIGGERS_BENCH_TITLE}\n`);
  printTable(TRIGGERS_BENCH_HEADER, await runTriggersBench(NATS_URL));

  // Subscriptions (subscriptions.bench.ts), with a database and engine of their own.
  process.stdout.write(`\n${SUBSCRIPTIONS_BENCH_TITLE}\n`);
  printTable(SUBSCRIPTIONS_BENCH_HEADER, await runSubscriptionsBench(NATS_URL));

  // API limits and the allowlist (limits.bench.ts), with engines and databases of their own.
  process.stdout.write(`\n${LIMITS_BENCH_TITLE}\n`);
  printTable(LIMITS_BENCH_HEADER, await runLimitsBench(NATS_URL));

  // Tracing off vs on at 100% sampling (tracing.bench.ts), with engines and a database of their own.
  process.stdout.write(`\n${TRACING_BENCH_TITLE}\n`);
  printTable(TRACING_BENCH_HEADER, await runTracingBench(NATS_URL));
  // Prometheus metrics (metrics.bench.ts), with engines and databases of their own.
  process.stdout.write(`\n${METRICS_BENCH_TITLE}\n`);
  printTable(METRICS_BENCH_HEADER, await runMetricsBench(NATS_URL));
  // Metadata at scale (metadata-scale.bench.ts): a database and engine per size, the longest section, so last.
  process.stdout.write(`\n${METADATA_SCALE_BENCH_TITLE}\n`);
  printTable(METADATA_SCALE_BENCH_HEADER, await runMetadataScaleBench(NATS_URL));
}

function sampleRss(pid: number): { stop(): Promise<number> } {
  let peak = 0;
  const timer = setInterval(() => void residentMiB(pid).then((mib) => (peak = Math.max(peak, mib))), 250);
  return {
    async stop() {
      clearInterval(timer);
      return Math.max(peak, await residentMiB(pid));
    },
  };
}

/** The 1, 5 and 15 minute load averages and the number of CPUs: how quiet the machine was. */
function loadAverage(): string {
  return `${loadavg().map((figure) => figure.toFixed(2)).join(', ')} on ${cpus().length} CPUs`;
}

/**
 * A round's figures and the CPU time its target (with its child processes) spent per
 * request: on a shared machine it moves less than a rate does, and it is what a target's
 * cost is when the machine, not the target, limits the rate.
 */
interface Measured extends LoadResult {
  cpuUs: number | null;
}

function medianResult(results: Measured[]): Measured {
  const cpu = results.map((result) => result.cpuUs).filter((value): value is number => value !== null);
  return {
    rps: median(results.map((result) => result.rps)),
    p50: median(results.map((result) => result.p50)),
    p99: median(results.map((result) => result.p99)),
    cpuUs: cpu.length === 0 ? null : median(cpu),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
  };
}

function ratio(a: number, b: number): string {
  return b === 0 ? 'n/a' : `${(a / b).toFixed(2)}x`;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
