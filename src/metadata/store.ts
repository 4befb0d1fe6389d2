import type { Pool, PoolClient } from '../pg/pool.js';
import { inTransaction } from '../pg/transaction.js';
import { tableChanges, type TableChanges } from './table-changes.js';
import { triggerView } from './trigger-view.js';
import { emptyMetadata, type Metadata, type QualifiedName, type TableEntry } from './types.js';

export interface StoredMetadata {
  resourceVersion: number;
  metadata: Metadata;
}

/** A read of the trigger view, with the version it was written with (null when it was cut from the metadata instead). */
export interface TriggerViewRead {
  stored: StoredMetadata;
  written: number | null;
}

/** Serialises catalog set-up across instances starting together (an arbitrary constant). */
const SETUP_LOCK_KEY = 7_234_001;

/**
 * The advisory lock metadata writers of every instance take in their transaction (an
 * arbitrary constant): the schema actor's operations, and the triggers actor before it
 * drops the replication slot, so that a create_event_trigger cannot interleave.
 */
export const METADATA_WRITE_LOCK = 7_234_002;

/** Whether the metadata row holds its sources without their tables, which are rows of `service_catalog.metadata_tables`. */
const ROW_WITHOUT_TABLES = "pg_catalog.json_typeof(metadata->'sources'->0->'tables') = 'null'";

/** Whether the row's trigger view was written with its version of the metadata. */
const VIEW_CURRENT = 'trigger_view_version = resource_version and trigger_view is not null';

/**
 * Whether, besides, `trigger_view_written` tells when the view last changed: every write of
 * this engine sets `trigger_view_kept` to its version, a write of an older engine (which
 * rewrites the view without knowing the column) leaves it behind, and the view is then
 * read whole.
 */
const VIEW_KEPT = `${VIEW_CURRENT} and trigger_view_kept = resource_version`;

/*
 * The statements each metadata operation runs are named, planned once per connection:
 * planning them again cost about as much as running them (0.1-0.2 ms each).
 */

/**
 * The trigger view (trigger-view.ts): the one `write` stored with this version, else (the
 * row written by something else, or before the view was stored) cut from the metadata by
 * PostgreSQL, which then parses the whole JSON value, and reads the table entries where
 * the row holds them apart.
 */
const TRIGGER_VIEW_SQL = `
select resource_version, case when ${VIEW_KEPT} then trigger_view_written::text end as written,
       case when ${VIEW_CURRENT} then (case when ${VIEW_KEPT} and trigger_view_written = $1::bigint then null else trigger_view::text end)
  else json_build_object('version', 3, 'sources', coalesce((
    select json_agg(json_build_object('name', source_entry->'name', 'kind', source_entry->'kind', 'tables', coalesce((
      select json_agg(json_build_object('table', entry->'table', 'event_triggers', entry->'event_triggers') order by position)
        from (select entry, position
                from json_array_elements(case when json_typeof(source_entry->'tables') = 'array' then source_entry->'tables' else '[]' end) with ordinality as tables(entry, position)
              union all
              select stored.entry, stored.position from service_catalog.metadata_tables stored
               where json_typeof(source_entry->'tables') = 'null' and stored.source = source_entry->>'name') entries
        where case when json_typeof(entry->'event_triggers') = 'array' then json_array_length(entry->'event_triggers') > 0 else false end), '[]'::json))
      order by source_position)
      from json_array_elements(metadata->'sources') with ordinality as sources(source_entry, source_position)), '[]'::json))::text end as metadata
  from service_catalog.metadata where id = 1`;

/**
 * The row, then its table entries in order where it holds them apart, as one statement so
 * that both are of one version. The entries come as rows of text joined into arrays here:
 * having PostgreSQL aggregate them into one JSON value took 53 ms at 5,000 tables, rows 32.
 */
const READ_SQL = `
select 0 as part, null::text as source, 0::bigint as position, resource_version::text, metadata::text as text
  from service_catalog.metadata where id = 1
union all
select 1, source, position, null, entry::text
  from service_catalog.metadata_tables
 where (select ${ROW_WITHOUT_TABLES} from service_catalog.metadata where id = 1)
order by part, source, position`;

/**
 * The tables of the first source by name: from the rows of their entries where the row
 * holds them apart, else from the row's JSON. One statement, so of one version.
 */
const TRACKED_TABLES_SQL = `
select stored.table_schema as schema, stored.table_name as name
  from service_catalog.metadata, service_catalog.metadata_tables stored
 where id = 1 and ${ROW_WITHOUT_TABLES} and stored.source = metadata->'sources'->0->>'name'
union all
select entry->'table'->>'schema', entry->'table'->>'name'
  from service_catalog.metadata,
       json_array_elements(case when json_typeof(metadata->'sources'->0->'tables') = 'array' then metadata->'sources'->0->'tables' else '[]' end) as tables(entry)
 where id = 1`;

/** The trigger view of the row's version, when the write found the stored one was not current. */
const WRITE_VIEW_SQL = `
update service_catalog.metadata set trigger_view = $1, trigger_view_version = resource_version, trigger_view_written = resource_version, trigger_view_kept = resource_version where id = 1`;

/**
 * Room between two entries' positions: a whole write spaces them this far apart, so that
 * new entries take positions between their neighbours (a tracked table goes where its name
 * sorts) without moving the others, twenty times in one place before a whole write again.
 */
const POSITION_GAP = 1_048_576;

/** Every entry of one source, in order, from the JSON array of them. */
const INSERT_ALL_SQL = `
insert into service_catalog.metadata_tables (source, position, table_schema, table_name, entry)
select $1, (position - 1) * ${POSITION_GAP}, entry->'table'->>'schema', entry->'table'->>'name', entry
  from json_array_elements($2::json) with ordinality as entries(entry, position)`;

/**
 * The elements of `list`, a JSON array of `count` elements, as rows `value`. PostgreSQL plans
 * a set-returning function for 100 rows, and a join of 100 rows with the stored entries
 * as a hash join over all of them: from a few thousand entries on, every operation's write
 * read the whole table (1.3-2.8 ms of the write at 4,000-5,000, against 0.2 by the
 * index). A LIMIT the plan does not know it plans for 10, and joins those by the index.
 */
function elementsOf(list: string, count: string): string {
  return `(select value from pg_catalog.json_array_elements(${list}) limit ${count})`;
}

/** Updates the stored entries given as a JSON array of StoredEntry (`entries`, `count` of them), where `guard` holds. */
function updateChangedSql(entries: string, count: string, guard: string): string {
  return `update service_catalog.metadata_tables stored set entry = changed.value->'entry'
  from ${elementsOf(entries, count)} changed
 where ${guard}
   and stored.source = changed.value->>'source'
   and stored.table_schema = changed.value->'entry'->'table'->>'schema'
   and stored.table_name = changed.value->'entry'->'table'->>'name'`;
}

const UPDATE_CHANGED_SQL = updateChangedSql('$1::json', '$2::bigint', 'true');

/**
 * New entries given as a JSON array of InsertedEntry, each placed between the stored
 * entries around it; an entry whose neighbours are not stored, or have no room left between
 * them, is not inserted (the caller counts them and writes everything instead).
 */
function insertBetweenParts(entries: string, guard: string): { ctes: string; insert: string } {
  return {
    ctes: `wanted as (
  select value->>'source' as source, value->'entry' as entry, value->'after' as after, value->'before' as before,
         (value->>'rank')::bigint as rank, (value->>'of')::bigint + 1 as parts
    from json_array_elements(${entries})
   where ${guard}
), placed as (
  select wanted.*,
         (select position from service_catalog.metadata_tables stored
           where stored.source = wanted.source and stored.table_schema = after->>'schema' and stored.table_name = after->>'name') as after_position,
         (select position from service_catalog.metadata_tables stored
           where stored.source = wanted.source and stored.table_schema = before->>'schema' and stored.table_name = before->>'name') as before_position
    from wanted
), bounded as (
  select placed.*,
         coalesce(after_position, before_position - ${POSITION_GAP} * parts, 0) as low,
         coalesce(before_position, after_position + ${POSITION_GAP} * parts, ${POSITION_GAP} * parts) as high
    from placed
   where (after->>'schema' is null or after_position is not null) and (before->>'schema' is null or before_position is not null)
)`,
    insert: `insert into service_catalog.metadata_tables (source, position, table_schema, table_name, entry)
select source, low + (high - low) / parts * rank, entry->'table'->>'schema', entry->'table'->>'name', entry
  from bounded
 where (high - low) / parts >= 1`,
  };
}

const INSERT_BETWEEN_SQL = `with ${insertBetweenParts('$1::json', 'true').ctes}\n${insertBetweenParts('$1::json', 'true').insert}`;

/** Whether the row the write replaced held its tables apart: only then are its entries written with it. */
const ENTRIES_WRITTEN_WITH_ROW = 'coalesce((select without_tables from written), false)';

/**
 * The row's write, if the stored version is still the expected one, and whether the row it
 * replaced held its tables apart: only then do the stored entries match the metadata the
 * writer changed, and only the entries it changed need writing. The trigger view ($3) is
 * null when the write leaves it as it was: the stored one is then kept, if it was current
 * and kept by this engine (`view_missing` tells the writer it was not, and it writes the
 * view after all).
 * `trigger_view_written` is the version the view was last written with, which readers that
 * hold it already need not read again.
 * With the row, in the same statement, the changed entries ($4, StoredEntry, $6 of them) and
 * the new ones ($5, InsertedEntry) are written where the row held its tables apart: a round trip
 * less for every operation. The counts tell the writer whether all of them found their
 * rows and places.
 */
const WRITE_CTES = `
replaced as (
  select ${ROW_WITHOUT_TABLES} as without_tables, coalesce(${VIEW_KEPT}, false) as view_kept
    from service_catalog.metadata where id = 1 and resource_version = $2 for update
), written as (
  update service_catalog.metadata
     set metadata = $1, resource_version = resource_version + 1, updated_at = now(),
         trigger_view = case when $3::json is null and replaced.view_kept then trigger_view else $3::json end,
         trigger_view_version = case when $3::json is null and not replaced.view_kept then null else resource_version + 1 end,
         trigger_view_written = case when $3::json is null and replaced.view_kept then trigger_view_written else resource_version + 1 end,
         trigger_view_kept = resource_version + 1
    from replaced
   where id = 1 and resource_version = $2
  returning resource_version, coalesce(replaced.without_tables, false) as without_tables, $3::json is null and not replaced.view_kept as view_missing
), changed as (
  ${updateChangedSql('$4::json', '$6::bigint', ENTRIES_WRITTEN_WITH_ROW)}
  returning 1
), ${insertBetweenParts('$5::json', ENTRIES_WRITTEN_WITH_ROW).ctes}, inserted as (
  ${insertBetweenParts('$5::json', ENTRIES_WRITTEN_WITH_ROW).insert}
  returning 1
)`;

const WRITE_SQL = `with ${WRITE_CTES}
select resource_version, without_tables, view_missing, (select count(*) from changed) as changed, (select count(*) from inserted) as inserted
  from written`;

/** Raised by WRITE_ALONE_SQL where its write needs more statements: the transaction is then failed, and a COMMIT behind it rolls it back. */
export const WRITE_NEEDS_STEPS = 'SV001';

/** The function that raises WRITE_NEEDS_STEPS; plain SQL has no way to raise. */
const WRITE_NEEDS_STEPS_FUNCTION = `
create function service_catalog.write_needs_steps() returns bigint language plpgsql volatile as $$
begin
  raise exception using errcode = '${WRITE_NEEDS_STEPS}',
    message = 'service_catalog: this metadata write takes more than one statement',
    hint = 'The engine rolls it back and writes it again in steps; nothing is lost.';
end $$`;

/** Why write_needs_steps() may fail to be called after set-up: dropped since (undefined_function), or the role's right to execute it revoked (insufficient_privilege). */
const FUNCTION_GONE = new Set(['42883', '42501']);

/**
 * Finds or makes the function WRITE_ALONE_SQL raises through, under a savepoint (set-up
 * goes on without it where the role may not make it); whether it is there.
 */
async function writeNeedsStepsFunction(client: PoolClient): Promise<boolean> {
  // Looked up first: replacing a function every start would rewrite its catalog row for nothing.
  // PostgreSQL checks the right to execute it when the write starts, called or not.
  const found = await client.query<{ found: boolean; callable: boolean }>(
    "select pg_catalog.to_regprocedure('service_catalog.write_needs_steps()') is not null as found, coalesce(pg_catalog.has_function_privilege(pg_catalog.to_regprocedure('service_catalog.write_needs_steps()'), 'execute'), false) as callable",
  );
  if (found.rows[0]!.found) return found.rows[0]!.callable;
  await client.query('savepoint write_needs_steps');
  try {
    await client.query(WRITE_NEEDS_STEPS_FUNCTION);
    await client.query('release savepoint write_needs_steps');
    return true;
  } catch {
    await client.query('rollback to savepoint write_needs_steps; release savepoint write_needs_steps');
    return false;
  }
}

/**
 * WRITE_SQL as a write complete in itself, or an error: the new version where the row, every
 * changed entry and every new one were written and the view was kept, else it raises
 * (WRITE_NEEDS_STEPS), a lost race included. A COMMIT can then go with it in one round trip
 * (writeAndCommit), which commits only a complete write.
 */
const WRITE_ALONE_SQL = `with ${WRITE_CTES}
select coalesce((
  select resource_version from written
   where without_tables and not view_missing
     and (select count(*) from changed) = pg_catalog.json_array_length($4::json)
     and (select count(*) from inserted) = pg_catalog.json_array_length($5::json)
), service_catalog.write_needs_steps()) as resource_version`;

const DELETE_REMOVED_SQL = `
delete from service_catalog.metadata_tables
 where (source, table_schema, table_name) in (select * from unnest($1::text[], $2::text[], $3::text[]))`;

/**
 * The metadata object, kept in the served database (schema `service_catalog`) so that it
 * survives a restart of everything, NATS included (ARCHITECTURE decision 6). Writes use
 * optimistic concurrency on `resource_version`: two instances never lose each other's
 * change; the loser of a race re-reads and re-applies its operation.
 *
 * The row holds the metadata with each source's `tables` null, and each table entry is a
 * row of `service_catalog.metadata_tables`, in its source's order: a write changes the
 * entries its operation changed, where writing the whole JSON value of thousands of tables
 * (3.7 MB at 5,000) cost every operation tens of milliseconds. A row written by other means
 * with its tables in it (an older engine, a restore) is read as it is, and the next write
 * moves its tables out.
 */
export class MetadataStore {
  readonly #pool: Pool;
  /**
   * Whether writeAndCommit may send the write and COMMIT together: set-up found or made
   * service_catalog.write_needs_steps(), and this role may execute it. A role that may not
   * create or execute it (a catalog made by another role, no PL/pgSQL) writes in steps, as before.
   */
  #writesAlone = false;

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  /** Creates the catalog if it is missing; safe for several instances at once. */
  async setUp(): Promise<void> {
    await inTransaction(this.#pool, async (client) => {
      await client.query('select pg_advisory_xact_lock($1)', [SETUP_LOCK_KEY]);
      await client.query('create schema if not exists service_catalog');
      // json, not jsonb: jsonb reorders keys, and exports keep Hasura's key order.
      await client.query(`create table if not exists service_catalog.metadata (
        id integer primary key check (id = 1),
        resource_version bigint not null,
        metadata json not null,
        updated_at timestamptz not null default now(),
        trigger_view json,
        trigger_view_version bigint,
        trigger_view_written bigint,
        trigger_view_kept bigint
      )`);
      // The trigger view and the version it was written with (a write by other means leaves it
      // behind): added to a catalog made without them, only then, as ALTER TABLE locks the table.
      const viewColumns = await client.query("select 1 from pg_catalog.pg_attribute where attrelid = 'service_catalog.metadata'::regclass and attname in ('trigger_view', 'trigger_view_version', 'trigger_view_written', 'trigger_view_kept') and not attisdropped");
      if (viewColumns.rows.length < 4) {
        await client.query('alter table service_catalog.metadata add column if not exists trigger_view json, add column if not exists trigger_view_version bigint, add column if not exists trigger_view_written bigint, add column if not exists trigger_view_kept bigint');
      }
      await client.query(`create table if not exists service_catalog.metadata_tables (
        source text not null,
        position bigint not null,
        table_schema text not null,
        table_name text not null,
        entry json not null,
        primary key (source, table_schema, table_name)
      )`);
      await client.query('create index if not exists metadata_tables_order on service_catalog.metadata_tables (source, position)');
      this.#writesAlone = await writeNeedsStepsFunction(client);
      await client.query(
        'insert into service_catalog.metadata (id, resource_version, metadata) values (1, 1, $1) on conflict (id) do nothing',
        [JSON.stringify(emptyMetadata())],
      );
    });
  }

  async read(): Promise<StoredMetadata> {
    const result = await this.#pool.query<{ part: number; source: string | null; resource_version: string | null; text: string }>({ name: 'service_metadata_read', text: READ_SQL });
    const [row, ...entries] = result.rows;
    if (row === undefined || row.part !== 0) throw new Error('service_catalog.metadata has no row; was setUp() called?');
    return { resourceVersion: Number(row.resource_version), metadata: withTables(JSON.parse(row.text) as Metadata, entries) };
  }

  /**
   * The tables that have event triggers, with them (trigger-view.ts): all the triggers
   * actor reads, on every metadata change. `write` stores it beside the metadata, so that
   * neither PostgreSQL nor the engine parses the megabytes of thousands of tables for it.
   */
  async readTriggerView(): Promise<StoredMetadata> {
    return (await this.readTriggerViewSince(null)).stored;
  }

  /**
   * The trigger view, read again only where it changed since `known` (an earlier read):
   * most metadata operations leave it as it is. `known.stored.metadata` is then the view
   * returned.
   */
  async readTriggerViewSince(known: TriggerViewRead | null): Promise<TriggerViewRead> {
    const result = await this.#pool.query<{ resource_version: string; written: string | null; metadata: string | null }>({
      name: 'service_metadata_trigger_view',
      text: TRIGGER_VIEW_SQL,
      values: [known?.written ?? null],
    });
    const row = result.rows[0];
    if (row === undefined) throw new Error('service_catalog.metadata has no row; was setUp() called?');
    const written = row.written === null ? null : Number(row.written);
    const metadata = row.metadata === null && known !== null ? known.stored.metadata : (JSON.parse(row.metadata!) as Metadata);
    return { stored: { resourceVersion: Number(row.resource_version), metadata }, written };
  }

  /**
   * The tables the metadata tracks in its first source, by name: they follow the
   * publication for the subscriptions' change feed. The trigger view leaves them out.
   */
  async readTrackedTables(): Promise<QualifiedName[]> {
    return (await this.#pool.query<QualifiedName>({ name: 'service_metadata_tracked_tables', text: TRACKED_TABLES_SQL })).rows;
  }

  /**
   * Begins a metadata writer's transaction on `client`: BEGIN, the writers' lock and the
   * stored version as of holding it, in one round trip (every metadata operation pays it),
   * with `also` (a statement of the caller's, such as the catalog change log's read) run
   * last in the same round trip, its rows returned.
   * READ COMMITTED whatever the role's or database's default, so that the version is read
   * with a snapshot taken once the lock is held.
   */
  async beginWrite<Row = unknown>(client: PoolClient, also?: string): Promise<{ version: number; alsoRows: Row[] }> {
    const statements = [`begin isolation level read committed`, `select pg_advisory_xact_lock(${METADATA_WRITE_LOCK})`, 'select resource_version from service_catalog.metadata where id = 1'];
    if (also !== undefined) statements.push(also);
    const results = (await client.query(statements.join('; '))) as unknown as { rows: unknown[] }[];
    const row = Array.isArray(results) ? (results[2]?.rows[0] as { resource_version: string } | undefined) : undefined;
    if (row === undefined) throw new Error('service_catalog.metadata has no row; was setUp() called?');
    return { version: Number(row.resource_version), alsoRows: also === undefined ? [] : (results[3]!.rows as Row[]) };
  }

  /** Reads only the version, for cheap staleness checks. */
  async currentVersion(): Promise<number> {
    const result = await this.#pool.query<{ resource_version: string }>({ name: 'service_metadata_version', text: 'select resource_version from service_catalog.metadata where id = 1' });
    return Number(result.rows[0]?.resource_version ?? 0);
  }

  /**
   * Writes `metadata` if the stored version is still `expectedVersion`; returns the new
   * version, or null when another writer got there first. `base` is the metadata of that
   * version, which the stored table entries are then: only the entries that differ from it
   * are written. Inside `transaction`, the write commits with whatever else the transaction
   * did (run_sql).
   */
  async write(metadata: Metadata, expectedVersion: number, transaction?: PoolClient, base?: Metadata): Promise<number | null> {
    const write = async (client: PoolClient): Promise<number | null> => {
      const changes = base === undefined ? null : tableChanges(base, metadata);
      // Without removals the entries go with the row; a removal goes first, on its own (writeTableChanges).
      const withRow = changes !== null && changes.removed.length === 0 ? changes : null;
      const result = await client.query<{ resource_version: string; without_tables: boolean; view_missing: boolean; changed: string; inserted: string }>({
        name: 'service_metadata_write',
        text: WRITE_SQL,
        values: writeValues(metadata, expectedVersion, base, changes, withRow),
      });
      const row = result.rows[0];
      if (row === undefined) return null;
      if (row.view_missing) await client.query({ name: 'service_metadata_write_view', text: WRITE_VIEW_SQL, values: [JSON.stringify(triggerView(metadata))] });
      const entriesWritten =
        changes !== null &&
        row.without_tables &&
        (withRow !== null ? Number(row.changed) === withRow.changed.length && Number(row.inserted) === withRow.inserted.length : await writeTableChanges(client, changes));
      if (!entriesWritten) await writeAllTables(client, metadata);
      return Number(row.resource_version);
    };
    return transaction === undefined ? inTransaction(this.#pool, write) : write(transaction);
  }

  /**
   * Writes `metadata` in `transaction` and commits it, the write and the COMMIT sent together
   * (one round trip on a pipelining client, createPool): the new version, or null where the
   * write takes more than one statement (a view or entries to write whole, new entries with
   * no room between their neighbours), another writer got there first, or the function it
   * raises through was dropped or may no longer be executed: the transaction was then rolled
   * back by the COMMIT. Either way the transaction is over. `base` is the metadata of
   * `expectedVersion`, as for `write`. Entries to write whole or removed are written in steps
   * (`write`), then committed, and so is everything where that function cannot be used.
   */
  async writeAndCommit(metadata: Metadata, expectedVersion: number, transaction: PoolClient, base: Metadata): Promise<number | null> {
    const changes = this.#writesAlone ? tableChanges(base, metadata) : null;
    if (changes === null || changes.removed.length > 0) {
      const version = await this.write(metadata, expectedVersion, transaction, base);
      await transaction.query(version === null ? 'rollback' : 'commit');
      return version;
    }
    const writing = transaction.query<{ resource_version: string }>({ name: 'service_metadata_write_alone', text: WRITE_ALONE_SQL, values: writeValues(metadata, expectedVersion, base, changes, changes) });
    const committing = transaction.query('commit');
    const [written, committed] = await Promise.allSettled([writing, committing]);
    if (written.status === 'rejected') {
      const code = (written.reason as { code?: unknown }).code;
      // Rolled back by the COMMIT behind it, to be applied again in steps; a function gone since set-up is not called again.
      if (committed.status === 'fulfilled' && (code === WRITE_NEEDS_STEPS || FUNCTION_GONE.has(code as string))) {
        if (code !== WRITE_NEEDS_STEPS) this.#writesAlone = false;
        return null;
      }
      throw written.reason;
    }
    if (committed.status === 'rejected') throw committed.reason;
    return Number(written.value.rows[0]!.resource_version);
  }
}

/** WRITE_SQL's values: the row, the version written over, the trigger view (null where unchanged), the changed and new entries where they go with the row, and how many changed. */
function writeValues(metadata: Metadata, expectedVersion: number, base: Metadata | undefined, changes: TableChanges | null, withRow: TableChanges | null): unknown[] {
  const view = changes !== null && !changesTriggerView(base!, metadata, changes) ? null : JSON.stringify(triggerView(metadata));
  return [JSON.stringify(withoutTables(metadata)), expectedVersion, view, JSON.stringify(withRow?.changed ?? []), JSON.stringify(withRow?.inserted ?? []), withRow?.changed.length ?? 0];
}

/** Whether the trigger view of `next` differs from that of `base`, which `changes` tell apart (no triggers changed, came or went). */
function changesTriggerView(base: Metadata, next: Metadata, changes: TableChanges): boolean {
  if (changes.triggersChanged) return true;
  return base.sources.some((source, index) => source.kind !== next.sources[index]?.kind);
}

function withoutTables(metadata: Metadata): Metadata {
  return { ...metadata, sources: metadata.sources.map((source) => ({ ...source, tables: null as unknown as TableEntry[] })) };
}

/** The metadata with the table entries (rows of JSON text, by source in order) put back into the sources the row holds without them. */
function withTables(metadata: Metadata, entries: readonly { source: string | null; text: string }[]): Metadata {
  const apart = metadata.sources.filter((source) => (source.tables as TableEntry[] | null) === null).length;
  if (apart === 0) return metadata;
  if (apart < metadata.sources.length) {
    throw new Error('service_catalog.metadata holds some sources with their tables and some without: write the metadata whole (replace_metadata) or restore the row');
  }
  const texts = new Map<string, string[]>();
  for (const entry of entries) {
    let source = texts.get(entry.source!);
    if (source === undefined) texts.set(entry.source!, (source = []));
    source.push(entry.text);
  }
  return { ...metadata, sources: metadata.sources.map((source) => ({ ...source, tables: JSON.parse(`[${(texts.get(source.name) ?? []).join(',')}]`) as TableEntry[] })) };
}

async function writeAllTables(client: PoolClient, metadata: Metadata): Promise<void> {
  await client.query('delete from service_catalog.metadata_tables');
  for (const source of metadata.sources) {
    if (source.tables.length > 0) await client.query(INSERT_ALL_SQL, [source.name, JSON.stringify(source.tables)]);
  }
}

/**
 * Writes the changed entries; false when the stored entries are not the ones `changes` was
 * made against (an entry to update or remove is missing) or the new ones found no place, and
 * only a whole write will do.
 */
async function writeTableChanges(client: PoolClient, changes: TableChanges): Promise<boolean> {
  if (changes.removed.length > 0) {
    const removed = await client.query({ name: 'service_metadata_tables_remove', text: DELETE_REMOVED_SQL, values: [changes.removed.map((gone) => gone.source), changes.removed.map((gone) => gone.schema), changes.removed.map((gone) => gone.name)] });
    if (removed.rowCount !== changes.removed.length) return false;
  }
  if (changes.changed.length > 0) {
    const updated = await client.query({ name: 'service_metadata_tables_update', text: UPDATE_CHANGED_SQL, values: [JSON.stringify(changes.changed), changes.changed.length] });
    if (updated.rowCount !== changes.changed.length) return false;
  }
  if (changes.inserted.length === 0) return true;
  const inserted = await client.query({ name: 'service_metadata_tables_insert', text: INSERT_BETWEEN_SQL, values: [JSON.stringify(changes.inserted)] });
  return inserted.rowCount === changes.inserted.length;
}
