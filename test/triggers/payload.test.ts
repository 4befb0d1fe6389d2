import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_MESSAGE_PREFIX } from '../../src/pg/replication/names.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';
import { type Received, startWebhook, stopAll, trackTables, type Webhook } from './fixtures.js';

let db: TestDatabase;
let engine: TestEngine;
let hook: Webhook;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const byTrigger = (name: string) => (request: Received) => request.body?.trigger?.name === name;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql(`
    create table author (id serial primary key, name text, bio text, age int);
    create table typed (id bigint primary key, amount numeric, flag boolean, doc jsonb, at timestamptz, plain timestamp, day date, tags text[], nums int[]);
    create table note (id int primary key, body text, status text);
  `);
  process.env.TRIGGER_TEST_SECRET = 's3cret';
  hook = await startWebhook();
  engine = await startTestEngine({ databaseUrl: db.url });
  await trackTables(engine, ['author', 'typed', 'note']);
  const create = (args: Record<string, unknown>) => engine.query({ type: 'create_event_trigger', args: { webhook: hook.url, ...args } });
  for (const result of await Promise.all([
    create({
      name: 'author_all',
      table: { schema: 'public', name: 'author' },
      insert: { columns: '*' },
      update: { columns: ['name'] },
      delete: { columns: '*' },
      enable_manual: true,
      headers: [{ name: 'X-Static', value: 'v' }, { name: 'X-Secret', value_from_env: 'TRIGGER_TEST_SECRET' }, { name: 'User-Agent', value: 'overridden' }],
    }),
    create({ name: 'author_payload', table: 'author', update: { columns: ['age'], payload: ['id', 'age'] } }),
    create({ name: 'typed_insert', table: 'typed', insert: { columns: '*' } }),
    create({ name: 'note_update', table: 'note', update: { columns: '*' } }),
  ])) {
    expect(result.json).toEqual({ message: 'success' });
  }
}, 60_000);

afterAll(async () => {
  await stopAll({ engine, hook, db });
});

describe('event payloads (compat-facts 4.1)', () => {
  it('delivers an INSERT with old null, the default and configured headers, and a stable shape', async () => {
    await db.sql(`insert into author (name, bio, age) values ('Ann', 'b', 30)`);
    const [request] = await hook.waitFor(1, 20_000, byTrigger('author_all'));
    expect(request!.body).toMatchObject({
      event: { session_variables: null, op: 'INSERT', data: { old: null, new: { id: 1, name: 'Ann', bio: 'b', age: 30 } }, trace_context: null },
      delivery_info: { max_retries: 0, current_retry: 0 },
      trigger: { name: 'author_all' },
      table: { schema: 'public', name: 'author' },
    });
    expect(Object.keys(request!.body)).toEqual(['event', 'created_at', 'id', 'delivery_info', 'trigger', 'table']);
    expect(request!.body.id).toMatch(UUID);
    expect(request!.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['user-agent']).toMatch(/^service-graphql-engine\/v/);
    expect(request!.headers['accept-encoding']).toBe('gzip, deflate, br');
    expect(request!.headers['content-length']).toBe(String(Buffer.byteLength(request!.raw)));
    expect(request!.headers['x-static']).toBe('v');
    expect(request!.headers['x-secret']).toBe('s3cret');
  });

  it('fires an UPDATE only when a listed column changed, with payload columns only', async () => {
    hook.received.length = 0;
    await db.sql(`update author set bio = 'changed' where id = 1`); // neither name nor age: no event
    await db.sql(`update author set age = 31 where id = 1`); // author_payload only
    await db.sql(`update author set name = 'Anna' where id = 1`); // author_all only
    const [ageEvent] = await hook.waitFor(1, 20_000, byTrigger('author_payload'));
    const [nameEvent] = await hook.waitFor(1, 20_000, (r) => byTrigger('author_all')(r) && r.body.event.op === 'UPDATE');
    expect(ageEvent!.body.event.data).toEqual({ old: { id: 1, age: 30 }, new: { id: 1, age: 31 } });
    expect(nameEvent!.body.event.data).toEqual({ old: { id: 1, name: 'Ann', bio: 'changed', age: 31 }, new: { id: 1, name: 'Anna', bio: 'changed', age: 31 } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hook.received.filter((r) => r.body.event.op === 'UPDATE')).toHaveLength(2);
  });

  it('delivers a DELETE with new null and the whole old row', async () => {
    await db.sql(`insert into author (name, bio, age) values ('Bob', null, 40)`);
    await db.sql(`delete from author where name = 'Bob'`);
    const [request] = await hook.waitFor(1, 20_000, (r) => r.body.event.op === 'DELETE');
    expect(request!.body.event.data).toEqual({ old: { id: 2, name: 'Bob', bio: null, age: 40 }, new: null });
  });

  it('delivers a MANUAL event from invoke_event_trigger with the caller\'s session', async () => {
    const invoked = await engine.query({ type: 'invoke_event_trigger', args: { name: 'author_all', payload: { id: 7, anything: ['x'] } } });
    expect(invoked.status).toBe(200);
    expect(invoked.json.event_id).toMatch(UUID);
    const [request] = await hook.waitFor(1, 20_000, (r) => r.body.id === invoked.json.event_id);
    expect(request!.body.event).toMatchObject({ op: 'MANUAL', data: { old: null, new: { id: 7, anything: ['x'] } } });
    expect(request!.body.event.session_variables).toMatchObject({ 'x-service-role': 'admin' });
  });

  it('writes values as to_json does: numbers keep their digits, json stays json, timestamps get a T', async () => {
    await db.sql(`insert into typed values (9007199254740993, 12345678901234567890.12345, true, '{"a":[1,2]}', '2024-03-05 10:21:43.512347+00', '2024-03-05 10:21:43', '2024-03-05', '{a,"b c",NULL}', '{1,2,3}')`);
    const [request] = await hook.waitFor(1, 20_000, byTrigger('typed_insert'));
    expect(request!.raw).toContain('"id":9007199254740993');
    expect(request!.raw).toContain('"amount":12345678901234567890.12345');
    expect(request!.body.event.data.new).toMatchObject({
      flag: true,
      doc: { a: [1, 2] },
      plain: '2024-03-05T10:21:43',
      day: '2024-03-05',
      tags: ['a', 'b c', null],
      nums: [1, 2, 3],
    });
    expect(request!.body.event.data.new.at).toMatch(/^2024-03-05T\d\d:21:43\.512347[+-]\d\d:\d\d$/);
  });

  it('takes unchanged TOAST values from the old row instead of delivering null', async () => {
    const big = 'x'.repeat(200_000) + Math.random().toString(36); // stored out of line, compressed poorly enough
    await db.sql('alter table note alter column body set storage external');
    await db.sql('insert into note values (1, $1, $2)', [big, 'draft']);
    await db.sql(`update note set status = 'published' where id = 1`);
    const [request] = await hook.waitFor(1, 20_000, byTrigger('note_update'));
    expect(request!.body.event.data.new.status).toBe('published');
    expect(request!.body.event.data.new.body).toBe(big);
    expect(request!.body.event.data.old.body).toBe(big);
  });

  it('carries the session variables a transaction emitted as its session message', async () => {
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      const variables = { 'x-service-role': 'user', 'x-service-user-id': '42' };
      await client.query('select pg_logical_emit_message(true, $1, $2::text)', [SESSION_MESSAGE_PREFIX, JSON.stringify(variables)]);
      await client.query(`insert into author (name, age) values ('Session', 1)`);
      await client.query('commit');
    } finally {
      client.release();
    }
    const [request] = await hook.waitFor(1, 20_000, (r) => r.body.event.data?.new?.name === 'Session');
    expect(request!.body.event.session_variables).toEqual({ 'x-service-role': 'user', 'x-service-user-id': '42' });
  });

  it('is carried by export_metadata in Hasura\'s form', async () => {
    const exported = await engine.query({ type: 'export_metadata', args: {} });
    const author = exported.json.sources[0].tables.find((t: any) => t.table.name === 'author');
    expect(author.event_triggers.map((t: any) => t.name)).toEqual(['author_all', 'author_payload']);
    expect(author.event_triggers[1]).toEqual({
      name: 'author_payload',
      definition: { enable_manual: false, update: { columns: ['age'], payload: ['id', 'age'] } },
      retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 },
      webhook: hook.url,
    });
  });
});
