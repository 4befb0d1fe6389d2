import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';
import { startWebhook, stopAll, trackTables, type Webhook } from './fixtures.js';

/**
 * Every path that adds a trigger puts its table in the publication, with REPLICA IDENTITY
 * FULL, in the metadata transaction: a change committed right after the request returns
 * is captured, without waiting for the lease holder to catch up (issue 8).
 */
let db: TestDatabase;
let engine: TestEngine;
let hook: Webhook;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql('create table first (id int primary key); create table second (id int primary key); create table third (id int primary key)');
  hook = await startWebhook();
  engine = await startTestEngine({ databaseUrl: db.url });
  await trackTables(engine, ['first', 'second', 'third']);
}, 60_000);

afterAll(async () => {
  await stopAll({ engine, hook, db });
});

// Retries let a delivery that fails on a busy machine (a keep-alive socket closing under
// the request) still arrive: these tests are about capture, and an event that was never
// captured never arrives, however many retries it has.
const trigger = (name: string) => ({ name, definition: { enable_manual: false, insert: { columns: '*' } }, retry_conf: { num_retries: 3, interval_sec: 1, timeout_sec: 60 }, webhook: hook.url });

/** The exported metadata with `triggers` (table -> trigger name) added. */
async function withTriggers(triggers: Record<string, string>): Promise<any> {
  const exported = (await engine.query({ type: 'export_metadata', args: {} })).json;
  for (const table of exported.sources[0].tables) {
    const name = triggers[table.table.name];
    if (name !== undefined) table.event_triggers = [...(table.event_triggers ?? []), trigger(name)];
  }
  return exported;
}

async function insertAtOnce(table: string, from: number, count: number): Promise<number[]> {
  const ids = Array.from({ length: count }, (_, i) => from + i);
  // One transaction per row, committed straight after the request returned.
  for (const id of ids) await db.sql(`insert into ${table} values ($1)`, [id]);
  return ids;
}

const deliveredOf = (triggerName: string) => hook.received.filter((request) => request.body.trigger.name === triggerName).map((request) => request.body.event.data.new.id as number);

/**
 * Waits until every id was delivered at least once. Counting requests is not enough:
 * delivery is at least once, so a duplicate can make the count before the last id arrives.
 */
async function waitForIds(triggerName: string, ids: number[], timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const delivered = new Set(deliveredOf(triggerName));
    if (ids.every((id) => delivered.has(id))) return;
    if (Date.now() > deadline) {
      const missing = ids.filter((id) => !delivered.has(id));
      const events = (await engine.query({ type: 'get_event_logs', args: { trigger_name: triggerName, limit: 1000 } })).json;
      const invocations = (await engine.query({ type: 'get_event_invocation_logs', args: { trigger_name: triggerName, limit: 1000 } })).json;
      throw new Error(`${triggerName}: ids ${missing.join(',')} not delivered within ${timeoutMs} ms; events ${JSON.stringify(events).slice(0, 3000)}; invocations ${JSON.stringify(invocations).slice(0, 3000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function replicaIdentity(table: string): Promise<string> {
  return (await db.sql('select relreplident::text as identity from pg_class where oid = $1::regclass', [table])).rows[0].identity;
}

async function published(): Promise<string[]> {
  return (await db.sql("select tablename::text as name from pg_publication_tables where pubname = 'service_graphql_events' order by 1")).rows.map((row: { name: string }) => row.name);
}

describe('replace_metadata that adds triggers', { timeout: 90_000 }, () => {
  it('captures the changes committed right after it returns, for the first trigger of the database', async () => {
    expect((await engine.query({ type: 'replace_metadata', args: await withTriggers({ first: 'first_insert' }) })).json).toEqual({ message: 'success' });
    const ids = await insertAtOnce('first', 1, 50);
    await waitForIds('first_insert', ids);
    expect(new Set(deliveredOf('first_insert'))).toEqual(new Set(ids));
    expect(await replicaIdentity('first')).toBe('f');
  });

  it('captures them for a table added while the slot is being read (version 2, in a bulk)', async () => {
    const metadata = await withTriggers({ second: 'second_insert' });
    const result = await engine.query({ type: 'bulk', args: [{ type: 'replace_metadata', version: 2, args: { metadata } }] });
    expect(result.status).toBe(200);
    // Every tracked table is published (the subscriptions' change feed); those with triggers with their whole old rows.
    expect(await published()).toEqual(['first', 'metadata', 'second', 'third']);
    expect(await replicaIdentity('second')).toBe('f');
    const ids = await insertAtOnce('second', 1, 50);
    await waitForIds('second_insert', ids);
    expect(new Set(deliveredOf('second_insert'))).toEqual(new Set(ids));
  });

  it('fires nothing for rows written before the trigger existed', async () => {
    await insertAtOnce('third', 1, 5);
    expect((await engine.query({ type: 'replace_metadata', args: await withTriggers({ third: 'third_insert' }) })).json).toEqual({ message: 'success' });
    const ids = await insertAtOnce('third', 100, 20);
    await waitForIds('third_insert', ids);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(new Set(deliveredOf('third_insert'))).toEqual(new Set(ids));
  });

  it('keeps tables without triggers in the publication while tracked, and takes untracked ones out in the same transaction', async () => {
    const exported = (await engine.query({ type: 'export_metadata', args: {} })).json;
    for (const table of exported.sources[0].tables) if (table.table.name !== 'first') delete table.event_triggers;
    expect((await engine.query({ type: 'replace_metadata', args: exported })).json).toEqual({ message: 'success' });
    expect(await published()).toEqual(['first', 'metadata', 'second', 'third']);
    exported.sources[0].tables = exported.sources[0].tables.filter((table: { table: { name: string } }) => table.table.name !== 'third');
    expect((await engine.query({ type: 'replace_metadata', args: exported })).json).toEqual({ message: 'success' });
    expect(await published()).toEqual(['first', 'metadata', 'second']);
  });
});
