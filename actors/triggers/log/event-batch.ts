import type { MsgHdrs } from '@nats-io/transport-node';
import { EVENT_HEADER, storedEventId, type StoredEvent } from './event-message.js';
import { jsonArrayOf } from './json-array.js';

/**
 * A batch: the events of one trigger from one transaction in one message of the event log,
 * the JSON array of their stored forms, with a header giving each one's length and split.
 * A message per event made the NATS server store, deliver and take an ack for each, and the
 * engine publish, pull and ack each: at a bulk commit's rate the NATS server alone spent
 * 0.021-0.023 ms of CPU per event, a fifth of the whole machine's (test/bench/triggers.bench.ts).
 */

/** One event of a message of the event log. */
export interface LoggedEvent {
  id: string;
  /** The stored event (event-message.ts): the webhook body without its `delivery_info`. */
  body: Uint8Array;
  split: number;
}

export class MalformedEventMessageError extends Error {
  override readonly name = 'MalformedEventMessageError';
}

export function encodeBatch(events: readonly StoredEvent[]): { body: Buffer; layout: string } {
  return { body: jsonArrayOf(events.map((event) => event.body)), layout: events.map((event) => `${event.body.length}:${event.split}`).join(',') };
}

/** The events one message of the event log holds: one, or a batch's. */
export function loggedEvents(data: Uint8Array, headers: MsgHdrs | undefined): LoggedEvent[] {
  const layout = headers?.get(EVENT_HEADER.batch) ?? '';
  if (layout === '') {
    const id = headers?.get(EVENT_HEADER.id) ?? '';
    const split = Number(headers?.get(EVENT_HEADER.split));
    if (id === '' || !isSplit(split, data.length)) throw new MalformedEventMessageError('an event without its id or split header');
    return [{ id, body: data, split }];
  }
  // Read with indexOf rather than split: a batch's layout is read once per event delivered.
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const events: LoggedEvent[] = [];
  let start = 1;
  for (let at = 0; ; ) {
    const colon = layout.indexOf(':', at);
    const next = layout.indexOf(',', at);
    const comma = next === -1 ? layout.length : next;
    const length = colon === -1 || colon > comma ? Number.NaN : Number(layout.slice(at, colon));
    const split = Number(layout.slice(colon + 1, comma));
    if (!Number.isInteger(length) || !isSplit(split, length) || start + length >= data.length) {
      throw new MalformedEventMessageError(`a batch whose layout does not match its ${data.length} bytes`);
    }
    events.push({ id: storedEventId(bytes, start, split), body: bytes.subarray(start, start + length), split });
    start += length + 1;
    if (comma === layout.length) break;
    at = comma + 1;
  }
  if (start !== data.length) throw new MalformedEventMessageError(`a batch whose layout does not match its ${data.length} bytes`);
  return events;
}

/** A split leaves room for the id before it and the closing brace after it. */
function isSplit(split: number, length: number): boolean {
  return Number.isInteger(split) && split >= 37 && split < length;
}
