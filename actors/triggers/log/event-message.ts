import { hash as oneShotHash, randomUUID } from 'node:crypto';
import type { MsgHdrs } from '@nats-io/transport-node';
import { headersWith } from '../../../src/bus/wire.js';
import type { QualifiedName } from '../../../src/metadata/types.js';

/**
 * An event as the event log stores it: the webhook body of compat-facts 4.1 without its
 * `delivery_info` (which changes with every attempt), cut where `delivery_info` belongs.
 * Row values are JSON text from PostgreSQL's own forms, so the body is assembled as text
 * and never parsed and re-serialised on its way to the webhook (int8 and numeric keep
 * every digit).
 */
export const EVENT_HEADER = {
  id: 'Svc-Event-Id',
  /** Byte offset in the body where `,"delivery_info":{...}` is inserted. */
  split: 'Svc-Split',
  /** Set on a copy made by redeliver_event. */
  redelivery: 'Svc-Redelivery',
  /** On a copy made for a retry: the attempt it carries (without it, the first). */
  attempt: 'Svc-Attempt',
  /** On a copy made for a retry: when it is due (ms since the epoch); pulled earlier, it waits. */
  due: 'Svc-Due',
  /** On a batch (event-batch.ts): each event's byte length and split, in order. */
  batch: 'Svc-Batch',
} as const;

export interface EventParts {
  id: string;
  trigger: string;
  table: QualifiedName;
  op: 'INSERT' | 'UPDATE' | 'DELETE' | 'MANUAL';
  /** JSON text of `data.old` / `data.new` (`null` when absent). */
  oldJson: string;
  newJson: string;
  /** JSON text of the session variables object, or `null`. */
  sessionJson: string;
  createdAt: string;
}

export interface StoredEvent {
  body: Uint8Array;
  split: number;
}

// Buffer.from and Buffer.allocUnsafe take small buffers from Node's pool; a TextEncoder or a
// new Uint8Array allocates an ArrayBuffer each, and several per event kept the GC busy.
export function encodeEvent(parts: EventParts): StoredEvent {
  const head =
    `{"event":{"session_variables":${parts.sessionJson},"op":"${parts.op}","data":{"old":${parts.oldJson},"new":${parts.newJson}},"trace_context":null},` +
    `"created_at":${JSON.stringify(parts.createdAt)},"id":"${parts.id}"`;
  const tail = `,"trigger":{"name":${JSON.stringify(parts.trigger)}},"table":{"schema":${JSON.stringify(parts.table.schema)},"name":${JSON.stringify(parts.table.name)}}}`;
  const body = Buffer.from(head + tail);
  // The split measured on the short tail: the head holds the rows.
  return { body, split: body.length - Buffer.byteLength(tail) };
}

/** The id of the stored event at `start` of `bytes`, read where encodeEvent put it: the 36 characters before the closing quote at `split`. */
export function storedEventId(bytes: Buffer, start: number, split: number): string {
  return bytes.toString('latin1', start + split - 37, start + split - 1);
}

export function eventHeaders(id: string, split: number, extra: Record<string, string> = {}): MsgHdrs {
  return headersWith({ [EVENT_HEADER.id]: id, [EVENT_HEADER.split]: String(split), ...extra });
}

/** The webhook body of one attempt: the stored event with `delivery_info` put back in its place. */
export function webhookBody(stored: Uint8Array, split: number, maxRetries: number, currentRetry: number): Buffer {
  const info = `,"delivery_info":{"max_retries":${maxRetries},"current_retry":${currentRetry}}`;
  const body = Buffer.allocUnsafe(stored.length + info.length);
  body.set(stored.subarray(0, split), 0);
  body.write(info, split, 'latin1');
  body.set(stored.subarray(split), split + info.length);
  return body;
}

/**
 * The id of a captured event: a name-based UUID (version 5 layout) of the transaction's
 * commit LSN, the change's position in the transaction and the trigger. Reading the same
 * WAL again (a takeover, a restart) yields the same id, which is also the JetStream
 * `Nats-Msg-Id`, so the stream drops the copy. The digest is taken as hex text and the
 * version and variant set in it: Node's one-shot hash into a Buffer took 1.7 µs where hex
 * takes 0.4, and capture computes one per event.
 */
export function capturedEventId(commitLsn: string, ordinal: number, trigger: string): string {
  const hex = oneShotHash('sha1', `${commitLsn}|${ordinal}|${trigger}`, 'hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${VARIANT_DIGIT[hex.charCodeAt(16)]}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The variant's digit (binary 10xx) for the digit of the digest in its place, by character code. */
const VARIANT_DIGIT: Record<number, string> = Object.fromEntries([...'0123456789abcdef'].map((digit) => [digit.charCodeAt(0), '89ab'[Number.parseInt(digit, 16) & 0x3]!]));

export function manualEventId(): string {
  return randomUUID();
}

/**
 * `created_at` as Hasura writes it: UTC, microseconds, no zone (a `timestamp` column). The
 * date and time to the second are kept for the last second asked: a transaction's events
 * share its commit time and the records of a busy second share their second: a Date and its
 * ISO text for each took 0.4 µs a call (0.05 kept), twice an event.
 */
export function formatCreatedAt(microsSinceEpoch: bigint): string {
  const micros = Number(microsSinceEpoch % 1_000_000n);
  // Before 1970 a second's microseconds fall in two seconds of the Date: made afresh.
  if (microsSinceEpoch < 0n) return `${new Date(Number(microsSinceEpoch / 1000n)).toISOString().slice(0, 19)}.${String(micros).padStart(6, '0')}`;
  return `${secondText(Number(microsSinceEpoch / 1_000_000n))}.${String(micros).padStart(6, '0')}`;
}

/** formatCreatedAt of a time in milliseconds (Date.now()), without BigInt arithmetic: an invocation record writes two. */
export function formatCreatedAtMillis(millisSinceEpoch: number): string {
  if (millisSinceEpoch < 0) return formatCreatedAt(BigInt(millisSinceEpoch) * 1000n);
  const millis = millisSinceEpoch % 1000;
  return `${secondText((millisSinceEpoch - millis) / 1000)}.${String(millis).padStart(3, '0')}000`;
}

/** The date and time of a second since the epoch (not before it), kept for the last second asked. */
function secondText(second: number): string {
  if (second !== lastSecond) {
    lastSecond = second;
    lastSecondText = new Date(second * 1000).toISOString().slice(0, 19);
  }
  return lastSecondText;
}

let lastSecond = -1;
let lastSecondText = '';
