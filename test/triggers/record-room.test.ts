import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { jetstreamManager } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/transport-node';
import { Bus } from '../../src/bus/bus.js';
import { createLogger } from '../../src/log/logger.js';
import { typedLog } from '../../src/log/log-types.js';
import { EventLog } from '../../actors/triggers/log/event-log.js';
import { encodeEvent, eventHeaders, manualEventId } from '../../actors/triggers/log/event-message.js';
import { HELD_MAX, type SendTiming } from '../../actors/triggers/send-soon.js';
import { DeliveryWorker } from '../../actors/triggers/delivery/worker.js';
import { WebhookClient } from '../../actors/triggers/delivery/webhook.js';
import type { Trigger } from '../../actors/triggers/trigger-set.js';
import { testPrefix } from '../harness/engine.js';
import { eventually, sleep, startWebhook, type Webhook } from './fixtures.js';

/**
 * A delivery's slot of the pool frees when the webhook answers, not when its invocation
 * record is stored; unstored records hold room of their own (a pool's worth beyond the
 * HELD_MAX that go out together). The invocation log here stores nothing until the test
 * opens it, which only a JetStream that has stopped answering would do.
 */
const POOL = 2;
const log = createLogger('silent');

/** An event log whose invocation records wait until `open()`. */
class HeldRecordsLog extends EventLog {
  #opened!: () => void;
  readonly #open = new Promise<void>((resolve) => (this.#opened = resolve));

  readonly #records: string;

  constructor(bus: Bus) {
    super(bus, 1, log);
    this.#records = bus.subjects.invocationsOf('');
  }

  open(): void {
    this.#opened();
  }

  override async append(subject: string, body: Uint8Array, msgId: string | null, headers?: MsgHdrs, timing?: SendTiming): Promise<void> {
    if (subject.startsWith(this.#records)) await this.#open;
    return super.append(subject, body, msgId, headers, timing);
  }
}

let bus: Bus;
let hook: Webhook;
let eventLog: HeldRecordsLog | undefined;
let worker: DeliveryWorker | undefined;
const announced: string[] = [];

beforeAll(async () => {
  bus = await Bus.connect({ servers: inject('natsUrl'), prefix: testPrefix(), name: 'record-room-test', log });
  hook = await startWebhook();
});

afterEach(async () => {
  await worker?.stop();
  eventLog?.stop();
  const jsm = await jetstreamManager(bus.connection);
  for (const stream of [bus.subjects.eventsStream, bus.subjects.invocationsStream]) await jsm.streams.delete(stream).catch(() => undefined);
  hook.received.length = 0;
  announced.length = 0;
});

afterAll(async () => {
  await hook.close();
  await bus.close();
});

/** Stores `count` events of trigger `item_insert` and starts a worker with a pool of POOL delivering them. */
async function deliver(count: number): Promise<HeldRecordsLog> {
  eventLog = new HeldRecordsLog(bus);
  await eventLog.ready();
  const trigger: Trigger = {
    name: 'item_insert',
    table: { schema: 'public', name: 'item' },
    entry: { name: 'item_insert', definition: { enable_manual: false, insert: { columns: '*' } }, retry_conf: { num_retries: 0, interval_sec: 1, timeout_sec: 10 }, webhook: hook.url },
    webhook: hook.url,
    headers: [],
    retry: { num_retries: 0, interval_sec: 1, timeout_sec: 10 },
  };
  for (let index = 0; index < count; index++) {
    const id = manualEventId();
    const stored = encodeEvent({ id, trigger: trigger.name, table: trigger.table, op: 'INSERT', oldJson: 'null', newJson: `{"id":${index}}`, sessionJson: 'null', createdAt: '2026-11-28T08:00:00.000000' });
    await eventLog.append(bus.subjects.eventsOf(trigger.name), stored.body, id, eventHeaders(id, stored.split));
  }
  worker = new DeliveryWorker({
    bus,
    eventLog,
    webhooks: new WebhookClient(POOL),
    poolSize: POOL,
    clusterMaxInFlight: 0,
    findTrigger: async (name) => (name === trigger.name ? trigger : undefined),
    announce: (kind) => void announced.push(kind),
    log,
    webhookLog: typedLog(log, 'webhook-log', []),
    metrics: undefined,
  });
  worker.start();
  return eventLog;
}

describe('room of the pool while invocation records are stored', () => {
  it('frees a slot when the webhook answers: calls go on while their records wait', async () => {
    const held = await deliver(10);
    await eventually(() => hook.received.length === 10, 10_000, 'all 10 webhook calls with no record stored');
    // The monitor hears of an outcome only once its record is in the log.
    expect(announced).toEqual([]);
    held.open();
    await eventually(() => announced.filter((kind) => kind === 'triggers.delivered').length === 10, 10_000, '10 deliveries announced');
    const jsm = await jetstreamManager(bus.connection);
    expect((await jsm.streams.info(bus.subjects.invocationsStream)).state.messages).toBeGreaterThan(0);
  });

  it('starts no call once a pool\'s worth of records beyond those that go out together wait unstored', async () => {
    const room = POOL + HELD_MAX;
    const held = await deliver(room + 10);
    await eventually(() => hook.received.length >= room, 10_000, `${room} webhook calls`);
    await sleep(500);
    expect(hook.received.length).toBe(room);
    held.open();
    await eventually(() => hook.received.length === room + 10, 10_000, 'the rest called once records are stored');
    expect(new Set(hook.received.map((call) => call.body.event.data.new.id)).size).toBe(room + 10);
  });
});
