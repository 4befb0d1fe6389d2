import { RETRY_DEFAULTS, type ColumnList, type EventTriggerEntry, type Metadata, type QualifiedName } from '../../src/metadata/types.js';

export type ChangeOp = 'INSERT' | 'UPDATE' | 'DELETE';

export interface ResolvedHeader {
  name: string;
  value: string;
  /** What the invocation log shows: the configured `{name, value_from_env}` or `{name, value}`. */
  logged: { name: string; value?: string; value_from_env?: string };
}

/** One trigger as capture and delivery use it. */
export interface Trigger {
  name: string;
  table: QualifiedName;
  entry: EventTriggerEntry;
  /** The webhook URL, `webhook_from_env` resolved; null when the variable is unset. */
  webhook: string | null;
  headers: ResolvedHeader[];
  retry: { num_retries: number; interval_sec: number; timeout_sec: number };
}

/**
 * The event triggers of one metadata object, by table and by name (interface 2.6).
 * Environment values are resolved once, when the set is built (compat-facts 4.1).
 */
export class TriggerSet {
  /** By schema, then table: capture looks up every change's table, and a joined key was a new string to hash each time. */
  readonly #byTable = new Map<string, Map<string, Trigger[]>>();
  readonly #byName = new Map<string, Trigger>();

  constructor(metadata: Metadata | null, env: NodeJS.ProcessEnv = process.env) {
    for (const source of metadata?.sources ?? []) {
      for (const table of source.tables) {
        for (const entry of table.event_triggers ?? []) {
          const trigger: Trigger = {
            name: entry.name,
            table: table.table,
            entry,
            webhook: entry.webhook ?? (entry.webhook_from_env === undefined ? null : env[entry.webhook_from_env] ?? null),
            headers: (entry.headers ?? []).map((header) => ({
              name: header.name,
              value: header.value ?? (header.value_from_env === undefined ? '' : env[header.value_from_env] ?? ''),
              logged: header.value_from_env === undefined ? { name: header.name, value: header.value ?? '' } : { name: header.name, value_from_env: header.value_from_env },
            })),
            retry: { ...RETRY_DEFAULTS, ...entry.retry_conf },
          };
          this.#byName.set(entry.name, trigger);
          let tables = this.#byTable.get(table.table.schema);
          if (tables === undefined) this.#byTable.set(table.table.schema, (tables = new Map()));
          tables.set(table.table.name, [...(tables.get(table.table.name) ?? []), trigger]);
        }
      }
    }
  }

  get size(): number {
    return this.#byName.size;
  }

  byName(name: string): Trigger | undefined {
    return this.#byName.get(name);
  }

  onTable(schema: string, name: string): readonly Trigger[] {
    return this.#byTable.get(schema)?.get(name) ?? [];
  }

  /** The tables that have at least one trigger: what the publication must hold. */
  tables(): QualifiedName[] {
    return [...this.#byTable.values()].flatMap((tables) => [...tables.values()].map((triggers) => triggers[0]!.table));
  }
}

/** The operation spec of `op`, if the trigger fires on it. */
export function specFor(trigger: Trigger, op: ChangeOp): { columns: ColumnList; payload?: ColumnList } | undefined {
  const definition = trigger.entry.definition;
  return op === 'INSERT' ? definition.insert : op === 'UPDATE' ? definition.update : definition.delete;
}
