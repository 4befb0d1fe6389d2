import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { startEmbeddedPostgres } from '../../src/pg/embedded.js';
import { cpuSeconds, load, median, probe, runAloneIfMain, startBenchEngine, startTarget, type LoadResult, type Target } from './harness.js';

/**
 * A remote schema query through the engine against the same query sent to the fixture
 * server directly, and through a hand-written forwarding proxy (peers/forwarding-proxy.ts:
 * what one more HTTP hop costs on the machine, with nothing of the engine), in one run.
 * Latency is measured one request at a time (so that it is the added work, not queueing)
 * with sub-millisecond resolution; throughput with autocannon at BENCH_CONNECTIONS. Rounds
 * rotate the targets' order so that a noisy moment of the machine does not fall on one of
 * them; each figure is the median of its rounds. CPU µs/req is the CPU time of the
 * answering process (the fixture when direct, the proxy or the engine through them) per
 * request under load: on a shared machine it moves less than latency and throughput do. Targets (issue 16, printed beside the figures): under 0.3 ms
 * added at p50 and at least 95% of direct throughput.
 * `npm run build && npx tsx test/bench/remote.bench.ts` runs it alone (the engine runs from
 * its build); `npm run bench` runs it last.
 * Settings: BENCH_SECONDS per round (default 5), BENCH_ROUNDS (default 3), BENCH_CONNECTIONS
 * (default 20), BENCH_SAMPLES per round (default 2000), BENCH_ENGINE_NODE_ARGS (extra node
 * flags for the engine process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 2000);
const ENGINE_PORT = 5560;
const REMOTE_PORT = 5561;
const PROXY_PORT = 5562;
/** The engine runs as users run it: an admin secret set and sent, logs at the default level. */
const ADMIN_SECRET = 'bench-admin-secret';
const QUERY = JSON.stringify({ query: 'query Users($f: UserFilter) { users(filter: $f) { id name role } }', variables: { f: { role: 'EDITOR' } } });

interface Figures {
  p50: number;
  p99: number;
  rps: number;
  /** CPU time of the process answering (the engine, or the fixture when direct) per request under load, µs. */
  cpu: number;
  errors: number;
}

function post(agent: Agent, url: string, body: string, headers: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function latencies(agent: Agent, url: string, samples: number, headers: Record<string, string>): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    await post(agent, url, QUERY, headers);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length * 0.5)]!, p99: times[Math.floor(times.length * 0.99)]! };
}

/**
 * Runs the remote schema benchmark with its own database, fixture server and engine, and
 * returns its table: one row per target and one with the engine's added latency and
 * throughput ratio.
 */
export async function runRemoteBench(natsUrl = process.env.SERVICE_GRAPHQL_NATS_URL ?? 'nats://127.0.0.1:4222'): Promise<string[][]> {
  const database = await startEmbeddedPostgres({ dataDir: '.data/bench-remote-pg', port: Number(process.env.BENCH_REMOTE_PG_PORT ?? 5442) });
  const targets: Target[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const remote = await startTarget(process.execPath, ['--import', 'tsx', 'test/remote/fixture-main.ts', String(REMOTE_PORT)], {}, /listening/, () => `http://127.0.0.1:${REMOTE_PORT}/graphql`);
    targets.push(remote);
    const proxy = await startTarget(process.execPath, ['--import', 'tsx', 'test/bench/peers/forwarding-proxy.ts', remote.url, String(PROXY_PORT)], {}, /listening/, () => `http://127.0.0.1:${PROXY_PORT}/graphql`);
    targets.push(proxy);
    const engine = await startBenchEngine({ databaseUrl: database.url, natsUrl, port: ENGINE_PORT, prefix: `benchr${randomBytes(3).toString('hex')}`, adminSecret: ADMIN_SECRET });
    const admin = { 'x-service-admin-secret': ADMIN_SECRET };
    targets.push(engine);
    await probe(`${engine.url}/v1/query`, JSON.stringify({ type: 'clear_metadata', args: {} }), admin);
    const added = await probe(`${engine.url}/v1/query`, JSON.stringify({ type: 'add_remote_schema', args: { name: 'people', definition: { url: remote.url } } }), admin);
    if ((added as { message?: string }).message !== 'success') throw new Error(`add_remote_schema failed: ${JSON.stringify(added)}`);

    const runs: [string, string, number, Record<string, string>][] = [
      ['direct', remote.url, remote.child.pid!, {}],
      ['proxy', proxy.url, proxy.child.pid!, {}],
      ['engine', `${engine.url}/v1/graphql`, engine.child.pid!, admin],
    ];
    const answers = await Promise.all(runs.map(([, url, , headers]) => probe(url, QUERY, headers)));
    for (const answer of answers.slice(1)) if (JSON.stringify(answer) !== JSON.stringify(answers[0])) throw new Error(`answers differ: ${JSON.stringify(answers[0])} vs ${JSON.stringify(answer)}`);
    for (const [, url, , headers] of runs) {
      await latencies(agent, url, 300, headers);
      await load(url, QUERY, { seconds: 2, connections: CONNECTIONS, headers });
    }

    const rounds = new Map<string, Figures[]>(runs.map(([name]) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // Each target takes each place in the order in turn: a noisy moment falls on none of them twice.
      for (const [name, url, pid, headers] of runs.map((_, index) => runs[(index + round) % runs.length]!)) {
        const latency = await latencies(agent, url, SAMPLES, headers);
        const cpuBefore = (await cpuSeconds(pid)) ?? 0;
        const loaded: LoadResult = await load(url, QUERY, { seconds: SECONDS, connections: CONNECTIONS, headers });
        const cpu = (((await cpuSeconds(pid)) ?? 0) - cpuBefore) * 1e6 / (loaded.rps * SECONDS);
        rounds.get(name)!.push({ p50: latency.p50, p99: latency.p99, rps: loaded.rps, cpu, errors: loaded.errors });
      }
    }
    const figures = (name: string): Figures => {
      const list = rounds.get(name)!;
      const of = (key: 'p50' | 'p99' | 'rps' | 'cpu') => median(list.map((item) => item[key]));
      return { p50: of('p50'), p99: of('p99'), rps: of('rps'), cpu: of('cpu'), errors: list.reduce((sum, item) => sum + item.errors, 0) };
    };
    const direct = figures('direct');
    const forwarded = figures('proxy');
    const through = figures('engine');
    const ms = (value: number) => value.toFixed(3);
    const row = (name: string, figures: Figures) => [name, ms(figures.p50), ms(figures.p99), figures.rps.toFixed(0), figures.cpu.toFixed(0), String(figures.errors)];
    const addedRow = (name: string, figures: Figures) => [name, ms(figures.p50 - direct.p50), ms(figures.p99 - direct.p99), `${((figures.rps / direct.rps) * 100).toFixed(0)}%`, '', ''];
    return [
      row('direct', direct),
      row('hand-written forwarding proxy', forwarded),
      row('engine', through),
      addedRow('proxy added / ratio', forwarded),
      addedRow('engine added / ratio', through),
      ['engine added beyond the proxy', ms(through.p50 - forwarded.p50), ms(through.p99 - forwarded.p99), '', `${(through.cpu - forwarded.cpu).toFixed(0)}`, ''],
      ['target (issue 16)', '< 0.300 added', '-', '>= 95%', '', '0'],
    ];
  } finally {
    agent.destroy();
    for (const target of targets.reverse()) await target.stop();
    await database.stop();
  }
}

export const REMOTE_BENCH_HEADER = ['remote query', 'p50 ms (sequential)', 'p99 ms (sequential)', 'req/s', 'CPU µs/req', 'errors'];
export const REMOTE_BENCH_TITLE = `remote schema query, ${ROUNDS} alternating rounds of ${SAMPLES} sequential requests and ${SECONDS}s x ${CONNECTIONS} connections, medians`;

await runAloneIfMain(import.meta.url, REMOTE_BENCH_TITLE, REMOTE_BENCH_HEADER, () => runRemoteBench());
