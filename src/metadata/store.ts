import type { Pool, PoolClient } from '../pg/pool.js';
import { inTransaction } from '../pg/transaction.js';
import { triggerView } from './trigger-view.js';
import { emptyMetadata, type Metadata } from './types.js';

export interface StoredMetadata {
  resourceVersion: number;
  metadata: Metadata;
}

/** Serialises catalog set-up across instances starting together (an arbitrary constant). */
const SETUP_LOCK_KEY = 7_234_001;

/**
 * The advisory lock metadata writers of every instance take in their transaction (an
 * arbitrary constant): the schema actor's operations, and the triggers actor before it
 * drops the replication slot, so that a create_event_trigger cannot interleave.
 */
export const METADATA_WRITE_LOCK = 7_234_002;

/**
 * The trigger view (trigger-view.ts): the one `write` stored with this version, else (the
 * row written by something else, or before the view was stored) cut from the metadata by
 * PostgreSQL, which then parses the whole JSON value.
 */
const TRIGGER_VIEW_SQL = `
select resource_version, case when trigger_view_version = resource_version and trigger_view is not null then trigger_view::text
  else json_build_object('version', 3, 'sources', coalesce((
    select json_agg(json_build_object('name', source->'name', 'kind', source->'kind', 'tables', coalesce((
      select json_agg(case when entry->'event_triggers' is null
                           then json_build_object('table', entry->'table')
                           else json_build_object('table', entry->'table', 'event_triggers', entry->'event_triggers') end
                      order by position)
        from json_array_elements(source->'tables') with ordinality as tables(entry, position)), '[]'::json))
      order by position)
      from json_array_elements(metadata->'sources') with ordinality as sources(source, position)), '[]'::json))::text end as metadata
  from service_catalog.metadata where id = 1`;

/**
 * The metadata object, kept in the served database (schema `service_catalog`) so that it
 * survives a restart of everything, NATS included (ARCHITECTURE decision 6). Writes use
 * optimistic concurrency on `resource_version`: two instances never lose each other's
 * change; the loser of a race re-reads and re-applies its operation.
 */
export class MetadataStore {
  readonly #pool: Pool;

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
        trigger_view_version bigint
      )`);
      // The trigger view and the version it was written with (a write by other means leaves it
      // behind): added to a catalog made without them, only then, as ALTER TABLE locks the table.
      const viewColumn = await client.query("select 1 from pg_catalog.pg_attribute where attrelid = 'service_catalog.metadata'::regclass and attname = 'trigger_view' and not attisdropped");
      if (viewColumn.rows.length === 0) await client.query('alter table service_catalog.metadata add column trigger_view json, add column trigger_view_version bigint');
      await client.query(
        'insert into service_catalog.metadata (id, resource_version, metadata) values (1, 1, $1) on conflict (id) do nothing',
        [JSON.stringify(emptyMetadata())],
      );
    });
  }

  async read(): Promise<StoredMetadata> {
    const result = await this.#pool.query<{ resource_version: string; metadata: string }>(
      'select resource_version, metadata from service_catalog.metadata where id = 1',
    );
    const row = result.rows[0];
    if (row === undefined) throw new Error('service_catalog.metadata has no row; was setUp() called?');
    return { resourceVersion: Number(row.resource_version), metadata: JSON.parse(row.metadata) as Metadata };
  }

  /**
   * The stored metadata with each table entry cut to its name and event triggers
   * (trigger-view.ts): all the triggers actor reads, on every metadata change.
   * `write` stores it beside the metadata, so that neither PostgreSQL nor the engine parses
   * the megabytes of thousands of tables for it.
   */
  async readTriggerView(): Promise<StoredMetadata> {
    const result = await this.#pool.query<{ resource_version: string; metadata: string }>(TRIGGER_VIEW_SQL);
    const row = result.rows[0];
    if (row === undefined) throw new Error('service_catalog.metadata has no row; was setUp() called?');
    return { resourceVersion: Number(row.resource_version), metadata: JSON.parse(row.metadata) as Metadata };
  }

  /** Reads only the version, for cheap staleness checks. */
  async currentVersion(): Promise<number> {
    const result = await this.#pool.query<{ resource_version: string }>('select resource_version from service_catalog.metadata where id = 1');
    return Number(result.rows[0]?.resource_version ?? 0);
  }

  /**
   * Writes `metadata` if the stored version is still `expectedVersion`; returns the new
   * version, or null when another writer got there first. Inside `transaction`, the write
   * commits with whatever else the transaction did (run_sql).
   */
  async write(metadata: Metadata, expectedVersion: number, transaction?: PoolClient): Promise<number | null> {
    const result = await (transaction ?? this.#pool).query<{ resource_version: string }>(
      `update service_catalog.metadata
          set metadata = $1, resource_version = resource_version + 1, updated_at = now(),
              trigger_view = $3, trigger_view_version = resource_version + 1
        where id = 1 and resource_version = $2
        returning resource_version`,
      [JSON.stringify(metadata), expectedVersion, JSON.stringify(triggerView(metadata))],
    );
    const row = result.rows[0];
    return row === undefined ? null : Number(row.resource_version);
  }
}
