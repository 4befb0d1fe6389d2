import type { TestProject } from 'vitest/node';
import { listening, findOnPath } from '../../src/bus/local-nats.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/pg/embedded.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the PostgreSQL the tests create their databases on. */
    postgresUrl: string;
    /** URL of the NATS server the tests use (each test file on its own subject prefix). */
    natsUrl: string;
  }
}

/**
 * One PostgreSQL and one NATS for the whole run. PostgreSQL: SERVICE_GRAPHQL_TEST_DATABASE_URL
 * if set, else the embedded server (wal_level=logical, data in .data/test-pg, reused across
 * runs). NATS: SERVICE_GRAPHQL_TEST_NATS_URL if set, else the machine's at 127.0.0.1:4222,
 * else a nats-server from PATH on a free port.
 */
let database: EmbeddedDatabase | undefined;
let nats: ChildProcess | undefined;

export async function setup(project: TestProject): Promise<void> {
  const configuredPg = process.env.SERVICE_GRAPHQL_TEST_DATABASE_URL;
  if (configuredPg !== undefined && configuredPg !== '') {
    project.provide('postgresUrl', configuredPg);
  } else {
    database = await startEmbeddedPostgres({ dataDir: '.data/test-pg', port: Number(process.env.SERVICE_GRAPHQL_TEST_PG_PORT ?? 5440) });
    project.provide('postgresUrl', database.url);
  }
  project.provide('natsUrl', await natsForTests());
}

export async function teardown(): Promise<void> {
  await database?.stop();
  nats?.kill('SIGTERM');
}

async function natsForTests(): Promise<string> {
  const configured = process.env.SERVICE_GRAPHQL_TEST_NATS_URL;
  if (configured !== undefined && configured !== '') return configured;
  if (await listening('127.0.0.1', 4222)) return 'nats://127.0.0.1:4222';
  const binary = findOnPath('nats-server');
  if (binary === null) throw new Error('tests need NATS: start one on 127.0.0.1:4222, set SERVICE_GRAPHQL_TEST_NATS_URL, or put nats-server on PATH');
  const port = 14222;
  nats = spawn(binary, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', mkdtempSync(join(tmpdir(), 'nats-test-'))], { stdio: 'ignore' });
  for (let i = 0; i < 100 && !(await listening('127.0.0.1', port, 200)); i++) await new Promise((r) => setTimeout(r, 100));
  return `nats://127.0.0.1:${port}`;
}
