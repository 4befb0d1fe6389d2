import { TRACEPARENT } from '../../../src/tracing/propagation.js';
import type { Logger } from '../../../src/log/logger.js';
import { specFor, type Trigger, type TriggerSet } from '../trigger-set.js';
import { capturedEventId, encodeEvent, eventHeaders, formatCreatedAt } from '../log/event-message.js';
import { EventTooLargeError, type EventLog } from '../log/event-log.js';
import type { ChangeSink, RowChange, TransactionInfo } from './reader.js';
import type { ValueConverter } from './values.js';

/**
 * Turns row changes into events of the triggers that match them (compat-facts 4.1, 4.4):
 * INSERT and DELETE fire on any row, UPDATE only when a listened column changed;
 * `payload` picks the columns delivered. Each event is appended to the event log.
 */
export class ChangeEvents implements ChangeSink {
  captured = 0;
  refused = 0;

  constructor(
    private readonly deps: {
      triggers: () => TriggerSet;
      values: ValueConverter;
      eventLog: EventLog;
      subjectOf: (trigger: string) => string;
      onRefused: (detail: Record<string, unknown>) => void;
      log: Logger;
    },
  ) {}

  change(change: RowChange, transaction: TransactionInfo): Promise<unknown>[] {
    const stores: Promise<unknown>[] = [];
    for (const trigger of this.deps.triggers().onTable(change.schema, change.table)) {
      const spec = specFor(trigger, change.op);
      if (spec === undefined) continue;
      if (change.op === 'UPDATE' && !listenedColumnChanged(change, spec.columns)) continue;
      stores.push(this.#append(trigger, change, transaction, spec.payload));
    }
    return stores;
  }

  #append(trigger: Trigger, change: RowChange, transaction: TransactionInfo, payload: '*' | string[] | undefined): Promise<unknown> {
    const id = capturedEventId(transaction.commitLsn, transaction.ordinal, trigger.name);
    const stored = encodeEvent({
      id,
      trigger: trigger.name,
      table: trigger.table,
      op: change.op,
      oldJson: change.old === null ? 'null' : this.#rowJson(change, change.old, payload),
      newJson: change.new === null ? 'null' : this.#rowJson(change, change.new, payload),
      sessionJson: transaction.session ?? 'null',
      createdAt: formatCreatedAt(transaction.commitTime),
    });
    this.captured++;
    const traced: Record<string, string> = transaction.traceParent === null ? {} : { [TRACEPARENT]: transaction.traceParent };
    return this.deps.eventLog.append(this.deps.subjectOf(trigger.name), stored.body, id, eventHeaders(id, stored.split, traced)).catch((error: unknown) => {
      if (!(error instanceof EventTooLargeError)) throw error;
      // Never dropped silently: logged, counted in the heartbeat, announced on the monitor.
      this.refused++;
      const detail = { trigger: trigger.name, event_id: id, table: trigger.table, op: change.op, bytes: stored.body.length, reason: error.message };
      this.deps.log.error(detail, 'event refused: larger than the NATS max payload');
      this.deps.onRefused(detail);
    });
  }

  #rowJson(change: RowChange, row: Record<string, string | null>, payload: '*' | string[] | undefined): string {
    const wanted = payload === undefined || payload === '*' ? null : new Set(payload);
    const fields: string[] = [];
    for (const column of change.columns) {
      if (wanted !== null && !wanted.has(column.name)) continue;
      fields.push(`${JSON.stringify(column.name)}:${this.deps.values.toJson(column.typeOid, row[column.name])}`);
    }
    return `{${fields.join(',')}}`;
  }
}

/** Whether a listened column differs between the old and new row (IS DISTINCT FROM). */
function listenedColumnChanged(change: RowChange, columns: '*' | string[]): boolean {
  // Without the old row (REPLICA IDENTITY not FULL) nothing can be compared: fire.
  if (change.old === null || change.new === null) return true;
  const names = columns === '*' ? change.columns.map((column) => column.name) : columns;
  return names.some((name) => change.old![name] !== change.new![name]);
}
