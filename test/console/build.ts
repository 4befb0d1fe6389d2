import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { consoleBuildDir } from '../../src/edge/console-files.js';

/**
 * Builds the console when its sources changed since its last build (the same check as
 * `npm start`), so the tests serve what the sources say without rebuilding every run.
 */
export function ensureConsoleBuilt(): string {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/build/build.ts', '--only=console'], { encoding: 'utf8', timeout: 600_000 });
  if (result.status !== 0) throw new Error(`the console build failed:\n${result.stdout}\n${result.stderr}`);
  const dir = consoleBuildDir();
  if (!existsSync(join(dir, 'index.html'))) throw new Error(`the console build left no ${dir}/index.html`);
  return dir;
}
