import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';

/**
 * Where a process spends its CPU, from `perf record -e cpu-clock`: a sample is taken only
 * while the process runs on a CPU. `node --cpu-prof` samples on a wall-clock timer
 * instead, so on a machine whose cores are all busy (the engine, PostgreSQL and the load
 * on two cores) the time the engine waits preempted inside a `writev` is counted as that
 * `writev`'s: it showed 55-60% there where perf measures about a third. The engine must run
 * with `--perf-basic-prof`, so that perf can name its JavaScript frames.
 */

/**
 * Why `perf` cannot sample here, or null when it can: it must be installed, and allowed to
 * sample the kernel (as root, or with kernel.perf_event_paranoid at 1 or less). Without
 * that it records user space only, exits 0 and says nothing, and every share it reports is
 * of the wrong whole.
 */
export async function whyPerfCannotSample(): Promise<string | null> {
  const installed = await new Promise<boolean>((resolve) => {
    const child = spawn('perf', ['--version'], { stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
  });
  if (!installed) return '`perf` is not on PATH (Debian: linux-perf)';
  if (process.getuid?.() === 0) return null;
  const paranoid = Number(await readFile('/proc/sys/kernel/perf_event_paranoid', 'utf8').catch(() => '2'));
  return paranoid <= 1 ? null : `perf may not sample the kernel here (kernel.perf_event_paranoid is ${paranoid}): run as root or set it to 1`;
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
 * process's threads other than `mainThread` (JIT compiler and GC helpers).
 */
export async function onCpuShares(file: string, mainThread: number): Promise<OnCpuShares> {
  const script = spawn('perf', ['script', '-i', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let errors = '';
  script.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const ended = new Promise<number | null>((resolve, reject) => {
    script.once('error', reject);
    script.once('close', resolve);
  });
  const counts = new Map<string, number>();
  let samples = 0;
  let inKernel = 0;
  let thread = 0;
  let frames: Array<{ symbol: string; module: string }> = [];
  const finish = () => {
    if (frames.length === 0) return;
    samples++;
    if (frames[0]!.module.includes('kernel')) inKernel++;
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
  const code = await ended;
  if (code !== 0) throw new Error(`perf script exited with ${code}: ${errors}`);
  if (samples === 0) throw new Error('perf recorded no samples of the engine');
  // An engine under load enters the kernel on every request: none means perf could not see it.
  if (inKernel === 0) throw new Error('perf recorded no kernel frames: it may not sample the kernel here (run as root)');
  const buckets = [...counts].map(([name, count]): [string, number] => [name, count / samples]).sort((a, b) => b[1] - a[1]);
  return { samples, buckets };
}

function bucketOf(thread: number, mainThread: number, frames: Array<{ symbol: string; module: string }>): string {
  if (thread !== mainThread) return '(other threads: JIT compiler, GC helpers)';
  if (frames[0]!.module.includes('kernel')) {
    const caller = frames.find((frame) => !frame.module.includes('kernel'));
    if (caller === undefined) return 'kernel, in an interrupt';
    // Entered from JavaScript itself (no system call wrapper between): a page fault or an interrupt.
    if (caller.symbol.startsWith('JS:')) return 'kernel, from JavaScript (page faults, interrupts)';
    return `kernel, in ${caller.symbol.replace(/^(__GI_+)?(_*libc_)?/, '').replace(/@.*$/, '')}`;
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
