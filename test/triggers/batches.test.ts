import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loggedEvents } from '../../actors/triggers/log/event-batch.js';
import { EVENT_HEADER } from '../../actors/triggers/log/event-message.js';
import { scanStream } from '../../actors/triggers/ops/scan.js';
import { Bus } from '../../src/bus/bus.js';
import { createLogger } from '../../src/log/logger.js';
import type { MonitorEvent } from '../../src/monitor/messages.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';
import { eventually, sleep, startWebhook, stopAll, trackTables, type Webhook } from './fixtures.js';

/**
 * A transaction's events of one trigger travel as batches (event-batch.ts): stored once,
 * pulled once, acked once, each event still delivered, retried, read and redelivered alone.
 */
let db: TestDatabase;
let engine: TestEngine;
let hook: Webhook;
let bus: Bus;
const announced: MonitorEvent[] = [];
/** What the webhook answers each call of a row's event, by the row's name; the last status repeats. 200 for any other row. */
const script = new Map<string, number[]>();

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql('create table job (id int primary key, name text)');
  hook = await startWebhook((request) => {
    const name = request.body?.event?.data?.new?.name as string;
    const before = hook.received.filter((r) => r.body?.id === request.body?.id).length - 1;
    const statuses = script.get(name) ?? [200];
    return { status: statuses[Math.min(before, statuses.length - 1)] };
  });
  engine = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_LOG_LEVEL: 'error' } });
  bus = await Bus.connect({ servers: inject('natsUrl'), prefix: engine.prefix, name: 'batches-test', log: createLogger('silent') });
  bus.listen<MonitorEvent>(bus.subjects.monitorEventAll, (event) => void announced.push(event));
  await trackTables(engine, ['job']);
  const created = await engine.query({
    type: 'create_event_trigger',
    args: { name: 'job_created', table: 'job', webhook: hook.url, insert: { columns: '*' }, retry_conf: { num_retries: 3, interval_sec: 1, timeout_sec: 5 } },
  });
  expect(created.json).toEqual({ message: 'success' });
}, 60_000);

afterAll(async () => {
  await bus?.close();
  await stopAll({ engine, hook, db });
});

interface LogMessage {
  events: string[];
  attempt: string;
  due: string;
}

/** The trigger's messages in the event log, oldest first: the event ids each holds and its retry headers. */
async function logMessages(target: Bus, trigger: string): Promise<LogMessage[]> {
  const messages: LogMessage[] = [];
  await scanStream(target.connection, jetstream(target.connection), target.subjects.eventsStream, target.subjects.eventsOf(trigger), (message) => {
    messages.push({
      events: loggedEvents(message.data, message.headers).map((event) => event.id),
      attempt: message.headers?.get(EVENT_HEADER.attempt) ?? '',
      due: message.headers?.get(EVENT_HEADER.due) ?? '',
    });
  });
  return messages;
}

const callsOf = (from: number, to: number) => hook.received.filter((r) => r.body?.event?.data?.new?.id >= from && r.body?.event?.data?.new?.id <= to);

describe('a transaction of many rows', () => {
  it('is stored in batches of up to 100 events and delivered once per row', async () => {
    await db.sql(`insert into job select g, 'bulk' from generate_series(1, 250) g`);
    await eventually(() => new Set(callsOf(1, 250).map((r) => r.body.id)).size === 250, 20_000, '250 deliveries');
    await sleep(500); // a second call of any row would have come by now
    const calls = callsOf(1, 250);
    expect(calls).toHaveLength(250);
    expect(new Set(calls.map((r) => r.body.event.data.new.id)).size).toBe(250);
    expect(calls.every((r) => r.body.delivery_info.current_retry === 0 && r.body.trigger.name === 'job_created')).toBe(true);
    const messages = await logMessages(bus, 'job_created');
    expect(messages.map((message) => message.events.length)).toEqual([100, 100, 50]);
    expect(messages.flatMap((message) => message.events).sort()).toEqual(calls.map((r) => r.body.id).sort());
  });

  it('lists, finds and redelivers an event from inside a batch', async () => {
    const inside = callsOf(150, 150)[0]!.body;
    const logs = await eventually(async () => {
      const rows = (await engine.query({ type: 'get_event_logs', args: { trigger_name: 'job_created', limit: 1000 } })).json;
      return rows.length === 250 && rows.every((row: any) => row.delivered) ? rows : undefined;
    }, 10_000, 'every event delivered in the log');
    expect(logs.find((row: any) => row.id === inside.id)).toMatchObject({ payload: { data: { new: { id: 150, name: 'bulk' } } }, tries: 1, delivered: true });
    const byId = await engine.query({ type: 'get_event_by_id', args: { event_id: inside.id } });
    expect(byId.json.event).toMatchObject({ id: inside.id, payload: inside.event, tries: 1, delivered: true });
    const before = hook.received.length;
    expect((await engine.query({ type: 'redeliver_event', args: { event_id: inside.id } })).json).toEqual({ message: 'success' });
    const again = await eventually(() => hook.received.slice(before).find((r) => r.body.id === inside.id), 10_000, 'the redelivery');
    expect(again.body).toMatchObject({ event: inside.event, delivery_info: { current_retry: 0 } });
    await sleep(500);
    // Only that event: not the rest of its batch.
    expect(hook.received.slice(before)).toHaveLength(1);
  });

  it('retries a failing event of a batch alone, its copies carrying the attempt; the others are called once', async () => {
    script.set('flaky', [500, 500, 200]);
    await db.sql(`insert into job select g, case when g = 305 then 'flaky' else 'steady' end from generate_series(301, 320) g`);
    const flaky = await eventually(() => (callsOf(305, 305).length >= 3 ? callsOf(305, 305) : undefined), 20_000, 'three attempts of the failing event');
    await sleep(1_500); // a fourth attempt, or a second call of another row, would have come by now
    expect(callsOf(305, 305)).toHaveLength(3);
    expect(flaky.map((r) => r.body.delivery_info.current_retry)).toEqual([0, 1, 2]);
    expect(flaky[1]!.at - flaky[0]!.at).toBeGreaterThanOrEqual(900);
    expect(callsOf(301, 320)).toHaveLength(19 + 3);
    const eventId = flaky[0]!.body.id as string;
    const messages = (await logMessages(bus, 'job_created')).filter((message) => message.events.includes(eventId));
    expect(messages.map((message) => [message.events.length, message.attempt])).toEqual([
      [20, ''],
      [1, '2'],
      [1, '3'],
    ]);
    expect(Number(messages[1]!.due)).toBeGreaterThan(0);
    const byId = await engine.query({ type: 'get_event_by_id', args: { event_id: eventId } });
    expect(byId.json.event).toMatchObject({ delivered: true, tries: 3 });
    expect(byId.json.invocations.map((i: any) => i.status)).toEqual([200, 500, 500]);
  });

  it('retries a redelivered event that fails again, though its first retry was stored moments ago', async () => {
    script.set('again', [500, 200, 500, 200]);
    await db.sql(`insert into job select g, case when g = 352 then 'again' else 'steady' end from generate_series(351, 353) g`);
    const first = await eventually(() => (callsOf(352, 352).length >= 2 ? callsOf(352, 352) : undefined), 10_000, 'the retried first delivery');
    expect((await engine.query({ type: 'redeliver_event', args: { event_id: first[0]!.body.id } })).json).toEqual({ message: 'success' });
    const calls = await eventually(() => (callsOf(352, 352).length >= 4 ? callsOf(352, 352) : undefined), 10_000, "the redelivery's retry");
    expect(calls.map((r) => r.body.delivery_info.current_retry)).toEqual([0, 1, 0, 1]);
  });

  it('lists each event once where it was captured, however often it was retried', async () => {
    const rows = (await engine.query({ type: 'get_event_logs', args: { trigger_name: 'job_created', limit: 1000 } })).json;
    const ids = rows.map((row: any) => row.payload.data.new.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));
  });

  it('drops from delivery a message of the log that is not an event, and goes on delivering', async () => {
    const js = jetstream(bus.connection);
    await js.publish(bus.subjects.eventsOf('job_created'), Buffer.from('{"not":"an event"}'));
    await db.sql(`insert into job values (400, 'after')`);
    await eventually(() => callsOf(400, 400).length === 1, 10_000, 'the next event');
    const jsm = await jetstreamManager(bus.connection);
    await eventually(async () => (await jsm.consumers.info(bus.subjects.eventsStream, bus.subjects.eventsConsumer)).num_ack_pending === 0, 10_000, 'nothing left unacked');
    // The log reads skip it too.
    const byId = await engine.query({ type: 'get_event_by_id', args: { event_id: callsOf(400, 400)[0]!.body.id } });
    expect(byId.json.event).toMatchObject({ delivered: true });
  });
});

describe('with a cluster-wide cap on deliveries', () => {
  it('stores each event alone: the consumer max_ack_pending counts messages', async () => {
    const capped = await createTestDatabase();
    await capped.sql('create table job (id int primary key, name text)');
    const cappedEngine = await startTestEngine({ databaseUrl: capped.url, env: { SERVICE_GRAPHQL_LOG_LEVEL: 'error', SERVICE_GRAPHQL_EVENTS_CLUSTER_MAX_IN_FLIGHT: '5' } });
    const cappedBus = await Bus.connect({ servers: inject('natsUrl'), prefix: cappedEngine.prefix, name: 'batches-capped', log: createLogger('silent') });
    const cappedHook = await startWebhook();
    try {
      await trackTables(cappedEngine, ['job']);
      const created = await cappedEngine.query({ type: 'create_event_trigger', args: { name: 'capped', table: 'job', webhook: cappedHook.url, insert: { columns: '*' } } });
      expect(created.json).toEqual({ message: 'success' });
      await capped.sql(`insert into job select g, 'capped' from generate_series(1, 30) g`);
      await cappedHook.waitFor(30);
      const jsm = await jetstreamManager(cappedBus.connection);
      expect((await jsm.consumers.info(cappedBus.subjects.eventsStream, cappedBus.subjects.eventsConsumer)).config.max_ack_pending).toBe(5);
      const messages = await logMessages(cappedBus, 'capped');
      expect(messages.map((message) => message.events.length)).toEqual(Array.from({ length: 30 }, () => 1));
    } finally {
      await cappedBus.close();
      await stopAll({ engine: cappedEngine, hook: cappedHook, db: capped });
    }
  });
});
