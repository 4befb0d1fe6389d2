import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findOnPath, listening } from '../../src/bus/local-nats.js';
import { freePort } from './free-port.js';

export interface PrivateNats {
  url: string;
  port: number;
  kill(): Promise<void>;
  start(): Promise<void>;
}

/** A nats-server of the test's own, for tests that stop and restart NATS. */
export async function startPrivateNats(): Promise<PrivateNats> {
  const binary = findOnPath('nats-server');
  if (binary === null) throw new Error('this test needs nats-server on PATH');
  const port = await freePort();
  const storeDir = mkdtempSync(join(tmpdir(), 'nats-private-'));
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(binary, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir], { stdio: 'ignore' });
    for (let i = 0; i < 100 && !(await listening('127.0.0.1', port, 200)); i++) await new Promise((r) => setTimeout(r, 50));
  };
  const kill = () =>
    new Promise<void>((resolve) => {
      if (child === undefined || child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  await start();
  return { url: `nats://127.0.0.1:${port}`, port, kill, start };
}
