import { TRACEPARENT } from '../../../src/tracing/propagation.js';
import type { Logger } from '../../../src/log/logger.js';
import { specFor, type Trigger, type TriggerSet } from '../trigger-set.js';
import { headersWith } from '../../../src/bus/wire.js';
import { encodeBatch } from '../log/event-batch.js';
import { jsonArrayBytes } from '../log/json-array.js';
import { capturedEventId, encodeEvent, EVENT_HEADER, eventHeaders, formatCreatedAt, type StoredEvent } from '../log/event-message.js';
import { EventTooLargeError, StoppedError, type EventLog } from '../log/event-log.js';
import type { ChangeSink, RowChange, TransactionInfo } from './reader.js';
import type { ValueConverter } from './values.js';

/** Most events in one batch: a crash redelivers at most this many of a trigger's events already called. */
const BATCH_EVENTS = 100;

interface OpenBatch {
  trigger: Trigger;
  transaction: TransactionInfo;
  events: { id: string; stored: StoredEvent; op: RowChange['op'] }[];
  /** The batch's body size so far. */
  bytes: number;
  /** What each of its events' stores waits on: the batch stored. */
  stored: Promise<void>;
  settle: { resolve: () => void; reject: (error: Error) => void };
}

/**
 * Turns row changes into events of the triggers that match them (compat-facts 4.1, 4.4):
 * INSERT and DELETE fire on any row, UPDATE only when a listened column changed;
 * `payload` picks the columns delivered. A transaction's events of one trigger go to the
 * event log in batches (event-batch.ts) of up to BATCH_EVENTS, each stored once full or at
 * the commit; an event alone in its batch is stored as itself. With `batches` off, each event is.
 */
export class ChangeEvents implements ChangeSink {
  captured = 0;
  refused = 0;
  /** The open batches of the transaction being read, by trigger. */
  #open = new Map<string, OpenBatch>();
  #held = 0;
  #commitTime: bigint | null = null;
  #commitTimeText = '';

  constructor(
    private readonly deps: {
      triggers: () => TriggerSet;
      values: ValueConverter;
      eventLog: EventLog;
      subjectOf: (trigger: string) => string;
      onRefused: (detail: Record<string, unknown>) => void;
      /** Off when a JetStream consumer's max_ack_pending caps deliveries: it counts messages, not events. */
      batches: boolean;
      log: Logger;
    },
  ) {}

  /**
   * A transaction read only in part (a reader stopped before its commit; the next one reads
   * it again from its start) left its batches open: they are never stored, and what waits
   * on them hears so (the reader counts unstored events).
   */
  begin(): void {
    for (const batch of this.#open.values()) batch.settle.reject(new StoppedError('transaction read in part'));
    this.#open.clear();
    this.#held = 0;
  }

  /** Events in open batches: stored once their batch fills or their transaction commits, whatever else is stored first. */
  get held(): number {
    return this.#held;
  }

  change(change: RowChange, transaction: TransactionInfo): Promise<unknown>[] {
    const stores: Promise<unknown>[] = [];
    for (const trigger of this.deps.triggers().onTable(change.schema, change.table)) {
      const spec = specFor(trigger, change.op);
      if (spec === undefined) continue;
      if (change.op === 'UPDATE' && !listenedColumnChanged(change, spec.columns)) continue;
      const id = capturedEventId(transaction.commitLsn, transaction.ordinal, trigger.name);
      const stored = encodeEvent({
        id,
        trigger: trigger.name,
        table: trigger.table,
        op: change.op,
        oldJson: change.old === null ? 'null' : this.#rowJson(change, change.old, spec.payload),
        newJson: change.new === null ? 'null' : this.#rowJson(change, change.new, spec.payload),
        sessionJson: transaction.session ?? 'null',
        createdAt: this.#createdAt(transaction),
      });
      this.captured++;
      stores.push(this.#add(trigger, transaction, id, stored, change.op));
    }
    return stores;
  }

  /** The transaction's last change was read: its open batches go to the event log. */
  commit(): void {
    const open = [...this.#open.values()];
    this.#open.clear();
    for (const batch of open) this.#store(batch);
  }

  #add(trigger: Trigger, transaction: TransactionInfo, id: string, stored: StoredEvent, op: RowChange['op']): Promise<unknown> {
    const maxBody = this.deps.eventLog.maxBody;
    if (!this.deps.batches || jsonArrayBytes(stored.body.length, 1) > maxBody) return this.#append(trigger, transaction, id, stored, op);
    let batch = this.#open.get(trigger.name);
    if (batch !== undefined && (batch.events.length === BATCH_EVENTS || batch.bytes + stored.body.length + 1 > maxBody)) {
      this.#store(batch);
      batch = undefined;
    }
    if (batch === undefined) {
      let settle!: OpenBatch['settle'];
      const whenStored = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
      batch = { trigger, transaction, events: [], bytes: jsonArrayBytes(0, 0), stored: whenStored, settle };
      this.#open.set(trigger.name, batch);
    }
    batch.events.push({ id, stored, op });
    this.#held++;
    batch.bytes += stored.body.length + 1;
    return batch.stored;
  }

  #store(batch: OpenBatch): void {
    const { trigger, transaction, events } = batch;
    if (this.#open.get(trigger.name) === batch) this.#open.delete(trigger.name);
    this.#held -= events.length;
    const first = events[0]!;
    const stored = events.length === 1 ? this.#append(trigger, transaction, first.id, first.stored, first.op) : this.#appendBatch(batch);
    stored.then(batch.settle.resolve, batch.settle.reject);
  }

  /** Appends a batch of two events or more: none is larger than NATS accepts, nor is their batch (#add). */
  #appendBatch({ trigger, transaction, events }: OpenBatch): Promise<void> {
    const { body, layout } = encodeBatch(events.map((event) => event.stored));
    // Its first and last events and their count name the batch: a different cut of the
    // same WAL (maxBody changed between two reads) is stored again, never taken for this one.
    const msgId = `${events[0]!.id}+${events[events.length - 1]!.id}+${events.length}`;
    return this.deps.eventLog.append(this.deps.subjectOf(trigger.name), body, msgId, headersWith({ [EVENT_HEADER.batch]: layout, ...traced(transaction) }));
  }

  /** Appends one event as its own message; one larger than NATS accepts is refused, and said so. */
  #append(trigger: Trigger, transaction: TransactionInfo, id: string, stored: StoredEvent, op: RowChange['op']): Promise<void> {
    return this.deps.eventLog.append(this.deps.subjectOf(trigger.name), stored.body, id, eventHeaders(id, stored.split, traced(transaction))).catch((error: unknown) => {
      if (!(error instanceof EventTooLargeError)) throw error;
      // Never dropped silently: logged, counted in the heartbeat, announced on the monitor.
      this.refused++;
      const detail = { trigger: trigger.name, event_id: id, table: trigger.table, op, bytes: stored.body.length, reason: error.message };
      this.deps.log.error(detail, 'event refused: larger than the NATS max payload');
      this.deps.onRefused(detail);
    });
  }

  /** A transaction's events share its commit time: its text is made once. */
  #createdAt(transaction: TransactionInfo): string {
    if (transaction.commitTime !== this.#commitTime) {
      this.#commitTime = transaction.commitTime;
      this.#commitTimeText = formatCreatedAt(transaction.commitTime);
    }
    return this.#commitTimeText;
  }

  #rowJson(change: RowChange, row: Record<string, string | null>, payload: '*' | string[] | undefined): string {
    const wanted = payload === undefined || payload === '*' ? null : new Set(payload);
    const keys = keysOf(change.columns);
    let json = '';
    for (let index = 0; index < change.columns.length; index++) {
      const column = change.columns[index]!;
      if (wanted !== null && !wanted.has(column.name)) continue;
      json += `${json === '' ? '' : ','}${keys[index]}${this.deps.values.toJson(column.typeOid, row[column.name])}`;
    }
    return `{${json}}`;
  }
}

/** Each column's name as a JSON key (`"name":`), made once per relation: a table's columns stay one array until it changes. */
const columnKeys = new WeakMap<RowChange['columns'], string[]>();

function keysOf(columns: RowChange['columns']): string[] {
  let keys = columnKeys.get(columns);
  if (keys === undefined) {
    keys = columns.map((column) => `${JSON.stringify(column.name)}:`);
    columnKeys.set(columns, keys);
  }
  return keys;
}

function traced(transaction: TransactionInfo): Record<string, string> {
  return transaction.traceParent === null ? {} : { [TRACEPARENT]: transaction.traceParent };
}

/** Whether a listened column differs between the old and new row (IS DISTINCT FROM). */
function listenedColumnChanged(change: RowChange, columns: '*' | string[]): boolean {
  // Without the old row (REPLICA IDENTITY not FULL) nothing can be compared: fire.
  if (change.old === null || change.new === null) return true;
  const names = columns === '*' ? change.columns.map((column) => column.name) : columns;
  return names.some((name) => change.old![name] !== change.new![name]);
}
