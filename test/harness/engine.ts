import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { startEngine, type Engine } from '../../src/engine.js';
import { createLogger } from '../../src/log/logger.js';

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export interface TestEngine {
  url: string;
  prefix: string;
  engine: Engine;
  stop(): Promise<void>;
  /** POST /v1/query; sends the admin secret of `env` unless headers say otherwise. */
  query(body: unknown, headers?: Record<string, string>): Promise<HttpResult>;
  /** POST /v1/graphql. */
  graphql(body: unknown, headers?: Record<string, string>): Promise<HttpResult>;
  get(path: string, headers?: Record<string, string>): Promise<HttpResult>;
}

/**
 * A subject prefix of its own, so that test files never hear each other's messages; it
 * begins with the run's id, by which the run's teardown finds its streams (global-setup.ts).
 */
export function testPrefix(): string {
  return `t${inject('testRun')}${randomBytes(3).toString('hex')}`;
}

export async function http(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/**
 * The engine in this process, on the test's database and prefix, its edge on a free
 * loopback port. `env` holds further SERVICE_GRAPHQL_* settings.
 */
export async function startTestEngine(options: { databaseUrl: string; prefix?: string; env?: Record<string, string> }): Promise<TestEngine> {
  const prefix = options.prefix ?? testPrefix();
  const env = engineEnv(options.databaseUrl, prefix, options.env);
  const config = loadConfig(new Map(), env);
  const engine = await startEngine(config, createLogger(env.SERVICE_GRAPHQL_LOG_LEVEL ?? 'silent'));
  return wrap(engine.url!, prefix, engine, () => engine.stop(), env);
}

export function engineEnv(databaseUrl: string, prefix: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    SERVICE_GRAPHQL_DATABASE_URL: databaseUrl,
    SERVICE_GRAPHQL_NATS_URL: inject('natsUrl'),
    SERVICE_GRAPHQL_NATS_PREFIX: prefix,
    SERVICE_GRAPHQL_SERVER_HOST: '127.0.0.1',
    SERVICE_GRAPHQL_SERVER_PORT: '0',
    SERVICE_GRAPHQL_PG_CONNECTIONS: '4',
    SERVICE_GRAPHQL_LOG_LEVEL: 'silent',
    ...extra,
  };
}

function wrap(url: string, prefix: string, engine: Engine, stop: () => Promise<void>, env: Record<string, string>): TestEngine {
  const secret = env.SERVICE_GRAPHQL_ADMIN_SECRET;
  const adminHeaders: Record<string, string> = secret === undefined ? {} : { 'x-service-admin-secret': secret };
  return {
    url,
    prefix,
    engine,
    stop,
    query: (body, headers) => http('POST', `${url}/v1/query`, body, headers ?? adminHeaders),
    graphql: (body, headers) => http('POST', `${url}/v1/graphql`, body, headers ?? adminHeaders),
    get: (path, headers) => http('GET', `${url}${path}`, undefined, headers ?? adminHeaders),
  };
}

export interface EngineProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
}

/** Every engine process a test started, so that none outlives the test worker. */
const spawned = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of spawned) child.kill('SIGKILL');
});

/**
 * The engine as a separate process (`tsx src/main.ts serve`), for tests of what only
 * several processes show: a cluster, a start-up failure, a restart. A process whose test
 * failed before it could stop it is killed when the test worker exits.
 */
export async function spawnEngineProcess(env: Record<string, string>, args: string[] = ['serve']): Promise<EngineProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    // The start-up line (info) is how the test learns the URL, whatever level the caller chose.
    env: { ...process.env, ...env, SERVICE_GRAPHQL_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned.add(child);
  child.once('exit', () => spawned.delete(child));
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`engine did not start within 60 s:\n${output}`)), 60_000);
    const onData = () => {
      const match = /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"engine started"/.exec(output);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`engine exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    child,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
