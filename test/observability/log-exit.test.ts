import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * The engine writes its log lines to stdout asynchronously (src/log/logger.ts): lines
 * logged just before the process exits, however it exits, must still all come out.
 */
function runLogging(exit: string): Promise<string> {
  const script = `
    import { createLogger } from './src/log/logger.ts';
    const log = createLogger('info');
    for (let i = 0; i < 2000; i++) log.info({ i }, 'line');
    ${exit}
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', () => resolve(output));
  });
}

describe('log lines at exit', () => {
  it.each([
    ['process.exit', 'process.exit(0);'],
    ['an uncaught exception', "throw new Error('boom');"],
    ['the end of the program', ''],
  ])('are all written when the process ends by %s', async (_name, exit) => {
    const output = await runLogging(exit);
    const lines = output.trim().split('\n').map((line) => JSON.parse(line) as { i: number; msg: string });
    expect(lines).toHaveLength(2000);
    expect(lines.at(-1)).toMatchObject({ i: 1999, msg: 'line' });
  }, 60_000);
});

describe('log lines while stdout is not read', () => {
  it('are held up to a bound, not without end', async () => {
    // 200 MB of lines logged while nobody reads the pipe: the pending bytes stay bounded.
    const script = `
      import { createLogger } from './src/log/logger.ts';
      const log = createLogger('info');
      const text = 'x'.repeat(10_000);
      const before = process.memoryUsage().rss;
      for (let i = 0; i < 20_000; i++) log.info({ text }, 'line');
      process.stderr.write(String(Math.round((process.memoryUsage().rss - before) / 1048576)));
      process.kill(process.pid, 'SIGKILL');
    `;
    const grownMiB = await new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.pause();
      let errorOutput = '';
      child.stderr.on('data', (chunk: Buffer) => (errorOutput += chunk.toString()));
      child.once('error', reject);
      child.once('close', () => resolve(Number(errorOutput)));
    });
    expect(grownMiB).toBeLessThan(120);
  }, 60_000);
});

describe('a lone log line', () => {
  it('is written while the process runs on, not held until more lines come', async () => {
    // Lines are written in batches (src/log/logger.ts); one line alone is far below a batch.
    const script = `
      import { createLogger } from './src/log/logger.ts';
      createLogger('info').info({ lone: true }, 'line');
      setTimeout(() => undefined, 30_000);
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes('\n')) resolve(output);
        });
        child.once('error', reject);
        child.once('close', () => reject(new Error(`the process ended first; it wrote: ${output}`)));
      });
      expect(child.exitCode).toBeNull();
      expect(JSON.parse(line)).toMatchObject({ lone: true, msg: 'line' });
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
});
