import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { startEmbeddedPostgres } from '../../src/pg/embedded.js';
import { load, probe, startTarget, type LoadResult, type Target } from './harness.js';

/**
 * `npx tsx test/bench/remote.bench.ts`: a remote schema query through the engine against
 * the same query sent to the fixture server directly, in one run. Latency is measured
 * one request at a time (so that it is the added work, not queueing) with sub-millisecond
 * resolution; throughput with autocannon at BENCH_CONNECTIONS. Target (issue 7): under
 * 1 ms added at p50 and at least 70% of direct throughput.
 * Settings: BENCH_SECONDS (default 5), BENCH_CONNECTIONS (default 20), BENCH_SAMPLES (default 3000).
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 3000);
const ENGINE_PORT = 5560;
const REMOTE_PORT = 5561;
const NATS_URL = process.env.SERVICE_GRAPHQL_NATS_URL ?? 'nats://127.0.0.1:4222';
const QUERY = JSON.stringify({ query: 'query Users($f: UserFilter) { users(filter: $f) { id name role } }', variables: { f: { role: 'EDITOR' } } });

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function post(url: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function latencies(url: string): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 300; i++) await post(url, QUERY);
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const started = performance.now();
    await post(url, QUERY);
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(samples.length * 0.5)]!, p99: samples[Math.floor(samples.length * 0.99)]! };
}

async function waitForHealth(url: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const response = await fetch(`${url}/healthz`).catch(() => undefined);
    if (response?.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the engine did not become healthy');
}

async function main(): Promise<void> {
  const database = await startEmbeddedPostgres({ dataDir: '.data/bench-remote-pg', port: Number(process.env.BENCH_PG_PORT ?? 5442) });
  const targets: Target[] = [];
  try {
    const remote = await startTarget(process.execPath, ['--import', 'tsx', 'test/remote/fixture-main.ts', String(REMOTE_PORT)], {}, /listening/, () => `http://127.0.0.1:${REMOTE_PORT}/graphql`);
    targets.push(remote);
    const engine = await startTarget(
      process.execPath,
      ['--import', 'tsx', 'src/main.ts', 'serve'],
      {
        SERVICE_GRAPHQL_DATABASE_URL: database.url,
        SERVICE_GRAPHQL_NATS_URL: NATS_URL,
        SERVICE_GRAPHQL_NATS_PREFIX: `benchr${randomBytes(3).toString('hex')}`,
        SERVICE_GRAPHQL_SERVER_HOST: '127.0.0.1',
        SERVICE_GRAPHQL_SERVER_PORT: String(ENGINE_PORT),
        SERVICE_GRAPHQL_LOG_LEVEL: 'warn',
      },
      /"msg":"NO ADMIN SECRET/,
      () => `http://127.0.0.1:${ENGINE_PORT}`,
    );
    targets.push(engine);
    await waitForHealth(engine.url);
    await probe(`${engine.url}/v1/query`, JSON.stringify({ type: 'clear_metadata', args: {} }));
    const added = await probe(`${engine.url}/v1/query`, JSON.stringify({ type: 'add_remote_schema', args: { name: 'people', definition: { url: remote.url } } }));
    if ((added as { message?: string }).message !== 'success') throw new Error(`add_remote_schema failed: ${JSON.stringify(added)}`);

    const direct = remote.url;
    const through = `${engine.url}/v1/graphql`;
    const [a, b] = [await probe(direct, QUERY), await probe(through, QUERY)];
    if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`answers differ: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);

    const directLatency = await latencies(direct);
    const engineLatency = await latencies(through);
    await load(direct, QUERY, { seconds: 2, connections: CONNECTIONS });
    await load(through, QUERY, { seconds: 2, connections: CONNECTIONS });
    const directLoad: LoadResult = await load(direct, QUERY, { seconds: SECONDS, connections: CONNECTIONS });
    const engineLoad: LoadResult = await load(through, QUERY, { seconds: SECONDS, connections: CONNECTIONS });

    const ms = (value: number) => value.toFixed(3);
    process.stdout.write(`\nremote query, ${SAMPLES} sequential requests (latency, ms) and ${SECONDS}s x ${CONNECTIONS} connections (throughput)\n`);
    process.stdout.write(`direct   p50 ${ms(directLatency.p50)}  p99 ${ms(directLatency.p99)}  ${Math.round(directLoad.rps)} req/s  errors ${directLoad.errors}\n`);
    process.stdout.write(`engine   p50 ${ms(engineLatency.p50)}  p99 ${ms(engineLatency.p99)}  ${Math.round(engineLoad.rps)} req/s  errors ${engineLoad.errors}\n`);
    process.stdout.write(`added    p50 ${ms(engineLatency.p50 - directLatency.p50)}  p99 ${ms(engineLatency.p99 - directLatency.p99)}  throughput ratio ${(engineLoad.rps / directLoad.rps).toFixed(2)}\n`);
  } finally {
    agent.destroy();
    for (const target of targets.reverse()) await target.stop();
    await database.stop();
  }
}

await main();
