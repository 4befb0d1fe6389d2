import type { TestProject } from 'vitest/node';
import { listening, findOnPath } from '../../src/bus/local-nats.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/pg/embedded.js';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { deleteStreams } from './jetstream-cleanup.js';
import { startPrivateNats, type PrivateNats } from './nats-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the PostgreSQL the tests create their databases on. */
    postgresUrl: string;
    /** URL of the NATS server the tests use (each test file on its own subject prefix). */
    natsUrl: string;
    /** This run's id, the start of every test prefix after its `t` (harness/engine.ts testPrefix). */
    testRun: string;
  }
}

let database: EmbeddedDatabase | undefined;
let dataDir: string | undefined;
let nats: PrivateNats | undefined;
let sharedNatsUrl: string | undefined;
/** Four hex digits: two runs at once on one NATS each delete only their own streams. */
const testRun = randomBytes(2).toString('hex');

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
  const natsUrl = await natsForTests();
  if (nats === undefined) sharedNatsUrl = natsUrl;
  project.provide('natsUrl', natsUrl);
  project.provide('testRun', testRun);
}

export async function teardown(): Promise<void> {
  await database?.stop();
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  await nats?.kill();
  // A NATS that outlives the run keeps the streams the run's engines made: delete them.
  const ours = new RegExp(`^(T${testRun.toUpperCase()}[0-9A-F]{6}_|KV_t${testRun}[0-9a-f]{6}_)`);
  if (sharedNatsUrl !== undefined) await deleteStreams(sharedNatsUrl, (name) => ours.test(name));
}

async function natsForTests(): Promise<string> {
  const configured = process.env.SERVICE_GRAPHQL_TEST_NATS_URL;
  if (configured !== undefined && configured !== '') return configured;
  if (await listening('127.0.0.1', 4222)) return 'nats://127.0.0.1:4222';
  if (findOnPath('nats-server') === null) throw new Error('tests need NATS: start one on 127.0.0.1:4222, set SERVICE_GRAPHQL_TEST_NATS_URL, or put nats-server on PATH');
  nats = await startPrivateNats();
  return nats.url;
}
