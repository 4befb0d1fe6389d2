import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { delimiter, join, resolve } from 'node:path';

export interface LocalNats {
  /** Stops the server if this process started it. */
  stop(): Promise<void>;
}

/** Raised when no NATS answers and none can be started: start-up ends with exit code 1. */
export class NatsUnavailableError extends Error {
  override readonly name = 'NatsUnavailableError';
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * For a NATS on this machine (a single loopback URL, as the default is): when nothing
 * listens there and `nats-server` is on PATH, starts one with JetStream and its data
 * under `<dataDir>/nats`; with neither, start-up stops naming both fixes.
 */
export async function ensureLocalNats(options: { url: string; dataDir: string }): Promise<LocalNats> {
  const servers = options.url.split(',').map((server) => server.trim());
  const { hostname, port } = new URL(servers[0]!.includes('://') ? servers[0]! : `nats://${servers[0]}`);
  // A list of servers, or a remote one, is a cluster: the client tries each in turn.
  if (servers.length > 1 || !LOOPBACK.has(hostname)) return { stop: async () => undefined };
  const portNumber = Number(port || 4222);
  if (await listening(hostname, portNumber)) return { stop: async () => undefined };
  const binary = findOnPath('nats-server');
  if (binary === null) {
    throw new NatsUnavailableError(
      `no NATS server answers at ${options.url}. Either set SERVICE_GRAPHQL_NATS_URL (--nats-url) to a NATS server ` +
        'with JetStream enabled, or install nats-server on PATH so that the engine can start one itself.',
    );
  }
  const storeDir = resolve(options.dataDir, 'nats');
  mkdirSync(storeDir, { recursive: true });
  const child = spawn(binary, ['-js', '-a', hostname, '-p', String(portNumber), '-sd', storeDir], { stdio: 'ignore' });
  await waitForPort(hostname, portNumber, child);
  return { stop: () => stopChild(child) };
}

export function findOnPath(command: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, command);
    if (dir !== '' && existsSync(candidate)) return candidate;
  }
  return null;
}

export function listening(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = tcpConnect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolvePromise(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function waitForPort(host: string, port: number, child: ChildProcess): Promise<void> {
  let exited = false;
  child.once('exit', () => (exited = true));
  for (let attempt = 0; attempt < 100; attempt++) {
    if (exited) throw new NatsUnavailableError(`nats-server exited at start; is port ${port} taken?`);
    if (await listening(host, port, 200)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new NatsUnavailableError(`nats-server did not listen on ${host}:${port} within 10 s`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolvePromise) => {
    child.once('exit', () => resolvePromise());
    child.kill('SIGTERM');
  });
}
