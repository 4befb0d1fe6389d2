import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/pg/embedded.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';
import { startPrivateNats, type PrivateNats } from '../harness/nats-server.js';
import { freePort } from '../harness/free-port.js';
import { eventually, sleep, startWebhook, type Webhook } from './fixtures.js';

/**
 * NATS and PostgreSQL restarts during a burst. Both are private to this file: a NATS the
 * test stops for 10 s, and a PostgreSQL of its own (the run's shared one serves other
 * files) that it restarts.
 */
let nats: PrivateNats;
let postgres: EmbeddedDatabase;
let engine: TestEngine;
let hook: Webhook;
let client: pg.Pool;
const PG_DIR = '.data/test-pg-triggers';
let pgPort: number;
let databaseUrl: string;

beforeAll(async () => {
  pgPort = await freePort();
  [nats, postgres] = await Promise.all([startPrivateNats(), startEmbeddedPostgres({ dataDir: PG_DIR, port: pgPort })]);
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  await admin.query('select pg_drop_replication_slot(slot_name) from pg_replication_slots');
  await admin.query('drop database if exists outages with (force)');
  await admin.query('create database outages');
  await admin.end();
  databaseUrl = postgres.url.replace(/\/postgres$/, '/outages');
  client = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  client.on('error', () => undefined);
  await client.query('create table item (id int primary key, phase text)');
  hook = await startWebhook();
  engine = await startTestEngine({ databaseUrl, env: { SERVICE_GRAPHQL_NATS_URL: nats.url, SERVICE_GRAPHQL_BUS_TIMEOUT_MS: '5000' } });
  expect((await engine.query({ type: 'track_table', args: { table: 'item' } })).status).toBe(200);
  const created = await engine.query({ type: 'create_event_trigger', args: { name: 'item_insert', table: 'item', webhook: hook.url, insert: { columns: '*' } } });
  expect(created.json).toEqual({ message: 'success' });
}, 120_000);

afterAll(async () => {
  await engine?.stop();
  await hook?.close();
  await client?.end();
  await nats?.kill();
  await postgres?.stop();
});

/** Inserts rows `from..to` in transactions of 20, `pauseMs` apart, each retried until it commits (idempotent). */
async function burst(from: number, to: number, phase: string, pauseMs: number): Promise<void> {
  for (let start = from; start <= to; start += 20) {
    const ids = Array.from({ length: Math.min(20, to - start + 1) }, (_, i) => start + i);
    for (;;) {
      try {
        await client.query('insert into item (id, phase) select id, $2 from unnest($1::int[]) as id on conflict do nothing', [ids, phase]);
        break;
      } catch {
        await sleep(200);
      }
    }
    await sleep(pauseMs);
  }
}

async function expectAllDelivered(phase: string): Promise<void> {
  const rows = (await client.query<{ id: number }>('select id from item where phase = $1', [phase])).rows.map((row) => row.id);
  expect(rows.length).toBeGreaterThan(0);
  await eventually(() => {
    const delivered = new Set(hook.received.filter((r) => r.body.event.data.new.phase === phase).map((r) => r.body.event.data.new.id));
    return rows.every((id) => delivered.has(id));
  }, 60_000, `every ${phase} row delivered`);
}

describe('NATS stopped for 10 s during a burst', () => {
  it('loses nothing: every row changed before, during and after is delivered', async () => {
    // 100 transactions over ~5 s: before, during and (retried) after the outage.
    const writing = burst(1, 2_000, 'nats', 50);
    await sleep(500);
    await nats.kill();
    await sleep(10_000);
    await nats.start();
    await writing;
    await expectAllDelivered('nats');
  }, 120_000);
});

describe('PostgreSQL restarted during a burst', () => {
  it('loses nothing: the reader reconnects and resumes from the last stored transaction', async () => {
    const writing = burst(10_001, 12_000, 'postgres', 20);
    await sleep(500);
    await postgres.stop();
    await sleep(2_000);
    postgres = await startEmbeddedPostgres({ dataDir: PG_DIR, port: pgPort });
    await writing;
    await expectAllDelivered('postgres');
  }, 120_000);
});
