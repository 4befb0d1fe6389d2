import type { JetStreamClient, JsMsg } from '@nats-io/jetstream';
import type { Bus } from '../../../src/bus/bus.js';
import { decodeJson } from '../../../src/bus/wire.js';
import type { InvocationRecord } from '../delivery/invocation.js';
import { loggedEvents, type LoggedEvent } from '../log/event-batch.js';
import { EVENT_HEADER } from '../log/event-message.js';
import { scanStream } from './scan.js';

/**
 * Hasura's event and invocation log reads (v2 `get_event_logs`, `get_event_invocation_logs`,
 * `get_event_by_id`) over the two streams. An event's status is derived from its
 * invocation records: `tries` counts them, `delivered` is a successful one, `error` a
 * terminal failure; `archived` means its trigger no longer exists.
 */
export interface EventRow {
  id: string;
  schema_name: string;
  table_name: string;
  trigger_name: string;
  payload: unknown;
  delivered: boolean;
  error: boolean;
  tries: number;
  created_at: string;
  locked: null;
  next_retry_at: string | null;
  archived: boolean;
}

export type InvocationRow = Omit<InvocationRecord, 'outcome' | 'next_retry_at'>;

interface StoredEventBody {
  event: unknown;
  created_at: string;
  id: string;
  trigger: { name: string };
  table: { schema: string; name: string };
}

export class LogReader {
  constructor(
    private readonly bus: Bus,
    private readonly js: JetStreamClient,
    private readonly triggerExists: (name: string) => boolean,
  ) {}

  async invocations(filter: string, keep: (record: InvocationRecord) => boolean = () => true): Promise<InvocationRecord[]> {
    const records: InvocationRecord[] = [];
    const seen = new Set<string>();
    await scanStream(this.bus.connection, this.js, this.bus.subjects.invocationsStream, filter, (message) => {
      // A message holds one record, or an array of the records stored together (invocation.ts).
      const stored = decodeJson<InvocationRecord | InvocationRecord[]>(message.data);
      for (const record of Array.isArray(stored) ? stored : [stored]) {
        // A record stored twice (its publish retried after a lost acknowledgement) counts once.
        if (seen.has(record.id)) continue;
        seen.add(record.id);
        if (keep(record)) records.push(record);
      }
    });
    return records;
  }

  async eventLogs(trigger: string, status: 'pending' | 'processed' | 'all', limit: number, offset: number): Promise<EventRow[]> {
    const events: StoredEventBody[] = [];
    await scanStream(this.bus.connection, this.js, this.bus.subjects.eventsStream, this.bus.subjects.eventsOf(trigger), (message) => {
      // A message holds one event, or the array of a batch (event-batch.ts).
      const stored = decodeJson<StoredEventBody | StoredEventBody[]>(message.data);
      if (Array.isArray(stored)) events.push(...stored);
      else events.push(stored);
    });
    const invocations = groupByEvent(await this.invocations(this.bus.subjects.invocationsOf(trigger)));
    // A retried or redelivered event appears again in the log: listed once, where it was captured (newest first).
    const rows = dedupe(events).reverse().map((event) => this.row(event, invocations.get(event.id) ?? []));
    const wanted = rows.filter((row) => status === 'all' || (status === 'processed') === (row.delivered || row.error));
    return wanted.slice(offset, offset + limit);
  }

  async invocationLogs(trigger: string, limit: number, offset: number): Promise<InvocationRow[]> {
    const records = await this.invocations(this.bus.subjects.invocationsOf(trigger));
    return records.reverse().slice(offset, offset + limit).map(invocationRow);
  }

  /** The newest stored copy of an event, alone or in a batch, with the subject it was stored on. */
  async findEvent(eventId: string): Promise<{ message: { data: Uint8Array; split: number; subject: string }; body: StoredEventBody } | null> {
    let found: { data: Uint8Array; split: number; subject: string } | null = null;
    await scanStream(this.bus.connection, this.js, this.bus.subjects.eventsStream, this.bus.subjects.eventsAll, (message: JsMsg) => {
      const single = message.headers?.get(EVENT_HEADER.id) ?? '';
      // A batch names its events only in its body: look there before reading its layout.
      if (single !== eventId && (single !== '' || Buffer.from(message.data.buffer, message.data.byteOffset, message.data.byteLength).indexOf(eventId, 0, 'latin1') < 0)) return;
      let events: LoggedEvent[];
      try {
        events = loggedEvents(message.data, message.headers);
      } catch {
        return; // not an event the engine stored: delivery drops it too
      }
      const event = events.find((candidate) => candidate.id === eventId);
      if (event !== undefined) found = { data: event.body.slice(), split: event.split, subject: message.subject };
    });
    if (found === null) return null;
    const message = found as { data: Uint8Array; split: number; subject: string };
    return { message, body: decodeJson<StoredEventBody>(message.data) };
  }

  async eventById(eventId: string, limit: number, offset: number): Promise<{ event: EventRow; invocations: InvocationRow[] } | null> {
    const found = await this.findEvent(eventId);
    if (found === null) return null;
    const records = await this.invocations(this.bus.subjects.invocationsOf(found.body.trigger.name), (record) => record.event_id === eventId);
    return { event: this.row(found.body, records), invocations: records.reverse().slice(offset, offset + limit).map(invocationRow) };
  }

  row(event: StoredEventBody, records: InvocationRecord[]): EventRow {
    const last = records[records.length - 1];
    return {
      id: event.id,
      schema_name: event.table.schema,
      table_name: event.table.name,
      trigger_name: event.trigger.name,
      payload: event.event,
      delivered: records.some((record) => record.outcome === 'delivered'),
      error: last?.outcome === 'error',
      tries: records.length,
      created_at: event.created_at,
      locked: null,
      next_retry_at: last?.outcome === 'retry' ? last.next_retry_at : null,
      archived: !this.triggerExists(event.trigger.name),
    };
  }
}

function groupByEvent(records: InvocationRecord[]): Map<string, InvocationRecord[]> {
  const map = new Map<string, InvocationRecord[]>();
  for (const record of records) {
    const list = map.get(record.event_id);
    if (list === undefined) map.set(record.event_id, [record]);
    else list.push(record);
  }
  return map;
}

function dedupe(events: StoredEventBody[]): StoredEventBody[] {
  const seen = new Set<string>();
  return events.filter((event) => !seen.has(event.id) && seen.add(event.id) !== undefined);
}

function invocationRow(record: InvocationRecord): InvocationRow {
  const { outcome: _outcome, next_retry_at: _next, ...row } = record;
  return row;
}
