import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subjectsFor } from '../../src/bus/subjects.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { engineEnv, http, spawnEngineProcess, testPrefix, type EngineProcess } from '../harness/engine.js';
import { startFixtureServer, type FixtureServer } from '../remote/fixture-server.js';
import { eventually, startWebhook, trackTables, type Webhook } from '../triggers/fixtures.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

/**
 * Traces across processes: the edge runs in one engine process, the schema, auth,
 * remote-schema and triggers actors in another (which also serves HTTP, unused here, as
 * the harness learns a process's readiness from its URL). Both export by OTLP/HTTP JSON
 * to a receiver in the test.
 */
const SECRET = 'trace-secret';
const admin = { 'x-service-admin-secret': SECRET };
const SERVER = 2;
const CLIENT = 3;

let db: TestDatabase;
let receiver: OtlpReceiver;
let remote: FixtureServer;
let hook: Webhook;
let edge: EngineProcess;
let actors: EngineProcess;
const prefix = testPrefix();
const subjects = subjectsFor(prefix);

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql(`create table author (id serial primary key, name text); insert into author (name) values ('Ada')`);
  [receiver, remote, hook] = await Promise.all([startOtlpReceiver(), startFixtureServer(), startWebhook()]);
  const common = { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET, OTEL_BSP_SCHEDULE_DELAY: '50', SERVICE_GRAPHQL_BUS_TIMEOUT_MS: '10000' };
  // Both spellings: the standard OTEL_* variables on one process, SERVICE_GRAPHQL_OTEL_* on the other.
  actors = await spawnEngineProcess(
    engineEnv(db.url, prefix, { ...common, SERVICE_GRAPHQL_ACTORS: 'auth,remote-schema,schema,triggers,edge', SERVICE_GRAPHQL_OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, SERVICE_GRAPHQL_OTEL_SERVICE_NAME: 'actors-process' }),
  );
  edge = await spawnEngineProcess(engineEnv(db.url, prefix, { ...common, SERVICE_GRAPHQL_ACTORS: 'edge', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'edge-process' }));
  const ask = (body: unknown) => http('POST', `${edge.url}/v1/query`, body, admin);
  await trackTables({ query: ask }, ['author']);
  expect((await ask({ type: 'add_remote_schema', args: { name: 'people', definition: { url: remote.url } } })).json).toEqual({ message: 'success' });
  expect((await ask({ type: 'create_event_trigger', args: { name: 'author_created', table: { schema: 'public', name: 'author' }, webhook: hook.url, insert: { columns: '*' } } })).json).toEqual({ message: 'success' });
}, 120_000);

afterAll(async () => {
  await Promise.all([edge?.stop(), actors?.stop()]);
  await Promise.all([receiver?.close(), remote?.stop(), hook?.close()]);
  await db?.drop();
});

const graphql = (body: unknown, headers: Record<string, string> = {}) => http('POST', `${edge.url}/v1/graphql`, body, { ...admin, ...headers });

function spansOf(traceId: string): ReceivedSpan[] {
  return receiver.spans.filter((span) => span.traceId === traceId);
}

function only(spans: ReceivedSpan[], name: string, parent: ReceivedSpan | string): ReceivedSpan {
  const parentId = typeof parent === 'string' ? parent : parent.spanId;
  const found = spans.filter((span) => span.name === name && span.parentSpanId === parentId);
  expect(found, `one span ${name} under ${parentId} among ${spans.map((span) => `${span.name}<${span.parentSpanId}`).join(', ')}`).toHaveLength(1);
  return found[0]!;
}

function parseTraceparent(value: unknown): { traceId: string; parentId: string } {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(String(value));
  expect(match, `a W3C traceparent, got ${String(value)}`).not.toBeNull();
  return { traceId: match![1]!, parentId: match![2]! };
}

describe('OpenTelemetry traces across two engine processes', () => {
  it('continues an incoming traceparent: HTTP span, bus hop, schema actor, auth resolution and SQL statement in one trace', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const answer = await graphql({ query: '{ author_by_pk(id: 1) { name } }' }, { traceparent: `00-${traceId}-${callerSpan}-01` });
    expect(answer.json).toEqual({ data: { author_by_pk: { name: 'Ada' } } });

    const spans = await eventually(() => {
      const found = spansOf(traceId);
      return found.some((span) => span.name.startsWith('sql ')) && found.some((span) => span.name === 'POST /v1/graphql') ? found : undefined;
    }, 10_000, 'the request spans exported');
    const http = only(spans, 'POST /v1/graphql', callerSpan);
    expect(http.kind).toBe(SERVER);
    expect(http.service).toBe('edge-process');
    expect(http.attributes['http.response.status_code']).toBe(200);
    const hop = only(spans, `bus ${subjects.graphql}`, http);
    expect(hop.kind).toBe(CLIENT);
    const handled = only(spans, `handle ${subjects.graphql}`, hop);
    // The hop crossed NATS: the handler's span comes from the other process.
    expect(handled.service).toBe('actors-process');
    expect(handled.instance).not.toBe(http.instance);
    expect(handled.attributes['service.bus.local']).toBe(false);
    const authHop = only(spans, `bus ${subjects.authResolve}`, handled);
    // The auth actor runs beside the schema actor: delivered in-process, still one span per side.
    const authHandled = only(spans, `handle ${subjects.authResolve}`, authHop);
    expect(authHandled.attributes['service.bus.local']).toBe(true);
    only(spans, 'auth resolution', authHandled);
    const statement = spans.find((span) => span.name.startsWith('sql ') && span.parentSpanId === handled.spanId)!;
    expect(statement.kind).toBe(CLIENT);
    expect(statement.attributes['db.statement.hash']).toMatch(/^[0-9a-f]{16}$/);
    // The statement's name or hash, never its text or values.
    expect(JSON.stringify(statement.attributes)).not.toMatch(/select|author/i);
  });

  it('keeps a statement span open until PostgreSQL answered, and marks it failed by the SQLSTATE', async () => {
    const traceId = '5b8efff798038103d269b633813fc60d';
    // An invalid regular expression passes validation and fails in PostgreSQL (2201B).
    const answer = await graphql({ query: '{ author(where: {name: {_regex: "("}}) { id } }' }, { traceparent: `00-${traceId}-eee19b7ec3c1b175-01` });
    expect(answer.status).toBe(200);
    expect((answer.json as { errors?: unknown[] }).errors).toHaveLength(1);
    const statement = await eventually(() => spansOf(traceId).find((span) => span.name.startsWith('sql ')), 10_000, 'the statement span');
    expect(statement.attributes['error.type']).toBe('2201B');
  });

  it('marks the request span failed, by the error code, when /v1/graphql answers errors with HTTP 200', async () => {
    const traceId = '5b8efff798038103d269b633813fc60c';
    const answer = await graphql({ query: '{ no_such_field }' }, { traceparent: `00-${traceId}-eee19b7ec3c1b174-01` });
    expect(answer.status).toBe(200);
    const root = await eventually(() => spansOf(traceId).find((span) => span.name === 'POST /v1/graphql'), 10_000, 'the request span');
    expect(root.attributes['error.type']).toBe('validation-failed');
  });

  it('starts a new trace for a request without traceparent', async () => {
    const before = new Set(receiver.spans.map((span) => span.traceId));
    await graphql({ query: '{ author { id } }' });
    const root = await eventually(() => receiver.spans.find((span) => span.name === 'POST /v1/graphql' && !before.has(span.traceId)), 10_000, 'a new trace');
    expect(root.parentSpanId).toBe('');
    await eventually(() => spansOf(root.traceId).some((span) => span.name === `handle ${subjects.graphql}`), 10_000, 'the schema actor in the new trace');
  });

  it('sends traceparent on to a remote schema, from the remote call span of the request trace', async () => {
    const sent = remote.requests.length;
    const answer = await graphql({ query: '{ hello(name: "x") }' });
    expect(answer.json).toEqual({ data: { hello: 'hello x' } });
    const upstream = remote.requests.slice(sent).find((request) => request.body.query.includes('hello'))!;
    const { traceId, parentId } = parseTraceparent(upstream.headers.traceparent);
    const call = await eventually(() => receiver.spans.find((span) => span.spanId === parentId), 10_000, 'the remote call span');
    expect(call).toMatchObject({ traceId, name: 'remote schema people', kind: CLIENT, service: 'actors-process' });
    const spans = await eventually(() => (spansOf(traceId).some((span) => span.name === 'POST /v1/graphql') ? spansOf(traceId) : undefined), 10_000, 'the whole trace');
    const executeHop = spans.find((span) => span.spanId === call.parentSpanId)!;
    expect(executeHop.name).toBe(`handle ${subjects.remote('execute')}`);
  });

  it('traces a webhook delivery, linked to the mutation that caused the event, and sends its traceparent with the POST', async () => {
    const mutationTrace = 'd4cda95b652f4a1592b449d5929fda1b';
    const inserted = await graphql({ query: `mutation { insert_author_one(object: { name: "Grace" }) { id } }` }, { traceparent: `00-${mutationTrace}-6e0c63257de34c92-01` });
    expect(inserted.json).toMatchObject({ data: { insert_author_one: { id: expect.any(Number) } } });
    const [delivery] = await hook.waitFor(1, 20_000, (request) => request.body?.event?.data?.new?.name === 'Grace');
    const { traceId, parentId } = parseTraceparent(delivery!.headers.traceparent);
    const span = await eventually(() => receiver.spans.find((candidate) => candidate.spanId === parentId), 10_000, 'the delivery span');
    expect(span).toMatchObject({ traceId, name: 'event delivery author_created', kind: CLIENT, parentSpanId: '' });
    expect(span.attributes['service.event.id']).toBe(delivery!.body.id);
    expect(span.attributes['service.event.attempt']).toBe(1);
    // Its own trace, linked to a span of the request whose write the event captured.
    expect(span.links.map((link) => link.traceId)).toEqual([mutationTrace]);
    expect(spansOf(mutationTrace).map((candidate) => candidate.spanId)).toContain(span.links[0]!.spanId);
  });
});

describe('a service.trace message that is no traceparent', () => {
  it('is ignored: the capture goes on, the event is delivered without a link', async () => {
    const sql = "select pg_logical_emit_message(true, 'service.trace', E'x\\r\\ny'); insert into author (name) values ('Mallory')";
    expect((await http('POST', `${edge.url}/v1/query`, { type: 'run_sql', args: { sql } }, admin)).status).toBe(200);
    const [delivery] = await hook.waitFor(1, 20_000, (request) => request.body?.event?.data?.new?.name === 'Mallory');
    const { parentId } = parseTraceparent(delivery!.headers.traceparent);
    const span = await eventually(() => receiver.spans.find((candidate) => candidate.spanId === parentId), 10_000, 'the delivery span');
    expect(span.links).toEqual([]);
  });
});

describe('with tracing off (no OTLP endpoint)', () => {
  it('sends no traceparent on and exports nothing', async () => {
    const offDb = await createTestDatabase();
    const offRemote = await startFixtureServer();
    const off = await spawnEngineProcess(engineEnv(offDb.url, testPrefix(), { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET, OTEL_SERVICE_NAME: 'off-process', OTEL_BSP_SCHEDULE_DELAY: '50' }));
    try {
      expect((await http('POST', `${off.url}/v1/query`, { type: 'add_remote_schema', args: { name: 'people', definition: { url: offRemote.url } } }, admin)).json).toEqual({ message: 'success' });
      const answer = await http('POST', `${off.url}/v1/graphql`, { query: '{ hello(name: "y") }' }, { ...admin, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
      expect(answer.json).toEqual({ data: { hello: 'hello y' } });
      const upstream = offRemote.requests.find((request) => request.body.query.includes('hello'))!;
      expect(upstream.headers.traceparent).toBeUndefined();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.spans.filter((span) => span.service === 'off-process' || span.traceId === '0af7651916cd43dd8448eb211c80319c')).toEqual([]);
    } finally {
      await off.stop();
      await offRemote.stop();
      await offDb.drop();
    }
  }, 60_000);
});
