import { jetstreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Bus } from '../../src/bus/bus.js';
import { createLogger } from '../../src/log/logger.js';
import type { Heartbeat } from '../../src/monitor/messages.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { engineEnv, http, spawnEngineProcess, testPrefix, type EngineProcess } from '../harness/engine.js';
import { dropCaptureSlot, eventually, startWebhook, type Webhook } from './fixtures.js';

const ROWS = 5_000;
const POOL = 50;
const prefix = testPrefix();
let db: TestDatabase;
let engines: EngineProcess[] = [];
let hook: Webhook;
let monitor: Bus;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql('create table item (id int primary key, n int)');
  hook = await startWebhook();
  const env = engineEnv(db.url, prefix, { SERVICE_GRAPHQL_EVENTS_HTTP_POOL_SIZE: String(POOL) });
  engines = await Promise.all([spawnEngineProcess(env), spawnEngineProcess(env)]);
  monitor = await Bus.connect({ servers: inject('natsUrl'), prefix, name: 'failover-monitor', log: createLogger('silent') });
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
    await dropCaptureSlot(db);
    await db.drop();
  }
});

async function leaseHolderPid(): Promise<number> {
  return eventually(async () => {
    const replies = await monitor.gather<Heartbeat>(monitor.subjects.monitorPing, {}, 300);
    return replies.find((reply) => reply.actor === 'triggers' && reply.gauges.reading_slot === true)?.pid;
  }, 20_000, 'an instance reading the slot');
}

describe('kill -9 of the instance reading the slot during a burst', () => {
  it('delivers every one of 5,000 changes, duplicates only for deliveries in flight, ids stable', async () => {
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

    await eventually(() => new Set(hook.received.map((r) => r.body.event.data.new.id)).size === ROWS, 90_000, 'all rows delivered').catch((error: Error) => {
      const delivered = new Set(hook.received.map((r) => r.body.event.data.new.id)).size;
      const survivor = engines.find((engine) => engine !== victim)!;
      throw new Error(`${error.message}: ${delivered} of ${ROWS} rows delivered; survivor's log:\n${survivor.output().split('\n').filter((line) => /warn|error|slot|lease/i.test(line)).slice(-15).join('\n')}`);
    });

    const idsByRow = new Map<number, Set<string>>();
    for (const request of hook.received) {
      const row = request.body.event.data.new.id as number;
      idsByRow.set(row, (idsByRow.get(row) ?? new Set()).add(request.body.id));
    }
    expect(idsByRow.size).toBe(ROWS);
    // One event per change, whatever was read twice: the same id every time.
    expect([...idsByRow.values()].every((ids) => ids.size === 1)).toBe(true);
    const duplicates = hook.received.length - ROWS;
    // Only what the dead instance had in flight (at most its pool) can come twice.
    expect(duplicates).toBeLessThanOrEqual(POOL);

    // The event log holds each event once: the re-read WAL was dropped by Nats-Msg-Id.
    const jsm = await jetstreamManager(monitor.connection);
    const info = await jsm.streams.info(monitor.subjects.eventsStream, { subjects_filter: monitor.subjects.eventsOf('item_insert') });
    expect(info.state.subjects?.[monitor.subjects.eventsOf('item_insert')]).toBe(ROWS);
    // The survivor took the slot over and captured the changes the victim had not confirmed.
    const survivor = engines.find((engine) => engine !== victim)!;
    expect(await leaseHolderPid()).toBe(survivor.child.pid);
    const replies = await monitor.gather<Heartbeat>(monitor.subjects.monitorPing, {}, 300);
    const captured = replies.find((reply) => reply.actor === 'triggers' && reply.pid === survivor.child.pid)?.gauges.events_captured;
    expect(captured).toBeGreaterThan(0);
  }, 150_000);
});
