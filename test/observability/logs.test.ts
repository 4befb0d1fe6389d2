import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { startEngine, type Engine } from '../../src/engine.js';
import { createLogger } from '../../src/log/logger.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { engineEnv, http, spawnEngineProcess, testPrefix } from '../harness/engine.js';
import { modernClient } from '../subscriptions/clients.js';

const SECRET = 'logs-secret';
const ADMIN = { 'x-service-admin-secret': SECRET };

type Line = Record<string, any>;

/** An engine in this process whose log lines (info and up) are kept for the test to read. */
async function engineWithLines(db: TestDatabase, env: Record<string, string> = {}): Promise<{ engine: Engine; lines: () => Line[] }> {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  const config = loadConfig(new Map(), engineEnv(db.url, testPrefix(), { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET, ...env }));
  const engine = await startEngine(config, createLogger('info', sink));
  return { engine, lines: () => text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Line) };
}

const graphql = (engine: Engine, body: unknown, headers: Record<string, string> = ADMIN) => http('POST', `${engine.url}/v1/graphql`, body, headers);

/** The first line `matches` accepts, once it is written. */
async function lineWhere(lines: () => Line[], matches: (line: Line) => boolean, what: string, timeoutMs = 1000): Promise<Line> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = lines().find(matches);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no ${what} line`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The http-log line of the request answered with `x-request-id: id`. */
const requestLine = (lines: () => Line[], id: string): Promise<Line> => lineWhere(lines, (line) => line.requestId === id && line.msg === 'request', `request ${id}`);

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('logs that answer questions', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.sql('create table author (id int primary key, name text not null); create table article (id int primary key, author_id int not null references author(id))');
    await db.sql("insert into author values (1, 'Ada')");
    const { engine } = await engineWithLines(db);
    try {
      for (const name of ['author', 'article']) {
        const tracked = await http('POST', `${engine.url}/v1/metadata`, { type: 'pg_track_table', args: { source: 'default', table: name } }, ADMIN);
        expect(tracked.status).toBe(200);
      }
      const permission = await http('POST', `${engine.url}/v1/metadata`, { type: 'pg_create_select_permission', args: { source: 'default', table: 'author', role: 'reader', permission: { columns: ['id', 'name'], filter: {} } } }, ADMIN);
      expect(permission.status).toBe(200);
    } finally {
      await engine.stop();
    }
  });

  afterAll(async () => {
    await db.drop();
  });

  describe('http-log of /v1/graphql', () => {
    let engine: Engine;
    let lines: () => Line[];

    beforeAll(async () => {
      ({ engine, lines } = await engineWithLines(db));
    });

    afterAll(async () => {
      await engine.stop();
    });

    it('says the operation, its hash, the role, the user and the time split of a success, with an ISO time', async () => {
      const query = 'query Authors { author { id name } }';
      const reply = await graphql(engine, { query, operationName: 'Authors' }, { ...ADMIN, 'x-service-role': 'reader', 'x-service-user-id': 'u-42', 'x-request-id': 'ok-1' });
      expect(reply.json).toEqual({ data: { author: [{ id: 1, name: 'Ada' }] } });
      const line = await requestLine(lines, 'ok-1');
      expect(line).toMatchObject({ type: 'http-log', path: '/v1/graphql', status: 200, operationName: 'Authors', operationType: 'query', role: 'reader', userId: 'u-42' });
      expect(line.errorCode).toBeUndefined();
      expect(line.queryHash).toMatch(/^[0-9a-f]{40}$/);
      expect(line.time).toMatch(ISO_TIME);
      for (const key of ['authMs', 'planMs', 'sqlMs', 'sendMs']) expect(typeof line[key]).toBe('number');
      expect(line.sqlMs).toBeGreaterThan(0);
    });

    it('gives the same query the same hash and another query another', async () => {
      const query = 'query Authors { author { id name } }';
      await graphql(engine, { query }, { ...ADMIN, 'x-request-id': 'hash-1' });
      await graphql(engine, { query }, { ...ADMIN, 'x-request-id': 'hash-2' });
      await graphql(engine, { query: '{ author { id } }' }, { ...ADMIN, 'x-request-id': 'hash-3' });
      const [first, second, third] = [await requestLine(lines, 'hash-1'), await requestLine(lines, 'hash-2'), await requestLine(lines, 'hash-3')];
      expect(first.queryHash).toBe(second.queryHash);
      expect(third.queryHash).not.toBe(first.queryHash);
    });

    it('logs a foreign-key violation with its error code, not like a success', async () => {
      const mutation = 'mutation AddArticle { insert_article_one(object: { id: 1, author_id: 99 }) { id } }';
      const reply = await graphql(engine, { query: mutation }, { ...ADMIN, 'x-request-id': 'fk-1' });
      expect(reply.json.errors[0].extensions.code).toBe('constraint-violation');
      const line = await requestLine(lines, 'fk-1');
      expect(line).toMatchObject({ type: 'http-log', status: 200, operationName: 'AddArticle', operationType: 'mutation', errorCode: 'constraint-violation', role: 'admin' });
    });

    it('logs a request refused before it ran with the refusal code', async () => {
      await graphql(engine, { query: '{ nothing_here }' }, { ...ADMIN, 'x-request-id': 'bad-1' });
      expect(await requestLine(lines, 'bad-1')).toMatchObject({ errorCode: 'validation-failed', role: 'admin' });
      await graphql(engine, { query: '{ author { id } }' }, { 'x-service-admin-secret': 'wrong', 'x-request-id': 'auth-1' });
      expect((await requestLine(lines, 'auth-1')).errorCode).toBe('access-denied');
    });

    it('logs the first failed member of a batch', async () => {
      await graphql(engine, [{ query: '{ author { id } }' }, { query: 'mutation { insert_article_one(object: { id: 2, author_id: 98 }) { id } }' }], { ...ADMIN, 'x-request-id': 'batch-1' });
      expect(await requestLine(lines, 'batch-1')).toMatchObject({ operationType: 'query,mutation', errorCode: 'constraint-violation' });
    });

    it('websocket-log says when a socket is accepted and closed', async () => {
      const { subscribe, close } = modernClient(engine.url!, ADMIN);
      await subscribe('subscription { author { id } }').waitFor(1);
      const accepted = await lineWhere(lines, (line) => line.type === 'websocket-log' && line.event === 'accepted', 'websocket accepted');
      expect(accepted).toMatchObject({ protocol: 'graphql-transport-ws', path: '/v1/graphql' });
      await close();
      expect(await lineWhere(lines, (line) => line.type === 'websocket-log' && line.event === 'closed' && line.connection === accepted.connection, 'websocket closed', 5000)).toMatchObject({ code: expect.any(Number) });
    });

    it('webhook-log says how each event webhook call went', async () => {
      const hook = createServer((request, response) => {
        request.resume();
        request.on('end', () => response.writeHead(500).end('no'));
      });
      await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
      try {
        const webhook = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/`;
        const created = await http('POST', `${engine.url}/v1/metadata`, { type: 'pg_create_event_trigger', args: { source: 'default', name: 'author_added', table: 'author', webhook, insert: { columns: '*' }, retry_conf: { num_retries: 0, interval_sec: 1, timeout_sec: 2 } } }, ADMIN);
        expect(created.json).toEqual({ message: 'success' });
        await db.sql("insert into author values (2, 'Grace')");
        const line = await lineWhere(lines, (candidate) => candidate.type === 'webhook-log', 'webhook-log', 20_000);
        expect(line).toMatchObject({ trigger: 'author_added', status: 500, outcome: 'error', attempt: 1, event_id: expect.any(String) });
      } finally {
        hook.close();
      }
    }, 30_000);

    it('gives every line a type and an ISO time, and writes no query-log by default', async () => {
      const all = lines();
      expect(all.length).toBeGreaterThan(0);
      for (const line of all) {
        expect(typeof line.type).toBe('string');
        expect(line.time).toMatch(ISO_TIME);
      }
      expect(all.some((line) => line.type === 'unstructured')).toBe(true);
      expect(all.filter((line) => line.type === 'query-log')).toEqual([]);
    });
  });

  it('query-log carries the generated SQL of each operation, not its values', async () => {
    const { engine, lines } = await engineWithLines(db, { SERVICE_GRAPHQL_ENABLED_LOG_TYPES: 'query-log' });
    try {
      await graphql(engine, { query: 'query One($id: Int!) { author_by_pk(id: $id) { name } }', variables: { id: 1 } }, { ...ADMIN, 'x-request-id': 'sql-1' });
      await graphql(engine, { query: 'mutation { insert_article_one(object: { id: 3, author_id: 97 }) { id } }' }, { ...ADMIN, 'x-request-id': 'sql-2' });
      const queryLogs = lines().filter((line) => line.type === 'query-log');
      const select = queryLogs.find((line) => line.requestId === 'sql-1');
      expect(select).toMatchObject({ operationName: 'One', role: 'admin' });
      expect(select!.statements.join('\n')).toMatch(/select/i);
      expect(select!.statements.join('\n')).toContain('"author"');
      expect(JSON.stringify(select)).not.toContain('Ada');
      const insert = queryLogs.find((line) => line.requestId === 'sql-2');
      expect(insert!.statements.join('\n')).toMatch(/insert into/i);
      // Only query-log was asked for: the request lines are off.
      expect(lines().filter((line) => line.type === 'http-log')).toEqual([]);
    } finally {
      await engine.stop();
    }
  });

  it('webhook-log says how the auth webhook answered', async () => {
    const hook = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ 'X-Service-Role': 'reader', 'X-Service-User-Id': 'hook-user' }));
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/auth`;
    const { engine, lines } = await engineWithLines(db, { SERVICE_GRAPHQL_AUTH_HOOK: url });
    try {
      const reply = await graphql(engine, { query: 'query Mine { author(where: {id: {_eq: 1}}) { name } }' }, { authorization: 'Bearer t', 'x-request-id': 'hook-1' });
      expect(reply.json).toEqual({ data: { author: [{ name: 'Ada' }] } });
      expect(await lineWhere(lines, (line) => line.type === 'webhook-log' && line.msg === 'auth webhook', 'auth webhook')).toMatchObject({ url, method: 'GET', status: 200, ms: expect.any(Number) });
      expect(await requestLine(lines, 'hook-1')).toMatchObject({ role: 'reader', userId: 'hook-user', operationName: 'Mine' });
    } finally {
      await engine.stop();
      hook.close();
    }
  });

  it('SERVICE_GRAPHQL_ENABLED_LOG_TYPES turns the startup and http-log lines of an engine process on and off', async () => {
    const env = engineEnv(db.url, testPrefix(), { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET, SERVICE_GRAPHQL_ENABLED_LOG_TYPES: 'startup' });
    const process = await spawnEngineProcess(env);
    try {
      const reply = await http('POST', `${process.url}/v1/graphql`, { query: '{ author { id } }' }, { ...ADMIN, 'x-request-id': 'off-1' });
      expect(reply.status).toBe(200);
      // Read once the process has exited, so that no line is still on its way through the pipe.
      await process.stop();
      const lines = process.output().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Line);
      const startup = lines.find((line) => line.type === 'startup');
      expect(startup).toMatchObject({ kind: 'server_configuration', info: { enabled_log_types: ['startup'], is_admin_secret_set: true } });
      expect(JSON.stringify(startup)).not.toContain(SECRET);
      expect(lines.filter((line) => line.type === 'http-log')).toEqual([]);
    } finally {
      await process.stop();
    }
  });
});
