import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { consoleBuildDir } from '../../src/edge/console-files.js';

/** A build older than this holding the lock was left by a test run that died. */
const STALE_LOCK_MS = 10 * 60_000;

/**
 * Builds the console when its sources changed since its last build (the same check as
 * `npm start`), so the tests serve what the sources say without rebuilding every run.
 * Test files run side by side: a lock folder keeps two builds from emptying each other's output.
 */
export async function ensureConsoleBuilt(): Promise<string> {
  const dir = consoleBuildDir();
  const lock = join(dir, '..', '.console-build.lock');
  mkdirSync(join(dir, '..'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (since !== undefined && Date.now() - since > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      await sleep(250);
    }
  }
  try {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/build/build.ts', '--only=console'], { encoding: 'utf8', timeout: 600_000 });
    if (result.status !== 0) throw new Error(`the console build failed:\n${result.stdout}\n${result.stderr}`);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  if (!existsSync(join(dir, 'index.html'))) throw new Error(`the console build left no ${dir}/index.html`);
  return dir;
}
