import type { MsgHdrs } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log/logger.js';
import type { Metadata } from '../../../src/metadata/types.js';
import { EventLog, EventTooLargeError } from '../log/event-log.js';
import { loggedEvents } from '../log/event-batch.js';
import { TriggerSet } from '../trigger-set.js';
import { ChangeEvents } from './change-events.js';
import type { RowChange, TransactionInfo } from './reader.js';
import { ValueConverter } from './values.js';

interface Appended {
  subject: string;
  msgId: string | null;
  ids: string[];
}

/** An event log that keeps what is appended, refusing bodies over `maxBody` as the real one does. */
function recordingLog(maxBody: number): { log: EventLog; appended: Appended[] } {
  const appended: Appended[] = [];
  const log = {
    maxBody,
    async append(subject: string, body: Uint8Array, msgId: string | null, headers?: MsgHdrs) {
      if (body.length > maxBody) throw new EventTooLargeError('too large');
      appended.push({ subject, msgId, ids: loggedEvents(body, headers).map((event) => event.id) });
    },
  } as unknown as EventLog;
  return { log, appended };
}

const metadata = {
  version: 3,
  sources: [
    {
      name: 'default',
      kind: 'postgres',
      tables: [
        {
          table: { schema: 'public', name: 'job' },
          event_triggers: ['a', 'b'].map((name) => ({ name, definition: { insert: { columns: '*' } }, webhook: 'http://127.0.0.1:1/hook', retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 } })),
        },
      ],
    },
  ],
} as unknown as Metadata;

function sink(maxBody: number, batches = true) {
  const { log, appended } = recordingLog(maxBody);
  const triggers = new TriggerSet(metadata);
  const refused: Record<string, unknown>[] = [];
  const events = new ChangeEvents({ triggers: () => triggers, values: new ValueConverter(), eventLog: log, subjectOf: (name) => `events.${name}`, onRefused: (detail) => refused.push(detail), batches, log: createLogger('silent') });
  return { events, appended, refused };
}

const row = (name: string): RowChange => ({ op: 'INSERT', schema: 'public', table: 'job', columns: [{ name: 'name', typeOid: 25 }], old: null, new: { name } });
const transaction = (ordinal: number): TransactionInfo => ({ commitLsn: '0/16B3748', commitTime: 1_795_000_000_000_000n, ordinal, session: null, traceParent: null });

/** Hands `count` changes of one transaction to the sink, then commits; returns the stores. */
function read(events: ChangeEvents, names: string[], commit = true): Promise<unknown>[] {
  events.begin();
  const stores = names.flatMap((name, ordinal) => events.change(row(name), transaction(ordinal)));
  if (commit) events.commit();
  return stores;
}

describe('capture in batches', () => {
  it('stores a transaction per trigger in batches of up to 100, each once full or at the commit, named by first and last event and count', async () => {
    const { events, appended } = sink(1_000_000);
    const stores = read(events, Array.from({ length: 150 }, (_, i) => `row ${i}`));
    await Promise.all(stores);
    expect(stores).toHaveLength(300);
    expect(appended.map((entry) => [entry.subject, entry.ids.length])).toEqual([
      ['events.a', 100],
      ['events.b', 100],
      ['events.a', 50],
      ['events.b', 50],
    ]);
    for (const entry of appended) expect(entry.msgId).toBe(`${entry.ids[0]}+${entry.ids.at(-1)}+${entry.ids.length}`);
    expect(new Set(appended.flatMap((entry) => entry.ids)).size).toBe(300);
  });

  it('cuts a batch at the body NATS accepts, and stores an event alone as itself', async () => {
    const { events, appended } = sink(2_000);
    await Promise.all(read(events, ['x'.repeat(800), 'y'.repeat(800), 'z'.repeat(800)]));
    const a = appended.filter((entry) => entry.subject === 'events.a');
    expect(a.map((entry) => entry.ids.length)).toEqual([1, 1, 1]);
    expect(a.every((entry) => entry.msgId === entry.ids[0])).toBe(true);
  });

  it('refuses an event larger than NATS accepts without holding back the rest of its transaction', async () => {
    const { events, appended, refused } = sink(2_000);
    await Promise.all(read(events, ['small', 'x'.repeat(3_000), 'small too']));
    expect(refused.map((detail) => [detail.trigger, detail.op])).toEqual([
      ['a', 'INSERT'],
      ['b', 'INSERT'],
    ]);
    expect(appended.map((entry) => entry.ids.length)).toEqual([2, 2]);
  });

  it('stores no open batch of a transaction read in part, and the whole of it read again', async () => {
    const { events, appended } = sink(1_000_000);
    const partial = read(events, ['one', 'two'], false);
    const settled = Promise.allSettled(partial);
    const again = read(events, ['one', 'two', 'three']);
    expect((await settled).map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
    await Promise.all(again);
    expect(appended.map((entry) => entry.ids.length)).toEqual([3, 3]);
  });

  it('counts the events its open batches hold, which only more of their transaction can store', async () => {
    const { events, appended } = sink(1_000_000);
    read(events, Array.from({ length: 130 }, (_, i) => `row ${i}`), false);
    expect(events.held).toBe(60);
    expect(appended.map((entry) => entry.ids.length)).toEqual([100, 100]);
    events.commit();
    expect(events.held).toBe(0);
    const dropped = Promise.allSettled(read(events, ['one'], false));
    expect(events.held).toBe(2);
    events.begin();
    expect(events.held).toBe(0);
    expect((await dropped).map((result) => result.status)).toEqual(['rejected', 'rejected']);
  });

  it('stores each event alone with batches off', async () => {
    const { events, appended } = sink(1_000_000, false);
    await Promise.all(read(events, ['one', 'two', 'three']));
    expect(appended.map((entry) => entry.ids.length)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(appended.every((entry) => entry.msgId === entry.ids[0])).toBe(true);
  });
});
