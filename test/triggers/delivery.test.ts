import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus } from '../../src/bus/bus.js';
import { createLogger } from '../../src/log/logger.js';
import type { Heartbeat, MonitorEvent } from '../../src/monitor/messages.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';
import { inject } from 'vitest';
import { eventually, sleep, startWebhook, stopAll, trackTables, type Webhook } from './fixtures.js';

let db: TestDatabase;
let engine: TestEngine;
let hook: Webhook;
let monitor: Bus;
const announced: MonitorEvent[] = [];
const heartbeats: Heartbeat[] = [];
/** What each row's webhook answers, by the row's `name`: a list of replies, the last one repeating. */
const script = new Map<string, { status: number; headers?: Record<string, string>; delayMs?: number }[]>();

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql('create table job (id serial primary key, name text)');
  hook = await startWebhook((request) => {
    const name = request.body?.event?.data?.new?.name ?? request.body?.event?.data?.old?.name;
    const replies = script.get(name) ?? [{ status: 200 }];
    const attempt = hook.received.filter((r) => r.body?.id === request.body?.id).length - 1;
    const reply = replies[Math.min(attempt, replies.length - 1)]!;
    return { status: reply.status, headers: reply.headers, delayMs: reply.delayMs, body: `{"attempt":${attempt}}` };
  });
  engine = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_HEARTBEAT_MS: '300', SERVICE_GRAPHQL_LOG_LEVEL: 'error' } });
  monitor = await Bus.connect({ servers: inject('natsUrl'), prefix: engine.prefix, name: 'triggers-monitor', log: createLogger('silent') });
  monitor.listen<MonitorEvent>(monitor.subjects.monitorEventAll, (event) => void announced.push(event));
  monitor.listen<Heartbeat>(monitor.subjects.heartbeat('triggers', '*'), (beat) => void heartbeats.push(beat));
  await trackTables(engine, ['job']);
  const created = await engine.query({
    type: 'create_event_trigger',
    args: { name: 'job_created', table: 'job', webhook: hook.url, insert: { columns: '*' }, delete: { columns: '*' }, retry_conf: { num_retries: 3, interval_sec: 1, timeout_sec: 1 } },
  });
  expect(created.json).toEqual({ message: 'success' });
}, 60_000);

afterAll(async () => {
  await monitor?.close();
  await stopAll({ engine, hook, db });
});

const attemptsOf = (name: string) => hook.received.filter((r) => r.body?.event?.data?.new?.name === name);

describe('webhook delivery, retries and timeouts (compat-facts 4.2)', () => {
  it('makes exactly 3 attempts for 500, 500, 200 with num_retries 3, interval_sec apart, and logs each', async () => {
    script.set('flaky', [{ status: 500 }, { status: 500 }, { status: 200 }]);
    await db.sql(`insert into job (name) values ('flaky')`);
    await eventually(() => attemptsOf('flaky').length >= 3, 20_000, 'three attempts');
    await sleep(2_500); // a fourth attempt would have come by now
    const attempts = attemptsOf('flaky');
    expect(attempts).toHaveLength(3);
    expect(attempts.map((a) => a.body.delivery_info)).toEqual([0, 1, 2].map((current_retry) => ({ max_retries: 3, current_retry })));
    expect(new Set(attempts.map((a) => a.body.id)).size).toBe(1);
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(900);

    const eventId = attempts[0]!.body.id;
    const byId = await engine.query({ type: 'get_event_by_id', args: { event_id: eventId } });
    expect(byId.json.event).toMatchObject({ id: eventId, trigger_name: 'job_created', table_name: 'job', schema_name: 'public', delivered: true, error: false, tries: 3, archived: false });
    expect(byId.json.invocations.map((i: any) => i.status)).toEqual([200, 500, 500]);
    const [success, failure] = byId.json.invocations;
    expect(success.response).toEqual({ type: 'webhook_response', data: { body: '{"attempt":2}', headers: expect.any(Array), status: 200 }, version: '2' });
    expect(failure.response).toEqual({ type: 'client_error', data: { message: '{"attempt":1}' }, version: '2' });
    expect(success.request).toMatchObject({ payload: { id: eventId, delivery_info: { current_retry: 2 } }, headers: [], version: '2' });
  });

  it('cuts a hanging webhook at timeout_sec and gives up after num_retries', async () => {
    script.set('hang', [{ status: 200, delayMs: 5_000 }]);
    const started = Date.now();
    await db.sql(`insert into job (name) values ('hang')`);
    await eventually(() => announced.find((e) => e.kind === 'triggers.failed' && attemptsOf('hang')[0]?.body.id === e.detail.event_id), 25_000, 'the terminal failure');
    const attempts = attemptsOf('hang');
    expect(attempts).toHaveLength(4);
    // 4 attempts of 1 s each plus 3 intervals of 1 s: far less than the 5 s the webhook would take once.
    expect(Date.now() - started).toBeLessThan(15_000);
    const logs = await engine.query({ type: 'get_event_invocation_logs', args: { trigger_name: 'job_created', limit: 4 } });
    expect(logs.json.map((l: any) => l.status)).toEqual([500, 500, 500, 500]);
    expect(logs.json[0].response.data.message).toMatch(/timed out/);
    const events = await engine.query({ type: 'get_event_logs', args: { trigger_name: 'job_created', status: 'processed' } });
    expect(events.json.find((e: any) => e.id === attempts[0]!.body.id)).toMatchObject({ delivered: false, error: true, tries: 4 });
  });

  it('waits a positive integer Retry-After instead of interval_sec', async () => {
    script.set('later', [{ status: 503, headers: { 'retry-after': '2' } }, { status: 200 }]);
    await db.sql(`insert into job (name) values ('later')`);
    const attempts = await eventually(() => (attemptsOf('later').length >= 2 ? attemptsOf('later') : undefined), 20_000, 'the second attempt');
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(1_900);
  });

  it('redelivers an event with the same id and its tries back at 0', async () => {
    const first = attemptsOf('flaky')[0]!.body.id;
    const before = hook.received.length;
    expect((await engine.query({ type: 'redeliver_event', args: { event_id: first } })).json).toEqual({ message: 'success' });
    const again = await eventually(() => hook.received.slice(before).find((r) => r.body.id === first), 20_000, 'the redelivery');
    expect(again.body.delivery_info.current_retry).toBe(0);
  });

  it('refuses to redeliver an event whose webhook call is under way (busy), then redelivers it', async () => {
    await db.sql('create table held (id int primary key, name text)');
    await trackTables(engine, ['held']);
    const created = await engine.query({
      type: 'create_event_trigger',
      args: { name: 'held_created', table: 'held', webhook: hook.url, insert: { columns: '*' }, retry_conf: { num_retries: 0, interval_sec: 1, timeout_sec: 10 } },
    });
    expect(created.json).toEqual({ message: 'success' });
    script.set('slow', [{ status: 200, delayMs: 3_000 }]);
    await db.sql(`insert into held values (1, 'slow')`);
    const call = await eventually(() => hook.received.find((r) => r.body?.trigger?.name === 'held_created'), 20_000, 'the held call');
    const busy = await engine.query({ type: 'redeliver_event', args: { event_id: call.body.id } });
    expect(busy.status).toBe(400);
    expect(busy.json).toEqual({ path: '$.args.event_id', error: 'event is already being processed', code: 'busy' });
    await eventually(async () => {
      const events = await engine.query({ type: 'get_event_logs', args: { trigger_name: 'held_created', status: 'processed' } });
      return events.json.some((event: any) => event.id === call.body.id && event.delivered === true);
    }, 20_000, 'the held call to end');
    expect((await engine.query({ type: 'redeliver_event', args: { event_id: call.body.id } })).json).toEqual({ message: 'success' });
  });

  it('logs every attempt of a burst, the records of attempts that end together stored together', async () => {
    await db.sql('create table burst (id int primary key)');
    await trackTables(engine, ['burst']);
    const created = await engine.query({ type: 'create_event_trigger', args: { name: 'burst_created', table: 'burst', webhook: hook.url, insert: { columns: '*' } } });
    expect(created.json).toEqual({ message: 'success' });
    await db.sql('insert into burst select generate_series(1, 200)');
    const burst = (r: { body: any }) => r.body?.trigger?.name === 'burst_created';
    await eventually(() => new Set(hook.received.filter(burst).map((r) => r.body.id)).size === 200, 20_000, '200 deliveries');
    const ids = new Set(hook.received.filter(burst).map((r) => r.body.id as string));
    const invocations = await eventually(async () => {
      const logs = (await engine.query({ type: 'get_event_invocation_logs', args: { trigger_name: 'burst_created', limit: 1000 } })).json;
      return new Set(logs.map((log: any) => log.event_id)).size === 200 ? logs : undefined;
    }, 10_000, 'every invocation record');
    expect(new Set(invocations.map((log: any) => log.event_id))).toEqual(ids);
    expect(invocations.every((log: any) => log.status === 200 && log.request.payload.id === log.event_id)).toBe(true);
    expect(new Set(invocations.map((log: any) => log.id)).size).toBe(invocations.length);
    const events = (await engine.query({ type: 'get_event_logs', args: { trigger_name: 'burst_created', limit: 1000 } })).json;
    expect(events).toHaveLength(200);
    expect(events.every((event: any) => event.delivered === true && event.error === false && event.tries >= 1)).toBe(true);
  });

  it('announces outcomes on <p>.monitor.events.triggers.* and reports lag and pending in heartbeats', async () => {
    const kinds = new Set(announced.map((event) => event.kind));
    for (const kind of ['triggers.delivered', 'triggers.retry', 'triggers.failed', 'triggers.lease']) expect(kinds).toContain(kind);
    const beat = await eventually(() => heartbeats.findLast((b) => typeof b.gauges.slot_lag_bytes === 'number' && typeof b.gauges.stream_pending === 'number'), 10_000, 'a heartbeat with gauges');
    expect(beat.gauges.lease_holder).toBe(true);
    expect(beat.gauges.delivered).toBeGreaterThan(0);
  });
});

describe('deleting a trigger', () => {
  it('stops its deliveries and keeps its events, archived', async () => {
    script.set('doomed', [{ status: 500 }]);
    await db.sql(`insert into job (name) values ('doomed')`);
    await eventually(() => attemptsOf('doomed').length >= 1, 20_000, 'the first attempt');
    expect((await engine.query({ type: 'delete_event_trigger', args: { name: 'job_created' } })).json).toEqual({ message: 'success' });
    const count = attemptsOf('doomed').length;
    await db.sql(`insert into job (name) values ('after-delete')`);
    await sleep(3_000); // the retry was due after 1 s; a capture of the new row within 1 s
    expect(attemptsOf('doomed')).toHaveLength(count);
    expect(attemptsOf('after-delete')).toHaveLength(0);
    const logs = await engine.query({ type: 'get_event_logs', args: { trigger_name: 'job_created' } });
    expect(logs.status).toBe(200);
    // flaky (and its redelivered copy, listed once), hang, later, doomed; nothing for the row inserted after.
    expect(logs.json.map((event: any) => event.payload.data.new.name).sort()).toEqual(['doomed', 'flaky', 'hang', 'later']);
    expect(logs.json.every((event: any) => event.archived === true)).toBe(true);
    expect(announced.some((event) => event.kind === 'triggers.archived')).toBe(true);
  });
});
