import type { EventByIdRequest, EventLogsRequest, InvocationLogsRequest, InvokeRequest, RedeliverRequest } from '../../../src/bus/messages/triggers.js';
import { TRIGGERS_VERBS, type TriggersVerb } from '../../../src/bus/subjects.js';
import { errors } from '../../../src/errors/errors.js';
import { findTable, sameTable, withTable } from '../../../src/metadata/edit.js';
import { NAME_RULES } from '../../../src/metadata/name-rules.js';
import { RETRY_DEFAULTS, type ColumnList, type EventTriggerEntry, type HeaderConf, type Metadata, type QualifiedName, type TableEntry } from '../../../src/metadata/types.js';
import { qualified } from '../../../src/pg/quote.js';
import { relationKey } from '../../../src/pg/catalog.js';
import { captureTable, currentSlotName, ensurePublication, ensureSlot, releaseTables, slotExists } from '../../../src/pg/replication/publication.js';
import { displayName, toQualified } from '../../../src/metadata/names.js';
import { SUCCESS, type Operation, type OperationContext } from './operation.js';

/**
 * The event trigger operations of `/v1/query` (interface 2.6, 4.2; compat-facts 4.5, 4.6).
 * create and delete change the metadata and, in the same transaction, the publication
 * and the table's replica identity, so the first change committed after the operation
 * returns is captured. invoke, redeliver and the log reads are the triggers actor's:
 * they travel on `<p>.triggers.<verb>`.
 */

const TRIGGER_NAME = NAME_RULES['trigger-name'];

/** Asks the triggers actor, which owns the event and invocation logs, over `<p>.triggers.<verb>`. */
function askTriggers<T>(context: OperationContext, verb: TriggersVerb, message: unknown): Promise<T> {
  return context.request<T>((subjects) => subjects.triggers(verb), message);
}

interface OperationSpecArg {
  columns: ColumnList;
  payload?: ColumnList;
}

interface CreateArgs {
  name: string;
  table: QualifiedName | string;
  webhook?: string;
  webhook_from_env?: string;
  insert?: OperationSpecArg;
  update?: OperationSpecArg;
  delete?: OperationSpecArg;
  enable_manual?: boolean;
  retry_conf?: Partial<EventTriggerEntry['retry_conf']>;
  headers?: HeaderConf[];
  replace?: boolean;
}

interface FoundTrigger {
  table: QualifiedName;
  entry: EventTriggerEntry;
}

export function findTrigger(context: OperationContext, name: string): FoundTrigger | undefined {
  for (const table of context.metadata.sources[0]?.tables ?? []) {
    const entry = table.event_triggers?.find((trigger) => trigger.name === name);
    if (entry !== undefined) return { table: table.table, entry };
  }
  return undefined;
}

function existingTrigger(context: OperationContext, name: string, path: string): FoundTrigger {
  const found = findTrigger(context, name);
  if (found === undefined) throw errors.notExists(path, `event trigger ${JSON.stringify(name)} does not exist`);
  return found;
}

/** compat-facts 4.5 parse-stage checks, with Hasura's texts, answered at `$`. */
function checkShape(args: CreateArgs): void {
  if (!TRIGGER_NAME.test(args.name)) throw errors.parseFailed('$', TRIGGER_NAME.problem(args.name));
  if (args.insert === undefined && args.update === undefined && args.delete === undefined && args.enable_manual !== true) {
    throw errors.parseFailed('$', 'atleast one amongst insert/update/delete/enable_manual spec must be provided');
  }
  if (args.webhook !== undefined && args.webhook_from_env !== undefined) throw errors.parseFailed('$', 'only one of webhook or webhook_from_env should be given');
  if (args.webhook === undefined && args.webhook_from_env === undefined) throw errors.parseFailed('$', 'must provide webhook or webhook_from_env');
  for (const spec of [args.insert, args.update, args.delete]) {
    if (Array.isArray(spec?.columns) && spec.columns.length === 0) throw errors.parseFailed('$', 'found empty column specification');
    if (Array.isArray(spec?.payload) && spec.payload.length === 0) throw errors.parseFailed('$', 'found empty payload specification');
  }
}

function checkAgainstDatabase(context: OperationContext, args: CreateArgs, table: QualifiedName): void {
  const path = context.argsPath;
  const relation = context.catalog.relations.get(relationKey(table.schema, table.name));
  if (findTable(context.metadata, table) === undefined || relation === undefined) {
    throw errors.notExists(`${path}.table`, `table ${JSON.stringify(displayName(table))} does not exist`);
  }
  if (relation.kind !== 'r' && relation.kind !== 'p') {
    throw errors.notSupported(`${path}.table`, `event triggers are supported on tables only; ${JSON.stringify(displayName(table))} is not a table`);
  }
  const columns = new Set(relation.columns.map((column) => column.name));
  for (const op of ['insert', 'update', 'delete'] as const) {
    for (const key of ['columns', 'payload'] as const) {
      const list = args[op]?.[key];
      if (!Array.isArray(list)) continue;
      list.forEach((column, index) => {
        if (!columns.has(column)) {
          throw errors.notExists(`${path}.${op}.${key}[${index}]`, `column ${JSON.stringify(column)} does not exist in table ${JSON.stringify(displayName(table))}`);
        }
      });
    }
  }
  if (args.webhook_from_env !== undefined && process.env[args.webhook_from_env] === undefined) throw errors.environmentVariableNotSet(`${path}.webhook_from_env`, args.webhook_from_env);
  args.headers?.forEach((header, index) => {
    if (header.value_from_env !== undefined && process.env[header.value_from_env] === undefined) throw errors.environmentVariableNotSet(`${path}.headers[${index}]`, header.value_from_env);
    if ((header.value === undefined) === (header.value_from_env === undefined)) {
      throw errors.parseFailed(`${path}.headers[${index}]`, 'give exactly one of value or value_from_env');
    }
  });
}

/** The metadata entry, in Hasura's export form: retry_conf complete, enable_manual spelled out. */
function toEntry(args: CreateArgs): EventTriggerEntry {
  const definition: EventTriggerEntry['definition'] = { enable_manual: args.enable_manual === true };
  for (const op of ['insert', 'update', 'delete'] as const) {
    const spec = args[op];
    if (spec !== undefined) definition[op] = spec.payload === undefined ? { columns: spec.columns } : { columns: spec.columns, payload: spec.payload };
  }
  const entry: EventTriggerEntry = { name: args.name, definition, retry_conf: { ...RETRY_DEFAULTS, ...args.retry_conf } };
  if (args.webhook !== undefined) entry.webhook = args.webhook;
  else entry.webhook_from_env = args.webhook_from_env!;
  if (args.headers !== undefined && args.headers.length > 0) entry.headers = args.headers;
  return entry;
}

const withTriggers = (entry: TableEntry, change: (triggers: EventTriggerEntry[]) => EventTriggerEntry[]): TableEntry => ({
  ...entry,
  event_triggers: change(entry.event_triggers ?? []),
});

/**
 * Publication first, then the slot (pgoutput cannot read WAL from before its
 * publication), both outside the request's transaction: a slot cannot be created in a
 * transaction that wrote. The request holds the metadata writers' lock meanwhile, so the
 * triggers actor cannot drop the slot in between.
 */
async function prepareCapture(context: OperationContext): Promise<void> {
  await ensurePublication(context.db);
  const slot = await currentSlotName(context.db);
  if (await slotExists(context.db, slot)) return;
  // Creating a slot waits for every transaction that has an id to end, ours included:
  // after SQL that wrote (run_sql earlier in a bulk) it would wait forever.
  const transaction = await context.transaction();
  const wrote = await transaction.query<{ wrote: boolean }>('select pg_current_xact_id_if_assigned() is not null as wrote');
  if (wrote.rows[0]?.wrote === true) {
    throw errors.notSupported(context.argsPath, 'the first event trigger of a database cannot follow SQL that writes in the same bulk; run the SQL in a request of its own first');
  }
  await ensureSlot(context.db, slot);
}

/** The tables of `metadata` that have at least one event trigger. */
function triggerTables(metadata: Metadata): QualifiedName[] {
  return (metadata.sources[0]?.tables ?? []).filter((table) => (table.event_triggers ?? []).length > 0).map((table) => table.table);
}


/**
 * For operations that replace the metadata wholesale (replace_metadata, clear_metadata):
 * every table with a trigger in `metadata` joins the publication with REPLICA IDENTITY
 * FULL in the request's transaction, as create_event_trigger does, and a table that lost
 * its last trigger and is not tracked any more leaves it. The reader switches to the new triggers at the metadata
 * row's WAL position, so no change committed after the request returns is missed.
 * Tables that do not exist are left to the consistency check.
 */
export async function syncEventCapture(context: OperationContext, metadata: Metadata): Promise<void> {
  const wanted = triggerTables(metadata);
  const had = triggerTables(context.metadata);
  if (wanted.length === 0 && had.length === 0) return;
  if (wanted.length > 0) await prepareCapture(context);
  const transaction = await context.transaction();
  for (const table of wanted) {
    const found = await transaction.query<{ kind: string | null }>('select (select relkind::text from pg_class where oid = to_regclass($1)) as kind', [qualified(table.schema, table.name)]);
    const kind = found.rows[0]?.kind;
    if (kind === 'r' || kind === 'p') await captureTable(transaction, table);
  }
  // A table that stays tracked stays in the publication (the subscriptions' change feed).
  const tracked = (metadata.sources[0]?.tables ?? []).map((entry) => entry.table);
  await releaseTables(transaction, had.filter((table) => !wanted.some((other) => sameTable(other, table)) && !tracked.some((other) => sameTable(other, table))));
}

export const createEventTrigger: Operation<CreateArgs> = {
  type: 'create_event_trigger',
  argsSchema: 'query/create_event_trigger',
  async run(args, context) {
    checkShape(args);
    const table = toQualified(args.table);
    const existing = findTrigger(context, args.name);
    if (args.replace === true) {
      if (existing === undefined) throw errors.notExists(`${context.argsPath}.name`, `event trigger ${JSON.stringify(args.name)} does not exist`);
      if (existing.table.schema !== table.schema || existing.table.name !== table.name) {
        throw errors.notSupported(`${context.argsPath}.table`, 'cannot replace table or schema for trigger');
      }
    } else if (existing !== undefined) {
      throw errors.alreadyExists(`${context.argsPath}.name`, `Event trigger with name ${JSON.stringify(args.name)} already exists`);
    }
    checkAgainstDatabase(context, args, table);
    await prepareCapture(context);
    await captureTable(await context.transaction(), table);
    const entry = toEntry(args);
    const metadata = withTable(context.metadata, table, (tableEntry) =>
      withTriggers(tableEntry, (triggers) => [...triggers.filter((trigger) => trigger.name !== args.name), entry]),
    );
    return { response: SUCCESS, metadata };
  },
};

export const deleteEventTrigger: Operation<{ name: string }> = {
  type: 'delete_event_trigger',
  argsSchema: 'query/delete_event_trigger',
  async run(args, context) {
    const { table } = existingTrigger(context, args.name, `${context.argsPath}.name`);
    // The table stays in the publication, as every tracked table does (the subscriptions'
    // change feed); the trigger's events stay in the log, archived.
    const metadata = withTable(context.metadata, table, (entry) => withTriggers(entry, (triggers) => triggers.filter((trigger) => trigger.name !== args.name)));
    return { response: SUCCESS, metadata };
  },
};

export const invokeEventTrigger: Operation<{ name: string; payload: unknown }> = {
  type: 'invoke_event_trigger',
  argsSchema: 'query/invoke_event_trigger',
  readOnly: true,
  async run(args, context) {
    const { table, entry } = existingTrigger(context, args.name, `${context.argsPath}.name`);
    if (entry.definition.enable_manual !== true) throw errors.notSupported(`${context.argsPath}.name`, 'manual mode is not enabled for event trigger');
    const response = await askTriggers<{ event_id: string }>(context, TRIGGERS_VERBS.invoke, {
      trigger: entry.name,
      table,
      payload: args.payload ?? null,
      session_variables: context.session.variables,
    } satisfies InvokeRequest);
    return { response };
  },
};

export const redeliverEvent: Operation<{ event_id: string }> = {
  type: 'redeliver_event',
  argsSchema: 'query/redeliver_event',
  readOnly: true,
  async run(args, context) {
    return { response: await askTriggers(context, TRIGGERS_VERBS.redeliver, { event_id: args.event_id } satisfies RedeliverRequest) };
  },
};

export const getEventLogs: Operation<{ trigger_name: string; status?: 'pending' | 'processed' | 'all'; limit?: number; offset?: number }> = {
  type: 'get_event_logs',
  argsSchema: 'query/get_event_logs',
  readOnly: true,
  async run(args, context) {
    return {
      response: await askTriggers(context, TRIGGERS_VERBS.eventLogs, { trigger_name: args.trigger_name, status: args.status ?? 'all', limit: args.limit ?? 100, offset: args.offset ?? 0 } satisfies EventLogsRequest),
    };
  },
};

export const getEventInvocationLogs: Operation<{ trigger_name: string; limit?: number; offset?: number }> = {
  type: 'get_event_invocation_logs',
  argsSchema: 'query/get_event_invocation_logs',
  readOnly: true,
  async run(args, context) {
    return { response: await askTriggers(context, TRIGGERS_VERBS.invocationLogs, { trigger_name: args.trigger_name, limit: args.limit ?? 100, offset: args.offset ?? 0 } satisfies InvocationLogsRequest) };
  },
};

export const getEventById: Operation<{ event_id: string; invocation_log_limit?: number; invocation_log_offset?: number }> = {
  type: 'get_event_by_id',
  argsSchema: 'query/get_event_by_id',
  readOnly: true,
  async run(args, context) {
    return {
      response: await askTriggers(context, TRIGGERS_VERBS.eventById, {
        event_id: args.event_id,
        invocation_log_limit: args.invocation_log_limit ?? 100,
        invocation_log_offset: args.invocation_log_offset ?? 0,
      } satisfies EventByIdRequest),
    };
  },
};

export const EVENT_TRIGGER_OPERATIONS = [createEventTrigger, deleteEventTrigger, invokeEventTrigger, redeliverEvent, getEventLogs, getEventInvocationLogs, getEventById];
