import type { TestProject } from 'vitest/node';
import { listening, findOnPath } from '../../src/bus/local-nats.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/pg/embedded.js';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { startPrivateNats, type PrivateNats } from './nats-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the PostgreSQL the tests create their databases on. */
    postgresUrl: string;
    /** URL of the NATS server the tests use (each test file on its own subject prefix). */
    natsUrl: string;
  }
}

let database: EmbeddedDatabase | undefined;
let dataDir: string | undefined;
let nats: PrivateNats | undefined;

/**
 * One PostgreSQL and one NATS for the whole run. PostgreSQL: SERVICE_GRAPHQL_TEST_DATABASE_URL
 * if set (it needs wal_level=logical for the event trigger tests), else an embedded server
 * with wal_level=logical, started for this run in a temporary directory. NATS: SERVICE_GRAPHQL_TEST_NATS_URL if set, else the machine's at 127.0.0.1:4222,
 * else a nats-server from PATH on a free port.
 */
export async function setup(project: TestProject): Promise<void> {
  const configuredPg = process.env.SERVICE_GRAPHQL_TEST_DATABASE_URL;
  if (configuredPg !== undefined && configuredPg !== '') {
    project.provide('postgresUrl', configuredPg);
  } else {
    // A server of this run's own (fresh data directory, free port), so that two runs at
    // once never stop each other's database.
    dataDir = mkdtempSync(join(tmpdir(), 'engine-test-pg-'));
    chmodSync(dataDir, 0o755);
    database = await startEmbeddedPostgres({ dataDir, port: await freePort() });
    project.provide('postgresUrl', database.url);
  }
  project.provide('natsUrl', await natsForTests());
}

export async function teardown(): Promise<void> {
  await database?.stop();
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  await nats?.kill();
}

async function natsForTests(): Promise<string> {
  const configured = process.env.SERVICE_GRAPHQL_TEST_NATS_URL;
  if (configured !== undefined && configured !== '') return configured;
  if (await listening('127.0.0.1', 4222)) return 'nats://127.0.0.1:4222';
  if (findOnPath('nats-server') === null) throw new Error('tests need NATS: start one on 127.0.0.1:4222, set SERVICE_GRAPHQL_TEST_NATS_URL, or put nats-server on PATH');
  nats = await startPrivateNats();
  return nats.url;
}
