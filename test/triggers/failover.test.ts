import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Bus } from '../../src/bus/bus.js';
import { loggedEvents } from '../../actors/triggers/log/event-batch.js';
import { scanStream } from '../../actors/triggers/ops/scan.js';
import { createLogger } from '../../src/log/logger.js';
import type { Heartbeat, MonitorEvent } from '../../src/monitor/messages.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { engineEnv, http, spawnEngineProcess, testPrefix, type EngineProcess } from '../harness/engine.js';
import { eventually, sleep, startWebhook, type Webhook } from './fixtures.js';

const ROWS = 5_000;
const POOL = 50;
/** Give up once neither the event log nor the deliveries have grown for this long... */
const STALL_MS = 45_000;
/** ...or after this long in all: generous, the full suite runs beside heavy tests on 2 cores. */
const UPPER_BOUND_MS = 240_000;
const prefix = testPrefix();
let db: TestDatabase;
let engines: EngineProcess[] = [];
let hook: Webhook;
let monitor: Bus;
const outcomes: MonitorEvent[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql('create table item (id int primary key, n int)');
  hook = await startWebhook();
  const env = engineEnv(db.url, prefix, { SERVICE_GRAPHQL_EVENTS_HTTP_POOL_SIZE: String(POOL) });
  engines = await Promise.all([spawnEngineProcess(env), spawnEngineProcess(env)]);
  monitor = await Bus.connect({ servers: inject('natsUrl'), prefix, name: 'failover-monitor', log: createLogger('silent') });
  monitor.listen<MonitorEvent>(monitor.subjects.monitorEvent('triggers.*'), (event) => {
    if (event.kind !== 'triggers.delivered' && event.kind !== 'triggers.lease') outcomes.push(event);
  });
  const query = (body: unknown) => http('POST', `${engines[0]!.url}/v1/query`, body);
  expect((await query({ type: 'track_table', args: { table: 'item' } })).status).toBe(200);
  const created = await query({ type: 'create_event_trigger', args: { name: 'item_insert', table: 'item', webhook: hook.url, insert: { columns: '*' } } });
  expect(created.json).toEqual({ message: 'success' });
}, 120_000);

afterAll(async () => {
  await monitor?.close();
  await Promise.all(engines.map((engine) => engine.stop()));
  await hook?.close();
  if (db !== undefined) {
    await db.drop();
  }
});

async function leaseHolderPid(): Promise<number> {
  return eventually(async () => {
    const replies = await monitor.gather<Heartbeat>(monitor.subjects.monitorPing, {}, 300);
    return replies.find((reply) => reply.actor === 'triggers' && reply.gauges.reading_slot === true)?.pid;
  }, 30_000, 'an instance reading the slot');
}

/** The trigger's messages in the event log, the events they hold (batches included) and their distinct ids. */
async function eventLogContents(): Promise<{ messages: number; events: number; ids: number }> {
  const contents = { messages: 0, events: 0, ids: 0 };
  const ids = new Set<string>();
  await scanStream(monitor.connection, jetstream(monitor.connection), monitor.subjects.eventsStream, monitor.subjects.eventsOf('item_insert'), (message) => {
    contents.messages++;
    for (const event of loggedEvents(message.data, message.headers)) {
      contents.events++;
      ids.add(event.id);
    }
  });
  return { ...contents, ids: ids.size };
}

/** Events of the trigger in the event log (each once: re-read WAL is dropped by Nats-Msg-Id). */
async function storedEvents(): Promise<number> {
  return (await eventLogContents()).events;
}

const deliveredRows = () => new Set(hook.received.map((request) => request.body.event.data.new.id)).size;

/** Counts in and out, for the failure message: rows, stored events, delivered rows, outcomes, the slot and the consumer. */
async function evidence(): Promise<string> {
  const rows = (await db.sql('select count(*)::int as n from item')).rows[0].n;
  const slot = (await db.sql('select confirmed_flush_lsn::text as confirmed, pg_current_wal_lsn()::text as current, active from pg_replication_slots where database = current_database()')).rows[0];
  const jsm = await jetstreamManager(monitor.connection);
  const consumer = await jsm.consumers.info(monitor.subjects.eventsStream, monitor.subjects.eventsConsumer).catch(() => null);
  const kinds = outcomes.reduce<Record<string, number>>((count, event) => ({ ...count, [event.kind]: (count[event.kind] ?? 0) + 1 }), {});
  return JSON.stringify({
    rows,
    stored: await storedEvents(),
    delivered_rows: deliveredRows(),
    webhook_requests: hook.received.length,
    outcomes: kinds,
    sample: outcomes.slice(0, 3).map((event) => event.detail),
    slot,
    consumer: consumer === null ? null : { pending: consumer.num_pending, ack_pending: consumer.num_ack_pending, redelivered: consumer.num_redelivered },
  });
}

/** Waits while the log and the deliveries still grow: a slow machine is given time, a stall is reported at once. */
async function waitForAllDelivered(): Promise<void> {
  const started = Date.now();
  let last = { stored: -1, delivered: -1 };
  let lastProgress = Date.now();
  for (;;) {
    const now = { stored: await storedEvents().catch(() => last.stored), delivered: deliveredRows() };
    if (now.stored === ROWS && now.delivered === ROWS) return;
    if (now.stored !== last.stored || now.delivered !== last.delivered) lastProgress = Date.now();
    last = now;
    const stalled = Date.now() - lastProgress > STALL_MS;
    if (stalled || Date.now() - started > UPPER_BOUND_MS) {
      throw new Error(`${stalled ? `no progress for ${STALL_MS} ms` : `not done within ${UPPER_BOUND_MS} ms`}: ${await evidence()}`);
    }
    await sleep(200);
  }
}

describe('kill -9 of the instance reading the slot during a burst', () => {
  it('delivers every one of 5,000 changes, duplicates only from the messages it held, ids stable', async () => {
    const holderPid = await leaseHolderPid();
    const victim = engines.find((engine) => engine.child.pid === holderPid)!;
    expect(victim).toBeDefined();

    // 5,000 rows in 100 transactions; the reader is killed a third of the way in.
    let killedAt = -1;
    for (let batch = 0; batch < 100; batch++) {
      const ids = Array.from({ length: ROWS / 100 }, (_, i) => batch * (ROWS / 100) + i + 1);
      await db.sql('insert into item (id, n) select id, id from unnest($1::int[]) as id', [ids]);
      if (batch === 33) {
        victim.child.kill('SIGKILL');
        killedAt = hook.received.length;
      }
    }
    expect(killedAt).toBeGreaterThanOrEqual(0);

    await waitForAllDelivered();

    const idsByRow = new Map<number, Set<string>>();
    for (const request of hook.received) {
      const row = request.body.event.data.new.id as number;
      idsByRow.set(row, (idsByRow.get(row) ?? new Set()).add(request.body.id));
    }
    expect(idsByRow.size).toBe(ROWS);
    // One event per change, whatever was read twice: the same id every time.
    expect([...idsByRow.values()].every((ids) => ids.size === 1)).toBe(true);
    const duplicates = hook.received.length - ROWS;
    // Only events of the messages the dead instance held can come twice: its pool's calls in
    // flight, the rest of the batches (a transaction's rows) those belonged to, a batch waiting.
    expect(duplicates).toBeLessThanOrEqual(2 * POOL + ROWS / 100);
    // No delivery failed or was retried: every event reached the webhook on a healthy path.
    expect(outcomes.map((event) => [event.kind, event.detail])).toEqual([]);

    // The event log holds each event once, a transaction's in one batch: the re-read WAL was dropped by Nats-Msg-Id.
    expect(await eventLogContents()).toEqual({ messages: 100, events: ROWS, ids: ROWS });
    // The survivor took the slot over and captured the changes the victim had not confirmed.
    const survivor = engines.find((engine) => engine !== victim)!;
    expect(await leaseHolderPid()).toBe(survivor.child.pid);
    const replies = await monitor.gather<Heartbeat>(monitor.subjects.monitorPing, {}, 300);
    const captured = replies.find((reply) => reply.actor === 'triggers' && reply.pid === survivor.child.pid)?.gauges.events_captured;
    expect(captured).toBeGreaterThan(0);
  }, UPPER_BOUND_MS + 60_000);
});
