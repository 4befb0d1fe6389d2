import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';
import { legacyClient, modernClient } from './clients.js';

const SECRET = 'subscriptions-secret';
const admin = { 'x-service-admin-secret': SECRET };
let db: TestDatabase;
let engine: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql('create table note (id int primary key, body text not null, owner text not null)');
  await db.sql("insert into note values (1, 'first', 'ann'), (2, 'second', 'bob')");
  engine = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET } });
  for (const operation of [
    { type: 'track_table', args: { table: 'note' } },
    { type: 'create_select_permission', args: { table: 'note', role: 'user', permission: { columns: ['id', 'body'], filter: { owner: { _eq: 'X-Service-User-Id' } } } } },
  ]) expect((await engine.query(operation)).status).toBe(200);
});

afterAll(async () => {
  await engine?.stop();
  await db?.drop();
});

describe('live queries', () => {
  it('answer at once and again when the rows change, over graphql-transport-ws', async () => {
    const { subscribe, close } = modernClient(engine.url, admin);
    const watch = subscribe('subscription { note(order_by: {id: asc}) { id body } }');
    expect((await watch.waitFor(1))[0]).toEqual({ data: { note: [{ id: 1, body: 'first' }, { id: 2, body: 'second' }] } });
    await db.sql("update note set body = 'changed' where id = 1");
    expect((await watch.waitFor(2))[1]).toEqual({ data: { note: [{ id: 1, body: 'changed' }, { id: 2, body: 'second' }] } });
    watch.stop();
    await close();
    await db.sql("update note set body = 'first' where id = 1");
  });

  it('answer over the legacy protocol, per role with session variables', async () => {
    const { subscribe, close, connected } = legacyClient(engine.url, { ...admin, 'x-service-role': 'user', 'x-service-user-id': 'bob' });
    expect(await connected).toBeNull();
    const watch = subscribe('subscription { note { id body } }');
    expect((await watch.waitFor(1))[0]).toEqual({ data: { note: [{ id: 2, body: 'second' }] } });
    close();
  });
});
