import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { OPTIONS } from '../../src/config/options.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { freePort } from '../harness/free-port.js';
import { engineEnv, http, spawnEngineProcess, startTestEngine, testPrefix, type TestEngine } from '../harness/engine.js';

interface Exit {
  code: number | null;
  output: string;
}

function runCli(args: string[], env: Record<string, string>, timeoutMs = 30_000): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('command line and start-up', () => {
  it('--help lists every flag and environment variable', async () => {
    const { code, output } = await runCli(['--help'], {});
    expect(code).toBe(0);
    for (const spec of Object.values(OPTIONS)) {
      expect(output).toContain(spec.flag);
      expect(output).toContain(spec.env);
    }
  });

  it('stops with exit 1 and names the variable when a value is bad', async () => {
    const { code, output } = await runCli(['serve'], { SERVICE_GRAPHQL_SERVER_PORT: 'eighty' });
    expect(code).toBe(1);
    expect(output).toContain('SERVICE_GRAPHQL_SERVER_PORT');
    expect(output).toContain('expected an integer');
  });

  it('names the flag when the flag is bad', async () => {
    const { code, output } = await runCli(['serve', '--enabled-apis', 'graphql,soap'], {});
    expect(code).toBe(1);
    expect(output).toContain('--enabled-apis');
    expect(output).toContain('soap');
  });

  it('refuses JWT mode without an admin secret', async () => {
    const { code, output } = await runCli(['serve'], { SERVICE_GRAPHQL_JWT_SECRET: '{"type":"HS256","key":"0123456789abcdef0123456789abcdef"}' });
    expect(code).toBe(1);
    expect(output).toContain('needs an admin secret');
  });

  it('stops before starting anything when the JWT config is bad, naming the key', async () => {
    const { code, output } = await runCli(['serve'], { SERVICE_GRAPHQL_ADMIN_SECRET: 's', SERVICE_GRAPHQL_JWT_SECRET: '{"type":"HS256","key":"too short"}' });
    expect(code).toBe(1);
    expect(output).toContain('SERVICE_GRAPHQL_JWT_SECRET');
    expect(output).toContain('key');
    expect(output).not.toContain('embedded PostgreSQL');
  });

  it('stops with exit 1 naming both fixes when no local NATS answers and nats-server is not on PATH', async () => {
    const { code, output } = await runCli(['serve'], { SERVICE_GRAPHQL_NATS_URL: `nats://127.0.0.1:${await freePort()}`, PATH: '/nonexistent' });
    expect(code).toBe(1);
    expect(output).toContain('SERVICE_GRAPHQL_NATS_URL');
    expect(output).toContain('nats-server on PATH');
  });
});

describe('a failed start-up', () => {
  it('stops the NATS server it started itself before exiting', async () => {
    const { listening } = await import('../../src/bus/local-nats.js');
    const natsPort = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'engine-failed-'));
    const { code, output } = await runCli(['serve'], {
      SERVICE_GRAPHQL_NATS_URL: `nats://127.0.0.1:${natsPort}`,
      SERVICE_GRAPHQL_DATA_DIR: dataDir,
      // Nothing listens there: the schema actor cannot set up its store.
      SERVICE_GRAPHQL_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
      SERVICE_GRAPHQL_SERVER_PORT: '0',
      SERVICE_GRAPHQL_SERVER_HOST: '127.0.0.1',
    }, 60_000);
    expect(code).toBe(1);
    expect(output).toContain('failed to start');
    expect(await listening('127.0.0.1', natsPort)).toBe(false);
  }, 90_000);
});

describe('a fresh start on the embedded defaults', () => {
  it('starts its own NATS and PostgreSQL, serves /healthz and the config API to admin only', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'engine-data-'));
    // As root, PostgreSQL runs as the `postgres` user, which must be able to reach its data.
    chmodSync(dataDir, 0o755);
    const engine = await spawnEngineProcess({
      SERVICE_GRAPHQL_DATA_DIR: dataDir,
      SERVICE_GRAPHQL_EMBEDDED_PG_PORT: String(await freePort()),
      SERVICE_GRAPHQL_NATS_URL: `nats://127.0.0.1:${await freePort()}`,
      SERVICE_GRAPHQL_SERVER_HOST: '127.0.0.1',
      SERVICE_GRAPHQL_SERVER_PORT: '0',
      SERVICE_GRAPHQL_ADMIN_SECRET: 'fresh-secret',
    });
    try {
      const health = await http('GET', `${engine.url}/healthz`);
      expect(health.status).toBe(200);
      expect(health.text).toBe('OK');
      const config = await http('GET', `${engine.url}/v1alpha1/config`, undefined, { 'x-service-admin-secret': 'fresh-secret' });
      expect(config.status).toBe(200);
      expect(config.json).toMatchObject({
        version: expect.any(String),
        is_admin_secret_set: true,
        is_auth_hook_set: false,
        is_jwt_set: false,
        is_allow_list_enabled: false,
        live_queries: { batch_size: 100, refetch_delay: 1 },
      });
      const refused = await http('GET', `${engine.url}/v1alpha1/config`);
      expect(refused.status).toBe(401);
      expect(refused.json.code).toBe('access-denied');
      expect(engine.output()).toContain('using the embedded PostgreSQL');
    } finally {
      await engine.stop();
    }
  }, 120_000);

  it('warns loudly at start-up when no admin secret is set', async () => {
    const db = await createTestDatabase();
    const engine = await spawnEngineProcess(engineEnv(db.url, testPrefix()));
    try {
      expect(engine.output()).toContain('NO ADMIN SECRET IS SET');
    } finally {
      await engine.stop();
      await db.drop();
    }
  });
});

describe('a process running a subset of the actors', () => {
  let db: TestDatabase;
  let edgeOnly: TestEngine;

  beforeAll(async () => {
    db = await createTestDatabase();
    edgeOnly = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ACTORS: 'edge,auth' } });
  });

  afterAll(async () => {
    await edgeOnly?.stop();
    await db?.drop();
  });

  it('answers 503 when no instance runs the actor a route needs', async () => {
    const query = await edgeOnly.query({ type: 'export_metadata', args: {} });
    expect(query.status).toBe(503);
    expect(query.json.code).toBe('unavailable');
    const health = await edgeOnly.get('/healthz');
    expect(health.status).toBe(503);
  });

  it('serves once another process runs the missing actor on the same prefix', async () => {
    const schemaOnly = await startTestEngine({ databaseUrl: db.url, prefix: edgeOnly.prefix, env: { SERVICE_GRAPHQL_ACTORS: 'schema' } });
    try {
      const query = await edgeOnly.query({ type: 'export_metadata', args: {} });
      expect(query.status).toBe(200);
      expect(query.json.version).toBe(3);
    } finally {
      await schemaOnly.stop();
    }
  });
});

describe('monitor', () => {
  it('prints every instance and actor of the cluster', async () => {
    const db = await createTestDatabase();
    const engine = await startTestEngine({ databaseUrl: db.url });
    try {
      await engine.query({ type: 'export_metadata', args: {} });
      const { code, output } = await runCli(['monitor', '--once'], { SERVICE_GRAPHQL_NATS_URL: inject('natsUrl'), SERVICE_GRAPHQL_NATS_PREFIX: engine.prefix, SERVICE_GRAPHQL_LOG_LEVEL: 'silent' });
      expect(code).toBe(0);
      expect(output).toContain('INSTANCE');
      for (const actor of ['edge', 'auth', 'schema']) expect(output).toContain(` ${actor} `);
      expect(output).toContain(engine.engine.instance);
    } finally {
      await engine.stop();
      await db.drop();
    }
  });
});
