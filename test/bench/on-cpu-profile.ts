import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * Where a process spends its CPU, from `perf record -e cpu-clock`: a sample is taken only
 * while the process runs on a CPU. `node --cpu-prof` samples on a wall-clock timer
 * instead, so on a machine whose cores are all busy (the engine, PostgreSQL and the load
 * on two cores) the time the engine waits preempted inside a `writev` is counted as that
 * `writev`'s: it showed 55-60% there where perf measures about a third. The engine must run
 * with `--perf-basic-prof`, so that perf can name its JavaScript frames.
 */

/** Whether `perf` can be run here (Linux, installed, allowed to sample). */
export async function perfAvailable(): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('perf', ['--version'], { stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
  });
}

/** Samples `pid` (every thread) at 2 kHz, with call stacks, for `seconds`, into `file`. */
export function recordOnCpu(pid: number, seconds: number, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('perf', ['record', '-e', 'cpu-clock', '-F', '2000', '-g', '-p', String(pid), '-o', file, '--', 'sleep', String(seconds)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`perf record exited with ${code}: ${errors}`))));
  });
}

export interface OnCpuShares {
  samples: number;
  /** Share of the samples per bucket, largest first. */
  buckets: Array<[string, number]>;
}

/**
 * The samples of a recording by where they were spent: in the kernel (by the system call
 * that entered it), in JavaScript (by the package or engine module of the innermost
 * JavaScript frame), in the garbage collector, in V8 and Node's native code, or in the
 * process's other threads (JIT compiler and GC helpers) when `mainThread` is given.
 */
export async function onCpuShares(file: string, mainThread: number): Promise<OnCpuShares> {
  const script = spawn('perf', ['script', '-i', file], { stdio: ['ignore', 'pipe', 'ignore'] });
  const counts = new Map<string, number>();
  let samples = 0;
  let thread = 0;
  let frames: Array<{ symbol: string; module: string }> = [];
  const finish = () => {
    if (frames.length === 0) return;
    samples++;
    const bucket = bucketOf(thread, mainThread, frames);
    counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
    frames = [];
  };
  for await (const line of createInterface({ input: script.stdout })) {
    if (line.trim() === '') {
      finish();
      continue;
    }
    const frame = /^\s+[0-9a-f]+ (.*) \((.*)\)$/.exec(line);
    if (frame !== null) frames.push({ symbol: frame[1]!.replace(/\+0x[0-9a-f]+$/, ''), module: frame[2]! });
    else thread = Number(/^\S+\s+(\d+)/.exec(line)?.[1] ?? 0);
  }
  finish();
  const buckets = [...counts].map(([name, count]): [string, number] => [name, count / Math.max(samples, 1)]).sort((a, b) => b[1] - a[1]);
  return { samples, buckets };
}

function bucketOf(thread: number, mainThread: number, frames: Array<{ symbol: string; module: string }>): string {
  if (thread !== mainThread) return '(other threads: JIT compiler, GC helpers)';
  if (frames[0]!.module.includes('kernel')) {
    const caller = frames.find((frame) => !frame.module.includes('kernel'));
    return `kernel, in ${caller === undefined ? '(interrupt)' : caller.symbol.replace(/^__(GI|libc)_+/, '').replace(/@.*$/, '')}`;
  }
  const js = frames.find((frame) => frame.symbol.startsWith('JS:'));
  if (js !== undefined) return moduleOf(js.symbol);
  const native = frames[0]!.symbol;
  if (/Scaveng|MarkCompact|Heap::|Sweeper|GarbageCollect/.test(native)) return '(garbage collector)';
  if (/malloc|free|_int_|unlink_chunk/.test(native)) return '(malloc)';
  return '(native: V8 and Node)';
}

/** `JS:*name file:///…/dist/src/edge/routes.js:48:37` → `src/edge/routes`. */
function moduleOf(symbol: string): string {
  const path = /(\S+):\d+:\d+$/.exec(symbol)?.[1];
  return path === undefined ? '(V8 builtins, wasm)' : packageOfScript(path);
}

/**
 * What a script belongs to: Node's own (`node:…`), a dependency (its package), or an engine
 * module (`src/edge/routes`, `actors/schema/execution`: two levels under `dist/src` or `dist/actors`).
 */
export function packageOfScript(url: string): string {
  if (url.startsWith('node:')) return url;
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dependency !== null) return dependency[1]!;
  const own = /dist\/((?:src|actors)\/[^/]+(?:\/[^/]+)?)/.exec(url);
  return own === null ? url : own[1]!.replace(/\.js$/, '');
}
