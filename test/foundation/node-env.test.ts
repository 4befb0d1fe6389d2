import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Loaded before src/main.ts (`--import`): when the process exits, it says whether the
 * graphql-js that main.ts's imports loaded checks its `instanceof`s in production mode.
 * A look-alike of a GraphQL type makes the development check throw; in production it is
 * simply not one. graphql-js must already be loaded: one loaded here, late, would read
 * whatever NODE_ENV holds by then. Written synchronously: at exit, a write to a pipe may be lost.
 */
const PROBE = `
import { writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
const require = createRequire(join(process.cwd(), 'package.json'));
process.on('exit', () => {
  const path = require.resolve('graphql/jsutils/instanceOf.js');
  if (require.cache[path] === undefined) return void writeSync(1, 'mode: graphql not loaded\\n');
  let mode = 'production';
  try {
    require('graphql').isScalarType({ [Symbol.toStringTag]: 'GraphQLScalarType' });
  } catch {
    mode = 'development';
  }
  writeSync(1, 'mode: ' + mode + '\\n');
});
`;

/** The repository's root, where `src/main.ts` and node_modules are. */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function graphqlModeOfCli(nodeEnv: string | undefined): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'node-env-'));
  const probe = join(dir, 'probe.mjs');
  writeFileSync(probe, PROBE);
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_ENV;
  if (nodeEnv !== undefined) env.NODE_ENV = nodeEnv;
  const answer = new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', probe, 'src/main.ts', '--help'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    // 'close', not 'exit': the line is written in the child's exit handler, and its output may still be on the way at 'exit'.
    child.once('close', () => resolve(/^mode: (.*)$/m.exec(output)?.[1] ?? `no answer in: ${output.slice(-200)}`));
  });
  return answer.finally(() => rmSync(dir, { recursive: true, force: true }));
}

describe('NODE_ENV of the engine process', () => {
  it('is production where it is not set, before graphql-js loads', async () => {
    expect(await graphqlModeOfCli(undefined)).toBe('production');
  });

  it('is production where it is set empty', async () => {
    expect(await graphqlModeOfCli('')).toBe('production');
  });

  it('is kept where it is set', async () => {
    expect(await graphqlModeOfCli('development')).toBe('development');
  });
});
