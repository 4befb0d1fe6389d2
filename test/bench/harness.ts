import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/pg/embedded.js';
import { deleteStreams, streamOfPrefix } from '../harness/jetstream-cleanup.js';

/** A server the benchmark started, on its own port, stopped at the end of the run. */
export interface Target {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Spawns a server process and waits for a line matching `ready` on its output. */
export async function startTarget(command: string, args: string[], env: Record<string, string>, ready: RegExp, url: (output: string) => string): Promise<Target> {
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start:\n${output}`)), 120_000);
    const check = () => {
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', (chunk: Buffer) => ((output += chunk.toString()), check()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}:\n${output}`)));
  });
  child.stdout!.removeAllListeners('data');
  child.stdout!.resume();
  return {
    url: url(output),
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Sends one request and returns the parsed body, to check a target answers correctly before loading it. */
export async function probe(url: string, body: string, headers: Record<string, string> = {}): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return response.json();
}

/** Drives `connections` keep-alive clients against one request for `seconds`. */
export async function load(url: string, body: string, options: { seconds: number; connections: number; headers?: Record<string, string> }): Promise<LoadResult> {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    body,
    connections: options.connections,
    duration: options.seconds,
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

/** The resident memory of a process, in MiB, from /proc (Linux). */
export async function residentMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system) a process has used, from /proc: a cost per request or event
 * that other load on the machine disturbs far less than a rate. Null off Linux.
 */
export async function cpuSeconds(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/**
 * CPU seconds a process and its children have used (children that exited included, as the
 * parent reaped them): for PostgreSQL, the postmaster and its backends. Null off Linux.
 */
export async function processTreeCpuSeconds(rootPid: number): Promise<number | null> {
  const times = async (pid: number | string) => {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  };
  try {
    const root = await times(rootPid);
    let ticks = Number(root[11]) + Number(root[12]) + Number(root[13]) + Number(root[14]);
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const fields = await times(entry).catch(() => null);
      if (fields !== null && Number(fields[1]) === rootPid) ticks += Number(fields[11]) + Number(fields[12]);
    }
    return ticks / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/**
 * CPU seconds every process on the machine has used (all CPUs; idle, I/O wait and steal aside), from
 * /proc/stat: the whole cost of a pipeline whose work is spread over processes (the engine,
 * the NATS server, PostgreSQL, the webhook). Null off Linux.
 */
export async function machineBusySeconds(): Promise<number | null> {
  try {
    const [user, nice, system, , , irq, softirq] = (await readFile('/proc/stat', 'utf8')).split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    return (user! + nice! + system! + irq! + softirq!) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** The pids of every nats-server process on this machine, for their CPU: more than the engine's when several run here; empty when NATS runs elsewhere. */
export async function natsServerPids(): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const name = await readFile(`/proc/${entry}/comm`, 'utf8').catch(() => '');
    if (name.trim() === 'nats-server') pids.push(Number(entry));
  }
  return pids;
}

/** The middle value (the upper one of an even count); sorts `values`. */
export function median(values: number[]): number {
  return values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

/** Prints a Markdown table, columns padded to their widest cell. */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  process.stdout.write(`${[line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n')}\n`);
}

/** Extra node flags for the engine under test (e.g. `--cpu-prof`), from BENCH_ENGINE_NODE_ARGS. */
const ENGINE_NODE_ARGS = (process.env.BENCH_ENGINE_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');

/**
 * The engine as its own process, run from the build as `npm start` runs it (`npm run bench`
 * builds first), on a prefix of its own; resolves once /healthz answers OK. With an
 * `adminSecret` it runs as users run it: the secret set, logs at the default level;
 * without, in development mode (no admin secret), logging warnings only.
 */
export async function startBenchEngine(options: { databaseUrl: string; natsUrl: string; port: number; prefix: string; adminSecret?: string; env?: Record<string, string>; nodeArgs?: string[] }): Promise<Target> {
  const asUsersRunIt = options.adminSecret !== undefined;
  const started = await startTarget(
    process.execPath,
    [...(options.nodeArgs ?? ENGINE_NODE_ARGS), 'dist/src/main.js', 'serve'],
    {
      SERVICE_GRAPHQL_DATABASE_URL: options.databaseUrl,
      SERVICE_GRAPHQL_NATS_URL: options.natsUrl,
      SERVICE_GRAPHQL_NATS_PREFIX: options.prefix,
      SERVICE_GRAPHQL_SERVER_HOST: '127.0.0.1',
      SERVICE_GRAPHQL_SERVER_PORT: String(options.port),
      ...(asUsersRunIt ? { SERVICE_GRAPHQL_ADMIN_SECRET: options.adminSecret! } : { SERVICE_GRAPHQL_LOG_LEVEL: 'warn' }),
      ...options.env,
    },
    asUsersRunIt ? /"msg":"engine started"/ : /"msg":"NO ADMIN SECRET/,
    () => `http://127.0.0.1:${options.port}`,
  );
  // The streams its prefix made on the machine's NATS go with it.
  const engine: Target = {
    ...started,
    stop: async () => {
      await started.stop();
      await deleteStreams(options.natsUrl, streamOfPrefix(options.prefix));
    },
  };
  for (let attempt = 0; attempt < 200; attempt++) {
    const response = await fetch(`${engine.url}/healthz`).catch(() => undefined);
    if (response?.status === 200) return engine;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await engine.stop();
  throw new Error('the engine did not become healthy');
}

/** A fresh database on an embedded PostgreSQL of the bench's own, with a small pool on it. */
export interface BenchDatabase {
  url: string;
  pool: pg.Pool;
  /** Ends the pool, drops the database (its logical slot first) and stops the server. */
  close(): Promise<void>;
}

export async function createBenchDatabase(options: { dataDir: string; port: number }): Promise<BenchDatabase> {
  const postgres = await startEmbeddedPostgres(options);
  const name = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = postgres.url.replace(/\/postgres$/, `/${name}`);
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  // An idle connection the server ends (once, a 57P01 "administrator command" while tracking
  // 5,000 tables, cause not found) is the pool's to replace, not the end of the benchmark's figures.
  pool.on('error', (error) => process.stderr.write(`bench database pool: an idle connection ended: ${error.message}\n`));
  return {
    url,
    pool,
    async close() {
      await pool.end();
      // A database with a logical slot cannot be dropped: the slot goes first, once the engine let go of it.
      for (let attempt = 0; attempt < 50; attempt++) {
        const slots = await admin.query('select slot_name, active from pg_replication_slots where database = $1', [name]);
        if (slots.rows.length === 0) break;
        for (const slot of slots.rows) if (!slot.active) await admin.query('select pg_drop_replication_slot($1)', [slot.slot_name]).catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await admin.query(`drop database ${name} with (force)`).catch((error: unknown) => process.stderr.write(`${String(error)}\n`));
      await admin.end();
      await postgres.stop();
    },
  };
}

/**
 * Runs one benchmark section and prints its table when its module is the script run
 * (`npx tsx test/bench/<name>.bench.ts`), not when `run.ts` imports it.
 */
export async function runAloneIfMain(moduleUrl: string, title: string, header: string[], run: () => Promise<string[][]>): Promise<void> {
  if (process.argv[1] === undefined || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  try {
    const rows = await run();
    process.stdout.write(`\n${title}\n`);
    printTable(header, rows);
    process.exit(0);
  } catch (error) {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  }
}
