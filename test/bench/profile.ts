import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedDataset } from './dataset.js';
import { cpuSeconds, createBenchDatabase, load, printTable, probe, startBenchEngine } from './harness.js';
import { MUTATION_TRACKING, prepareMutationTable } from './mutations.js';
import { onCpuShares, packageOfScript, recordOnCpu, whyPerfCannotSample } from './on-cpu-profile.js';
import { QUERIES, QUERY_TRACKING } from './queries.js';

/**
 * Where the engine's time goes under load, query by query: the engine as users run it
 * (from the build, admin secret set and sent, logs at the default level) under
 * `node --cpu-prof`, loaded with one bench query, then the profile's top frames by self
 * time and its self time by package. `npm run build` first; then
 * `npx tsx test/bench/profile.ts [query name substring]`. BENCH_SECONDS per query (default 8),
 * BENCH_PROFILE_PORT for the engine (default 5583).
 *
 * `--cpu-prof` samples on a wall-clock timer: with every core busy, time the engine spends
 * preempted inside a system call is counted as that call's. BENCH_PROFILE_PERF=1 (Linux,
 * `perf` installed, as root or with kernel.perf_event_paranoid at 1 or less) profiles with `perf record -e cpu-clock` instead (on-cpu-profile.ts): the
 * engine's CPU per request split by kernel system call, module and package, in µs.
 */
const ON_CPU = process.env.BENCH_PROFILE_PERF === '1';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const NATS_URL = process.env.SERVICE_GRAPHQL_NATS_URL ?? 'nats://127.0.0.1:4222';
const ADMIN_SECRET = 'bench-admin-secret';
const TOP = 25;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

async function main(): Promise<void> {
  const only = process.argv[2];
  if (ON_CPU) {
    const why = await whyPerfCannotSample();
    if (why !== null) throw new Error(`BENCH_PROFILE_PERF=1: ${why}`);
    if (SECONDS < 3) throw new Error('BENCH_PROFILE_PERF=1 records a second in from each end of the load: BENCH_SECONDS must be at least 3');
  }
  const database = await createBenchDatabase({ dataDir: '.data/bench-pg', port: Number(process.env.BENCH_PG_PORT ?? 5441) });
  try {
    await seedDataset(database.pool);
    await prepareMutationTable(database.pool);
    for (const query of QUERIES) {
      if (only !== undefined && !query.name.includes(only)) continue;
      const dir = await mkdtemp(join(tmpdir(), 'engine-profile-'));
      try {
        let stopMs = 0;
        const engine = await startBenchEngine({
          databaseUrl: database.url,
          natsUrl: NATS_URL,
          port: Number(process.env.BENCH_PROFILE_PORT ?? 5583),
          prefix: `prof${randomBytes(3).toString('hex')}`,
          adminSecret: ADMIN_SECRET,
          nodeArgs: ON_CPU ? ['--perf-basic-prof'] : ['--cpu-prof', `--cpu-prof-dir=${dir}`],
        });
        const headers = { 'x-service-admin-secret': ADMIN_SECRET };
        try {
          await probe(`${engine.url}/v1/query`, JSON.stringify({ type: 'bulk', args: [{ type: 'clear_metadata', args: {} }, ...QUERY_TRACKING, ...MUTATION_TRACKING] }), headers);
          const body = JSON.stringify({ query: query.engine, ...(query.variables === undefined ? {} : { variables: query.variables }) });
          const answer = (await probe(`${engine.url}/v1/graphql`, body, headers)) as { errors?: unknown };
          if (answer.errors !== undefined) throw new Error(`"${query.name}": ${JSON.stringify(answer.errors)}`);
          await load(`${engine.url}/v1/graphql`, body, { seconds: 2, connections: CONNECTIONS, headers });
          const pid = engine.child.pid!;
          const cpuBefore = await cpuSeconds(pid);
          // perf samples the middle of the load, a second in from each end.
          const recording = ON_CPU ? new Promise((resolve) => setTimeout(resolve, 1000)).then(() => recordOnCpu(pid, SECONDS - 2, join(dir, 'perf.data'))) : undefined;
          const [result] = await Promise.all([load(`${engine.url}/v1/graphql`, body, { seconds: SECONDS, connections: CONNECTIONS, headers }), recording]);
          const cpuAfter = await cpuSeconds(pid);
          const cpuPerRequest = cpuBefore === null || cpuAfter === null ? null : ((cpuAfter - cpuBefore) * 1e6) / (result.rps * SECONDS);
          process.stdout.write(`\n${query.name}: ${result.rps.toFixed(0)} req/s under the profiler, p50 ${result.p50} ms, ${cpuPerRequest === null ? 'n/a' : cpuPerRequest.toFixed(1)} µs of engine CPU a request\n`);
          if (ON_CPU) await printOnCpu(join(dir, 'perf.data'), pid, cpuPerRequest);
        } finally {
          const stopping = performance.now();
          await engine.stop();
          stopMs = performance.now() - stopping;
          // --perf-basic-prof's symbol map is written where perf looks for it, in /tmp.
          if (ON_CPU) await rm(`/tmp/perf-${engine.child.pid}.map`, { force: true });
        }
        if (!ON_CPU) {
          const file = (await readdir(dir)).find((name) => name.endsWith('.cpuprofile'));
          if (file === undefined) throw new Error('the engine wrote no profile');
          const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as Profile;
          // The measured load only: the samples of the SECONDS before the engine began to stop.
          const end = profile.endTime - stopMs * 1000;
          printProfile(profile, end - SECONDS * 1_000_000, end);
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  } finally {
    await database.close();
  }
}

/** The engine's on-CPU samples by bucket, with the µs a request each stands for. */
async function printOnCpu(file: string, pid: number, cpuPerRequest: number | null): Promise<void> {
  const { samples, buckets } = await onCpuShares(file, pid);
  process.stdout.write(`${samples} on-CPU samples (perf, cpu-clock)\n`);
  const rows = buckets.slice(0, 30).map(([name, share]) => [name, `${(share * 100).toFixed(1)}%`, cpuPerRequest === null ? 'n/a' : (share * cpuPerRequest).toFixed(1)]);
  printTable(['where (on CPU)', 'share', 'µs a request'], rows);
}

/**
 * Self time by function and by package, as shares of the samples between `from` and `to`
 * (µs, the profile's clock) taken while the engine was busy (idle excluded), and for the
 * top functions the callers that spent it.
 */
function printProfile(profile: Profile, from: number, to: number): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, ProfileNode>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
  const hits = new Map<number, number>();
  let time = profile.startTime;
  profile.samples.forEach((id, index) => {
    time += profile.timeDeltas[index]!;
    if (time >= from && time <= to) hits.set(id, (hits.get(id) ?? 0) + 1);
  });
  const label = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    return `${functionName || '(anonymous)'} ${url.replace(/^file:\/\/.*?\/(node_modules|dist)\//, '$1/')}:${lineNumber + 1}`;
  };
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  const callers = new Map<string, Map<string, number>>();
  let busy = 0;
  for (const [id, count] of hits) {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)' || node.callFrame.functionName === '(program)') continue;
    busy += count;
    const name = label(node);
    byFunction.set(name, (byFunction.get(name) ?? 0) + count);
    const pkg = packageOf(node.callFrame.url, node.callFrame.functionName);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + count);
    const chain: string[] = [];
    for (let up = parent.get(id); up !== undefined && chain.length < 9; up = parent.get(up.id)) chain.push(label(up).split(' ')[0]!);
    const seen = callers.get(name) ?? new Map<string, number>();
    seen.set(chain.join(' < '), (seen.get(chain.join(' < ')) ?? 0) + count);
    callers.set(name, seen);
  }
  const share = (count: number) => `${((count / busy) * 100).toFixed(1)}%`;
  const top = (map: Map<string, number>, count: number) => [...map].sort((a, b) => b[1] - a[1]).slice(0, count);
  printTable(['package (self time)', 'share'], top(byPackage, 15).map(([name, count]) => [name, share(count)]));
  printTable(['function (self time)', 'share', 'called from (most)'], top(byFunction, TOP).map(([name, count]) => [name, share(count), top(callers.get(name)!, 1)[0]![0]]));
}

function packageOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  return packageOfScript(url);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`profile failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
