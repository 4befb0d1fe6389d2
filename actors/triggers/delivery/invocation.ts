import { randomUUID } from 'node:crypto';
import type { EventLog } from '../log/event-log.js';
import { jsonArrayOf } from '../log/json-array.js';
import { HELD_MAX } from '../send-soon.js';
import { formatCreatedAtMillis } from '../log/event-message.js';
import type { Trigger } from '../trigger-set.js';
import type { AttemptResult } from './webhook.js';

export type Outcome = 'delivered' | 'retry' | 'error';

/**
 * One record of the invocation log per webhook attempt, shaped like a row of Hasura's
 * `event_invocation_logs` (compat-facts 4.3) plus what event status needs: the attempt's
 * outcome and, for a retry, when it is due.
 */
export interface InvocationRecord {
  id: string;
  trigger_name: string;
  event_id: string;
  status: number | null;
  request: { payload: unknown; headers: unknown[]; version: '2' };
  response: Record<string, unknown>;
  created_at: string;
  outcome: Outcome;
  next_retry_at: string | null;
}

/** Room kept for the record's other fields when the payload or response must be cut. */
const TRUNCATED_TEXT_BYTES = 16 * 1024;

export interface AttemptArgs {
  trigger: Trigger;
  eventId: string;
  body: Uint8Array;
  result: AttemptResult;
  outcome: Outcome;
  retryInMs: number | null;
}

interface Queued {
  record: Uint8Array;
  stored: () => void;
  failed: (error: unknown) => void;
}

/**
 * The invocation log's writer. A JetStream message of `<P>_INVOCATIONS` holds one record
 * (a JSON object) or, for the attempts of one trigger whose records were held together
 * (send-soon.ts: until the next batch of sends, at most HOLD_MS), several (a JSON array of
 * them): a stored message per attempt was about 30% of the NATS server's CPU per event at
 * full load (test/bench/triggers.bench.ts).
 */
export class InvocationLog {
  #queued = new Map<string, Queued[]>();
  #count = 0;
  #scheduled = false;

  constructor(private readonly eventLog: Pick<EventLog, 'append' | 'maxBody' | 'sends'>) {}

  /** Resolves once JetStream stored the record of this attempt. */
  record(subject: string, args: AttemptArgs): Promise<void> {
    const record = encodeRecord(args, this.eventLog.maxBody);
    return new Promise<void>((resolve, reject) => {
      const queue = this.#queued.get(subject);
      if (queue === undefined) this.#queued.set(subject, [{ record, stored: resolve, failed: reject }]);
      else queue.push({ record, stored: resolve, failed: reject });
      // Each record is a held send of its own: a pool's worth of calls ending together (a
      // batch's) go out at once rather than wait HOLD_MS holding room of the pool.
      if (++this.#count === HELD_MAX) this.eventLog.sends.soon(() => this.#flush());
      else if (!this.#scheduled) {
        this.#scheduled = true;
        this.eventLog.sends.held(() => this.#flush());
      }
    });
  }

  #flush(): void {
    const queued = this.#queued;
    this.#queued = new Map();
    this.#count = 0;
    this.#scheduled = false;
    for (const [subject, entries] of queued) {
      for (const batch of batches(entries, this.eventLog.maxBody)) {
        const body = batch.length === 1 ? batch[0]!.record : jsonArrayOf(batch.map((entry) => entry.record));
        // No Nats-Msg-Id: JetStream would track one per message for its whole duplicate
        // window; a copy stored by a retried publish has the same record ids and the log
        // reads drop them.
        this.eventLog.append(subject, body, null, undefined, 'held').then(
          () => {
            for (const entry of batch) entry.stored();
          },
          (error: unknown) => {
            for (const entry of batch) entry.failed(error);
          },
        );
      }
    }
  }
}

/** Consecutive records, as many to a message as fit in `maxBody` bytes with the array's brackets and commas. */
function batches(entries: Queued[], maxBody: number): Queued[][] {
  const out: Queued[][] = [];
  let batch: Queued[] = [];
  let bytes = 1;
  for (const entry of entries) {
    if (batch.length > 0 && bytes + entry.record.length + 1 > maxBody) {
      out.push(batch);
      batch = [];
      bytes = 1;
    }
    batch.push(entry);
    bytes += entry.record.length + 1;
  }
  if (batch.length > 0) out.push(batch);
  return out;
}

/** The parts of a record that are the same for every attempt of one trigger, as JSON text. */
interface TriggerFields {
  name: string;
  headers: string;
}

/** Built once per trigger (a metadata change makes new Trigger objects): a JSON.stringify of each per attempt cost ~0.5 µs. */
const triggerFields = new WeakMap<Trigger, TriggerFields>();

function fieldsOf(trigger: Trigger): TriggerFields {
  let fields = triggerFields.get(trigger);
  if (fields === undefined) {
    fields = { name: JSON.stringify(trigger.name), headers: JSON.stringify(trigger.headers.map((header) => header.logged)) };
    triggerFields.set(trigger, fields);
  }
  return fields;
}

/** One record's JSON, at most `maxBody` bytes. */
function encodeRecord(args: AttemptArgs, maxBody: number): Uint8Array {
  const now = Date.now();
  const trigger = fieldsOf(args.trigger);
  const head = `{"id":"${randomUUID()}","trigger_name":${trigger.name},"event_id":${JSON.stringify(args.eventId)},"status":${args.result.status},"request":{"payload":`;
  const tailAfterResponse =
    `,"created_at":"${formatCreatedAtMillis(now)}","outcome":"${args.outcome}",` +
    `"next_retry_at":${args.retryInMs === null ? 'null' : `"${formatCreatedAtMillis(now + args.retryInMs)}"`}}`;
  // Assembled as bytes around the webhook body, which is already JSON: never decoded and
  // re-encoded. One buffer from Node's pool: an ArrayBuffer per piece kept the GC busy.
  const build = (payload: Uint8Array, response: Record<string, unknown>) => {
    const tail = `,"headers":${trigger.headers},"version":"2"},"response":${JSON.stringify(response)}${tailAfterResponse}`;
    const headBytes = Buffer.byteLength(head);
    const record = Buffer.allocUnsafe(headBytes + payload.length + Buffer.byteLength(tail));
    record.write(head, 0);
    record.set(payload, headBytes);
    record.write(tail, headBytes + payload.length);
    return record;
  };
  const record = build(args.body, args.result.response);
  if (record.length <= maxBody) return record;
  // The record must fit one NATS message: cut the response text, then leave the payload
  // out (the event itself stays in the event log), saying so in the record.
  return build(Buffer.from(JSON.stringify({ truncated: true, bytes: args.body.length })), truncateResponse(args.result.response));
}

function truncateResponse(response: Record<string, unknown>): Record<string, unknown> {
  const data = { ...(response.data as Record<string, unknown>) };
  for (const key of ['body', 'message']) {
    if (typeof data[key] === 'string' && (data[key] as string).length > TRUNCATED_TEXT_BYTES) {
      data[key] = `${(data[key] as string).slice(0, TRUNCATED_TEXT_BYTES)}... (truncated)`;
    }
  }
  return { ...response, data };
}
