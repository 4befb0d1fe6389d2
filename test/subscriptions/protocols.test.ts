import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';
import { legacyClient, modernClient } from './clients.js';
import { openDeafSocket, openRaw } from './raw-socket.js';

/**
 * Both WebSocket protocols at their edges: authentication in connection_init (admin
 * secret, JWT, the unauthorized role), their refusals and close codes, bad frames, the
 * per-connection cap and a client that does not read. None of it takes the server down.
 */
const SECRET = 'protocols-secret';
const JWT_KEY = 'a-shared-secret-of-at-least-32-characters!';
const admin = { 'x-service-admin-secret': SECRET };
let db: TestDatabase;
let engine: TestEngine;

const jwt = (claims: Record<string, unknown>, expiresIn: string | number) =>
  new SignJWT({ 'https://service.io/jwt/claims': claims }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(expiresIn).sign(new TextEncoder().encode(JWT_KEY));

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql("create table note (id int primary key, body text not null, owner text not null); insert into note select g, 'note ' || g, 'ann' from generate_series(1, 3) g");
  engine = await startTestEngine({
    databaseUrl: db.url,
    env: {
      SERVICE_GRAPHQL_ADMIN_SECRET: SECRET,
      SERVICE_GRAPHQL_JWT_SECRET: JSON.stringify({ type: 'HS256', key: JWT_KEY }),
      SERVICE_GRAPHQL_UNAUTHORIZED_ROLE: 'guest',
      SERVICE_GRAPHQL_WEBSOCKET_MAX_SUBSCRIPTIONS: '3',
      SERVICE_GRAPHQL_WEBSOCKET_MAX_BUFFERED_BYTES: String(64 * 1024),
      SERVICE_GRAPHQL_WEBSOCKET_CONNECTION_INIT_TIMEOUT: '1',
    },
  });
  for (const operation of [
    { type: 'track_table', args: { table: 'note' } },
    { type: 'create_select_permission', args: { table: 'note', role: 'user', permission: { columns: ['id', 'body'], filter: { owner: { _eq: 'X-Service-User-Id' } } } } },
    { type: 'create_select_permission', args: { table: 'note', role: 'guest', permission: { columns: ['id'], filter: {} } } },
  ]) expect((await engine.query(operation)).status).toBe(200);
});

afterAll(async () => {
  await engine?.stop();
  await db?.drop();
});

const NOTES = 'subscription { note(order_by: {id: asc}) { id } }';

describe('authentication in connection_init', () => {
  it('takes a JWT from payload.headers, with its role and session variables', async () => {
    const token = await jwt({ 'x-service-allowed-roles': ['user'], 'x-service-default-role': 'user', 'x-service-user-id': 'ann' }, '1h');
    const { subscribe, close } = modernClient(engine.url, { authorization: `Bearer ${token}` });
    const watch = subscribe('subscription { note(order_by: {id: asc}) { id body } }');
    expect((await watch.waitFor(1))[0]).toEqual({ data: { note: [{ id: 1, body: 'note 1' }, { id: 2, body: 'note 2' }, { id: 3, body: 'note 3' }] } });
    await close();
  });

  it('serves the unauthorized role to a connection without credentials', async () => {
    const { subscribe, close } = modernClient(engine.url, {});
    expect((await subscribe(NOTES).waitFor(1))[0]).toEqual({ data: { note: [{ id: 1 }, { id: 2 }, { id: 3 }] } });
    await close();
  });

  it('refuses a wrong secret: close 4403 (graphql-transport-ws)', async () => {
    const socket = await openRaw(engine.url, ['graphql-transport-ws']);
    socket.send({ type: 'connection_init', payload: { headers: { 'x-service-admin-secret': 'wrong' } } });
    expect((await socket.closed).code).toBe(4403);
  });

  it('refuses a wrong secret: connection_error, then close 4400 (legacy)', async () => {
    const socket = await openRaw(engine.url, ['graphql-ws']);
    socket.send({ type: 'connection_init', payload: { headers: { 'x-service-admin-secret': 'wrong' } } });
    expect(await socket.next((frame) => frame.type === 'connection_error')).toEqual({ type: 'connection_error', payload: 'invalid x-service-admin-secret/x-service-access-key' });
    expect((await socket.closed).code).toBe(4400);
  });

  it('tells the legacy client why, through its connection callback', async () => {
    const client = legacyClient(engine.url, { 'x-service-admin-secret': 'wrong' });
    expect(await client.connected).toBe('invalid x-service-admin-secret/x-service-access-key');
    client.close();
  });

  it('ends the connection when the JWT expires, with an error first', async () => {
    const token = await jwt({ 'x-service-allowed-roles': ['user'], 'x-service-default-role': 'user', 'x-service-user-id': 'ann' }, Math.floor(Date.now() / 1000) + 2);
    const modern = await openRaw(engine.url, ['graphql-transport-ws']);
    modern.send({ type: 'connection_init', payload: { headers: { authorization: `Bearer ${token}` } } });
    await modern.next((frame) => frame.type === 'connection_ack');
    modern.send({ id: '1', type: 'subscribe', payload: { query: NOTES } });
    await modern.next((frame) => frame.type === 'next');
    const legacy = await openRaw(engine.url, ['graphql-ws']);
    legacy.send({ type: 'connection_init', payload: { headers: { authorization: `Bearer ${token}` } } });
    await legacy.next((frame) => frame.type === 'connection_ack');

    expect(await modern.next((frame) => frame.type === 'error', 5_000)).toEqual({ id: '1', type: 'error', payload: [{ message: 'Could not verify JWT: JWTExpired', extensions: { path: '$', code: 'invalid-jwt' } }] });
    expect((await modern.closed).code).toBe(4403);
    expect(await legacy.next((frame) => frame.type === 'connection_error', 5_000)).toEqual({ type: 'connection_error', payload: 'Could not verify JWT: JWTExpired' });
    expect((await legacy.closed).code).toBe(4400);
  });
});

describe('graphql-transport-ws refusals (graphql-ws close codes)', () => {
  it('closes 4401 on a subscribe before the ack', async () => {
    const socket = await openRaw(engine.url, ['graphql-transport-ws']);
    socket.send({ id: '1', type: 'subscribe', payload: { query: NOTES } });
    expect((await socket.closed).code).toBe(4401);
  });

  it('closes 4409 on a subscription id already running', async () => {
    const socket = await openRaw(engine.url, ['graphql-transport-ws']);
    socket.send({ type: 'connection_init', payload: { headers: admin } });
    await socket.next((frame) => frame.type === 'connection_ack');
    socket.send({ id: 'same', type: 'subscribe', payload: { query: NOTES } });
    await socket.next((frame) => frame.type === 'next');
    socket.send({ id: 'same', type: 'subscribe', payload: { query: NOTES } });
    expect((await socket.closed).code).toBe(4409);
  });

  it('closes 4400 on a malformed frame and 4408 when no init comes', async () => {
    const malformed = await openRaw(engine.url, ['graphql-transport-ws']);
    malformed.send('{not json');
    expect((await malformed.closed).code).toBe(4400);
    const silent = await openRaw(engine.url, ['graphql-transport-ws']);
    expect((await silent.closed).code).toBe(4408);
  });

  it('answers an invalid document with an error message and keeps the connection', async () => {
    const socket = await openRaw(engine.url, ['graphql-transport-ws']);
    socket.send({ type: 'connection_init', payload: { headers: admin } });
    await socket.next((frame) => frame.type === 'connection_ack');
    socket.send({ id: 'bad', type: 'subscribe', payload: { query: 'subscription { nope }' } });
    expect(await socket.next((frame) => frame.type === 'error')).toEqual({ id: 'bad', type: 'error', payload: [{ message: "field 'nope' not found in type: 'subscription_root'", extensions: { path: '$.selectionSet.nope', code: 'validation-failed' } }] });
    socket.send({ id: 'two', type: 'subscribe', payload: { query: 'subscription { note { id } other: note { id } }' } });
    expect(await socket.next((frame) => frame.type === 'error')).toEqual({ id: 'two', type: 'error', payload: [{ message: 'subscriptions must select one top level field', extensions: { path: '$', code: 'validation-failed' } }] });
    socket.send({ id: 'good', type: 'subscribe', payload: { query: NOTES } });
    expect(await socket.next((frame) => frame.type === 'next')).toMatchObject({ id: 'good', payload: { data: { note: [{ id: 1 }, { id: 2 }, { id: 3 }] } } });
    socket.socket.close();
  });

  it('answers a query and a mutation over the socket, then completes them', async () => {
    const { client, close } = modernClient(engine.url, admin);
    const result = await new Promise((resolve, reject) => {
      let value: unknown;
      client.subscribe({ query: '{ note(where: {id: {_eq: 2}}) { body } }' }, { next: (next) => (value = next), error: reject, complete: () => resolve(value) });
    });
    expect(result).toEqual({ data: { note: [{ body: 'note 2' }] } });
    await close();
  });
});

describe('legacy protocol refusals (Hasura frames)', () => {
  it('sends ka at once, and again after the ack', async () => {
    const socket = await openRaw(engine.url, ['graphql-ws']);
    expect(await socket.next(() => true)).toEqual({ type: 'ka' });
    socket.send({ type: 'connection_init', payload: { headers: admin } });
    expect(await socket.next(() => true)).toEqual({ type: 'connection_ack' });
    expect(await socket.next(() => true)).toEqual({ type: 'ka' });
    socket.socket.close();
  });

  it('is what a client naming no subprotocol speaks, and none is echoed', async () => {
    const socket = await openRaw(engine.url, []);
    expect(socket.protocol).toBe('');
    socket.send({ type: 'connection_init', payload: { headers: admin } });
    await socket.next((frame) => frame.type === 'connection_ack');
    socket.send({ id: '1', type: 'start', payload: { query: NOTES } });
    expect(await socket.next((frame) => frame.type === 'data')).toEqual({ type: 'data', id: '1', payload: { data: { note: [{ id: 1 }, { id: 2 }, { id: 3 }] } } });
    socket.socket.close();
  });

  it('refuses a start before the init, a duplicate id and a bad document, keeping the connection', async () => {
    const socket = await openRaw(engine.url, ['graphql-ws']);
    socket.send({ id: '1', type: 'start', payload: { query: NOTES } });
    expect(await socket.next((frame) => frame.type === 'error')).toEqual({ type: 'error', id: '1', payload: { message: 'start received before the connection is initialised', extensions: { path: '$', code: 'start-failed' } } });
    expect(await socket.next((frame) => frame.type === 'complete')).toEqual({ type: 'complete', id: '1' });
    socket.send({ type: 'connection_init', payload: { headers: admin } });
    await socket.next((frame) => frame.type === 'connection_ack');
    socket.send({ id: '1', type: 'start', payload: { query: NOTES } });
    await socket.next((frame) => frame.type === 'data');
    socket.send({ id: '1', type: 'start', payload: { query: NOTES } });
    expect(await socket.next((frame) => frame.type === 'error')).toMatchObject({ id: '1', payload: { message: 'an operation already exists with this id: 1', extensions: { code: 'start-failed' } } });
    socket.send({ id: '2', type: 'start', payload: { query: 'subscription {' } });
    expect(await socket.next((frame) => frame.type === 'error')).toEqual({ type: 'error', id: '2', payload: { errors: [{ message: 'not a valid graphql query', extensions: { path: '$.query', code: 'validation-failed' } }] } });
    socket.send('{"type": 42}');
    expect(await socket.next((frame) => frame.type === 'connection_error')).toMatchObject({ payload: expect.stringContaining('parsing ClientMessage failed') });
    socket.send({ type: 'who-knows' });
    expect(await socket.next((frame) => frame.type === 'connection_error')).toMatchObject({ payload: expect.stringContaining('unexpected type') });
    socket.send({ id: '3', type: 'start', payload: { query: NOTES } });
    expect(await socket.next((frame) => frame.type === 'data' && frame.id === '3')).toBeDefined();
    socket.send({ type: 'connection_terminate' });
    expect(await socket.closed).toEqual({ code: 1000, reason: 'GQL_CONNECTION_TERMINATE received' });
  });

  it("refuses a subscription over HTTP, with Hasura's error", async () => {
    expect((await engine.graphql({ query: NOTES })).json).toEqual({ errors: [{ message: 'subscriptions are not supported over HTTP, use websockets instead', extensions: { path: '$', code: 'unexpected-payload' } }] });
  });
});

describe('limits', () => {
  it('refuses a subscription beyond the cap of one connection, and serves the others', async () => {
    const socket = await openRaw(engine.url, ['graphql-transport-ws']);
    socket.send({ type: 'connection_init', payload: { headers: admin } });
    await socket.next((frame) => frame.type === 'connection_ack');
    for (const id of ['a', 'b', 'c']) socket.send({ id, type: 'subscribe', payload: { query: NOTES } });
    for (const id of ['a', 'b', 'c']) await socket.next((frame) => frame.type === 'next' && frame.id === id);
    socket.send({ id: 'd', type: 'subscribe', payload: { query: NOTES } });
    expect(await socket.next((frame) => frame.type === 'error')).toMatchObject({ id: 'd', payload: [{ extensions: { code: 'limit-exceeded' } }] });
    socket.send({ id: 'a', type: 'complete' });
    socket.send({ id: 'e', type: 'subscribe', payload: { query: NOTES } });
    expect(await socket.next((frame) => frame.type === 'next' && frame.id === 'e')).toBeDefined();
    socket.socket.close();
  });

  it('disconnects a client that does not read, and frees its subscriptions', async () => {
    const subscriptions = async (): Promise<number> => {
      // The engine answers the ping from its event loop, which the 6 MB results below keep
      // busy: a window can pass without its answer, so ask again.
      for (let attempt = 0; attempt < 50; attempt++) {
        const replies = await engine.engine.bus.gather<{ actor: string; gauges: Record<string, number> }>(engine.engine.bus.subjects.monitorPing, {}, 200);
        const reply = replies.find((candidate) => candidate.actor === 'subscriptions');
        if (reply !== undefined) return reply.gauges.subscriptions!;
      }
      throw new Error('the subscriptions actor did not answer the monitor ping');
    };
    const settled = async (count: number) => {
      const deadline = Date.now() + 10_000;
      while ((await subscriptions()) !== count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      return subscriptions();
    };
    // The earlier tests' connections have closed, and their subscriptions with them.
    expect(await settled(0)).toBe(0);
    // The legacy protocol takes starts sent before the ack (they wait for the init), so this client need not read at all.
    const queries = [0, 1, 2].map((id) => ({ id: String(id), type: 'start', payload: { query: `subscription { note(where: {id: {_gte: ${id}}}) { id body } }` } }));
    const deaf = await openDeafSocket(engine.url, 'graphql-ws', [{ type: 'connection_init', payload: { headers: admin } }, ...queries]);
    expect(await settled(3)).toBe(3);
    await db.sql("insert into note select g, repeat('x', 20000), 'ann' from generate_series(100, 400) g");
    // Each result is some 6 MB: the kernel's socket buffers fill within a few, then the
    // server's; the server then drops the client, which shows as its subscriptions ending.
    // (The client itself cannot tell: the server's FIN waits behind the bytes it never reads.)
    const until = Date.now() + 20_000;
    for (let round = 0; (await subscriptions()) !== 0 && Date.now() < until; round++) {
      await db.sql(`update note set body = body || '${round % 10}' where id >= 100`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await subscriptions()).toBe(0);
    deaf.destroy();
    await db.sql('delete from note where id >= 100');
  });
});
