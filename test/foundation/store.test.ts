import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { METADATA_WRITE_LOCK, MetadataStore } from '../../src/metadata/store.js';
import { emptyMetadata, type Metadata } from '../../src/metadata/types.js';
import { createPool } from '../../src/pg/pool.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';

let db: TestDatabase;

/** Tracked tables come in no particular order. */
const byName = (tables: { schema: string; name: string }[]) => [...tables].sort((a, b) => a.name.localeCompare(b.name));

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db?.drop();
});

describe('MetadataStore', () => {
  it('sets itself up once even when several instances start together', async () => {
    await Promise.all([1, 2, 3, 4].map(() => new MetadataStore(db.pool).setUp()));
    const stored = await new MetadataStore(db.pool).read();
    expect(stored).toEqual({ resourceVersion: 1, metadata: emptyMetadata() });
  });

  it('lets exactly one of two writers from the same version win', async () => {
    const store = new MetadataStore(db.pool);
    const { resourceVersion } = await store.read();
    const a = { ...emptyMetadata(), remote_schemas: [{ name: 'a', definition: { url: 'http://a' } }] };
    const b = { ...emptyMetadata(), remote_schemas: [{ name: 'b', definition: { url: 'http://b' } }] };
    const results = await Promise.all([store.write(a, resourceVersion), store.write(b, resourceVersion)]);
    expect(results.filter((version) => version === resourceVersion + 1)).toHaveLength(1);
    expect(results.filter((version) => version === null)).toHaveLength(1);
    const winner = results[0] === null ? b : a;
    expect((await store.read()).metadata).toEqual(winner);
  });

  it('keeps key order as written (json, not jsonb), the row holding each source without its tables', async () => {
    const store = new MetadataStore(db.pool);
    const { resourceVersion } = await store.read();
    const metadata = { version: 3 as const, sources: [{ name: 'default', kind: 'postgres' as const, tables: [{ table: { schema: 'public', name: 'k' }, configuration: { custom_name: 'kay', column_config: {} } }], configuration: { b: 1, a: 2 } }] };
    await store.write(metadata as never, resourceVersion);
    const raw = await db.sql('select metadata::text as text from service_catalog.metadata');
    expect(raw.rows[0].text).toBe(JSON.stringify({ ...metadata, sources: [{ ...metadata.sources[0], tables: null }] }));
    expect(JSON.stringify((await store.read()).metadata)).toBe(JSON.stringify(metadata));
  });

  it('reads the triggers actor its view: every table by name, in order, with its event triggers and nothing else', async () => {
    const store = new MetadataStore(db.pool);
    const { resourceVersion } = await store.read();
    const trigger = { name: 'author_created', definition: { enable_manual: false, insert: { columns: '*' as const } }, retry_conf: { num_retries: 1, interval_sec: 10, timeout_sec: 60 }, webhook: 'http://127.0.0.1:1/hook' };
    const metadata = {
      version: 3 as const,
      sources: [{
        name: 'default',
        kind: 'postgres' as const,
        tables: [
          { table: { schema: 'public', name: 'b' }, select_permissions: [{ role: 'user', permission: { columns: ['id'], filter: {} } }] },
          { table: { schema: 'public', name: 'a' }, object_relationships: [{ name: 'b', using: { foreign_key_constraint_on: 'b_id' } }], event_triggers: [trigger] },
        ],
      }],
    };
    await store.write(metadata as never, resourceVersion);
    expect(await store.readTriggerView()).toEqual({
      resourceVersion: resourceVersion + 1,
      metadata: { version: 3, sources: [{ name: 'default', kind: 'postgres', tables: [{ table: { schema: 'public', name: 'a' }, event_triggers: [trigger] }] }] },
    });
  });

  it('cuts the view from the metadata itself when the row was written by other means than the store', async () => {
    const store = new MetadataStore(db.pool);
    const { resourceVersion, metadata } = await store.read();
    const tables = metadata.sources[0]!.tables;
    const trigger = tables.find((table) => table.table.name === 'a')!.event_triggers![0]!;
    const moved = { ...metadata, sources: [{ ...metadata.sources[0]!, tables: [{ table: { schema: 'public', name: 'c' }, event_triggers: [{ ...trigger, name: 'c_created' }] }, ...tables] }] };
    await db.sql('update service_catalog.metadata set metadata = $1, resource_version = resource_version + 1 where id = 1', [JSON.stringify(moved)]);
    expect(await store.readTriggerView()).toEqual({
      resourceVersion: resourceVersion + 1,
      metadata: { version: 3, sources: [{ name: 'default', kind: 'postgres', tables: [{ table: { schema: 'public', name: 'c' }, event_triggers: [{ ...trigger, name: 'c_created' }] }, { table: { schema: 'public', name: 'a' }, event_triggers: [trigger] }] }] },
    });
  });

  it('adds the trigger view to a catalog made before it, and keeps what it holds', async () => {
    const store = new MetadataStore(db.pool);
    const before = await store.read();
    await db.sql('alter table service_catalog.metadata drop column trigger_view, drop column trigger_view_version');
    await Promise.all([1, 2].map(() => new MetadataStore(db.pool).setUp()));
    expect(await store.read()).toEqual(before);
    const version = await store.write(before.metadata, before.resourceVersion);
    expect(version).toBe(before.resourceVersion + 1);
    const stored = await db.sql('select trigger_view_version, trigger_view::text as view from service_catalog.metadata');
    expect({ version: Number(stored.rows[0].trigger_view_version), view: JSON.parse(stored.rows[0].view) }).toEqual({ version, view: (await store.readTriggerView()).metadata });
  });

  it('writes only the table entries an operation changed, and reads them back in order', async () => {
    const store = new MetadataStore(db.pool);
    const entry = (name: string, extra: object = {}) => ({ table: { schema: 'public', name }, ...extra });
    const source = (tables: object[]) => ({ version: 3 as const, sources: [{ name: 'default', kind: 'postgres' as const, tables }] }) as never as Metadata;
    const { resourceVersion } = await store.read();
    const base = source([entry('a'), entry('b'), entry('c'), entry('d')]);
    await store.write(base, resourceVersion);
    const versions = async () => new Map((await db.sql('select table_name, xmin::text as xmin from service_catalog.metadata_tables')).rows.map((row) => [row.table_name, row.xmin]));
    const before = await versions();
    const [a, b, , d] = base.sources[0]!.tables;
    const next = source([a!, { ...b!, select_permissions: [{ role: 'user', permission: { columns: ['id'], filter: {} } }] }, d!, entry('e'), entry('f')]);
    expect(await store.write(next, resourceVersion + 1, undefined, base)).toBe(resourceVersion + 2);
    expect((await store.read()).metadata).toEqual(next);
    const after = await versions();
    expect(after.get('a')).toBe(before.get('a'));
    expect(after.get('d')).toBe(before.get('d'));
    expect(after.get('b')).not.toBe(before.get('b'));
    expect(after.has('c')).toBe(false);

    // Moved entries keep their order only through a whole write.
    const reordered = source([next.sources[0]!.tables[4]!, ...next.sources[0]!.tables.slice(0, 4)]);
    await store.write(reordered, resourceVersion + 2, undefined, next);
    expect((await store.read()).metadata).toEqual(reordered);
    expect((await db.sql('select count(*)::int as n from service_catalog.metadata_tables')).rows[0].n).toBe(5);
  });

  it('puts new entries where they sort, between stored ones, and writes everything when no room is left there', async () => {
    const store = new MetadataStore(db.pool);
    const entry = (name: string) => ({ table: { schema: 'public', name } });
    const source = (tables: object[]) => ({ version: 3 as const, sources: [{ name: 'default', kind: 'postgres' as const, tables }] }) as never as Metadata;
    const { resourceVersion } = await store.read();
    let current = source([entry('a'), entry('z')]);
    await store.write(current, resourceVersion);
    const xminOf = async (name: string) => (await db.sql('select xmin::text as xmin from service_catalog.metadata_tables where table_name = $1', [name])).rows[0]?.xmin as string;
    const first = await xminOf('a');
    // Each new entry goes just before the last: the room there halves each time, until a whole write spaces them out again.
    for (let i = 0; i < 25; i++) {
      const tables = current.sources[0]!.tables;
      const next = source([...tables.slice(0, -1), entry(`m${String(i).padStart(2, '0')}`), tables.at(-1)!]);
      await store.write(next, resourceVersion + 1 + i, undefined, current);
      expect((await store.read()).metadata).toEqual(next);
      current = next;
    }
    expect(await xminOf('a')).not.toBe(first);
    // At the start, and several between the same two entries.
    const tables = current.sources[0]!.tables;
    const next = source([entry('0'), tables[0]!, entry('b1'), entry('b2'), entry('b3'), ...tables.slice(1)]);
    const before = await xminOf('z');
    await store.write(next, resourceVersion + 26, undefined, current);
    expect((await store.read()).metadata).toEqual(next);
    expect(await xminOf('z')).toBe(before);
  });

  it('writes every entry when the stored ones are not those the change was made against', async () => {
    const store = new MetadataStore(db.pool);
    const stored = await store.read();
    const [first, ...rest] = stored.metadata.sources[0]!.tables;
    await db.sql('delete from service_catalog.metadata_tables where table_name = $1', [first!.table.name]);
    const next = { ...stored.metadata, sources: [{ ...stored.metadata.sources[0]!, tables: [{ ...first!, is_enum: true }, ...rest] }] } as Metadata;
    await store.write(next, stored.resourceVersion, undefined, stored.metadata);
    expect((await store.read()).metadata).toEqual(next);
  });

  it('writes nothing of a lost race or of a rolled-back transaction', async () => {
    const store = new MetadataStore(db.pool);
    const stored = await store.read();
    const next = { ...stored.metadata, sources: [{ ...stored.metadata.sources[0]!, tables: [...stored.metadata.sources[0]!.tables, { table: { schema: 'public', name: 'late' } }] }] };
    expect(await store.write(next, stored.resourceVersion - 1, undefined, stored.metadata)).toBeNull();
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      expect(await store.write(next, stored.resourceVersion, client, stored.metadata)).toBe(stored.resourceVersion + 1);
      await client.query('rollback');
    } finally {
      client.release();
    }
    expect(await store.read()).toEqual(stored);
  });

  it('reads a row written whole by other means as it is, and moves its tables out at the next write', async () => {
    const store = new MetadataStore(db.pool);
    const stored = await store.read();
    const whole = { ...stored.metadata, sources: [{ ...stored.metadata.sources[0]!, tables: [{ table: { schema: 'public', name: 'restored' } }, ...stored.metadata.sources[0]!.tables] }] };
    await db.sql('update service_catalog.metadata set metadata = $1, resource_version = resource_version + 1 where id = 1', [JSON.stringify(whole)]);
    expect((await store.read()).metadata).toEqual(whole);
    const next = { ...whole, sources: [{ ...whole.sources[0]!, tables: whole.sources[0]!.tables.slice(1) }] };
    await store.write(next, stored.resourceVersion + 1, undefined, whole);
    expect((await store.read()).metadata).toEqual(next);
    expect((await db.sql("select metadata->'sources'->0->'tables' as tables from service_catalog.metadata")).rows[0].tables).toBe('null');
  });

  it('keeps the tables and the triggers view when the version is moved on by other means', async () => {
    const store = new MetadataStore(db.pool);
    const stored = await store.read();
    const view = await store.readTriggerView();
    await db.sql('update service_catalog.metadata set resource_version = resource_version + 1 where id = 1');
    expect(await store.read()).toEqual({ resourceVersion: stored.resourceVersion + 1, metadata: stored.metadata });
    expect(await store.readTriggerView()).toEqual({ resourceVersion: stored.resourceVersion + 1, metadata: view.metadata });
  });

  it('reads the trigger view again only when a write changed it, and writes it only then', async () => {
    const store = new MetadataStore(db.pool);
    const trigger = { name: 'a_created', definition: { enable_manual: false, insert: { columns: '*' as const } }, retry_conf: { num_retries: 1, interval_sec: 10, timeout_sec: 60 }, webhook: 'http://127.0.0.1:1/hook' };
    const entry = (name: string, extra: object = {}) => ({ table: { schema: 'public', name }, ...extra });
    const source = (tables: object[]) => ({ version: 3 as const, sources: [{ name: 'default', kind: 'postgres' as const, tables }] }) as never as Metadata;
    const viewColumns = async () => (await db.sql('select trigger_view_written::int as written from service_catalog.metadata')).rows[0];
    let version = (await store.read()).resourceVersion;
    const a = entry('a');
    const base = source([a, entry('b')]);
    version = (await store.write(base, version))!;
    const first = await store.readTriggerViewSince(null);
    expect(first).toEqual({ stored: { resourceVersion: version, metadata: source([]) }, written: version });

    // A permission leaves the view as it was: kept, and not sent again.
    const withPermission = source([entry('a', { select_permissions: [{ role: 'user', permission: { columns: '*', filter: {} } }] }), (base.sources[0]!.tables[1]!)]);
    version = (await store.write(withPermission, version, undefined, base))!;
    expect((await viewColumns()).written).toBe(version - 1);
    const unchanged = await store.readTriggerViewSince(first);
    expect(unchanged.stored.resourceVersion).toBe(version);
    expect(unchanged.stored.metadata).toBe(first.stored.metadata);
    expect(await store.readTriggerView()).toEqual({ resourceVersion: version, metadata: first.stored.metadata });

    // A trigger changes it; a table without triggers tracked or untracked does not.
    const withTrigger = source([withPermission.sources[0]!.tables[0]!, entry('b', { event_triggers: [trigger] })]);
    version = (await store.write(withTrigger, version, undefined, withPermission))!;
    const triggered = await store.readTriggerViewSince(unchanged);
    expect(triggered).toEqual({ stored: { resourceVersion: version, metadata: source([entry('b', { event_triggers: [trigger] })]) }, written: version });
    const triggeredAt = version;
    const withTable = source([...withTrigger.sources[0]!.tables, entry('c')]);
    version = (await store.write(withTable, version, undefined, withTrigger))!;
    const withoutTable = source(withTable.sources[0]!.tables.slice(1));
    version = (await store.write(withoutTable, version, undefined, withTable))!;
    expect((await viewColumns()).written).toBe(triggeredAt);
    expect((await store.readTriggerViewSince(triggered)).stored.metadata).toBe(triggered.stored.metadata);
    expect(byName(await store.readTrackedTables())).toEqual([{ schema: 'public', name: 'b' }, { schema: 'public', name: 'c' }]);

    // An older engine rewrites the view, with every table, without telling when it changed: it is read whole, and written again by the next write.
    const byOlderEngine = source([entry('b', { event_triggers: [trigger, { ...trigger, name: 'b_older' }] }), entry('c')]);
    const latest = await store.readTriggerViewSince(null);
    await db.sql("update service_catalog.metadata_tables set entry = $1 where table_name = 'b'", [JSON.stringify(byOlderEngine.sources[0]!.tables[0])]);
    await db.sql('update service_catalog.metadata set trigger_view = $1, trigger_view_version = resource_version + 1, resource_version = resource_version + 1 where id = 1', [JSON.stringify(byOlderEngine)]);
    const afterOlderWrite = await store.readTriggerViewSince(latest);
    expect(afterOlderWrite).toEqual({ stored: { resourceVersion: latest.stored.resourceVersion + 1, metadata: byOlderEngine }, written: null });
    const afterOlder = await store.read();
    version = (await store.write({ ...afterOlder.metadata }, afterOlder.resourceVersion, undefined, afterOlder.metadata))!;
    const keptAgain = await store.readTriggerViewSince(null);
    expect(keptAgain).toEqual({ stored: { resourceVersion: version, metadata: source([byOlderEngine.sources[0]!.tables[0]!]) }, written: version });

    // A view left behind by a write by other means is written after all, even by a write that changed no trigger.
    await db.sql("update service_catalog.metadata set resource_version = resource_version + 1, trigger_view = '{}' where id = 1");
    const stale = await store.read();
    const renamed = source([entry('b', { event_triggers: [trigger], configuration: { custom_name: 'bee' } }), stale.metadata.sources[0]!.tables[1]!]);
    version = (await store.write(renamed, stale.resourceVersion, undefined, stale.metadata))!;
    const rewritten = await db.sql('select trigger_view_version::int as version, trigger_view_written::int as written, trigger_view::text as view from service_catalog.metadata');
    expect(rewritten.rows[0]).toMatchObject({ version, written: version });
    expect(JSON.parse(rewritten.rows[0].view)).toEqual(source([entry('b', { event_triggers: [trigger] })]));
    expect((await store.readTriggerViewSince(triggered)).stored.metadata).toEqual(source([entry('b', { event_triggers: [trigger] })]));

    // Untracking the table with the trigger changes it.
    const current = await store.read();
    version = (await store.write(source([current.metadata.sources[0]!.tables[1]!]), current.resourceVersion, undefined, current.metadata))!;
    expect(await store.readTriggerViewSince(triggered)).toEqual({ stored: { resourceVersion: version, metadata: source([]) }, written: version });
  });

  it('reads the tracked tables by name, from their entries or from a row that holds them', async () => {
    const store = new MetadataStore(db.pool);
    const entry = (name: string) => ({ table: { schema: 'public', name } });
    const source = (tables: object[]) => ({ version: 3 as const, sources: [{ name: 'default', kind: 'postgres' as const, tables }] }) as never as Metadata;
    const { resourceVersion } = await store.read();
    await store.write(source([entry('a'), entry('b')]), resourceVersion);
    expect(byName(await store.readTrackedTables())).toEqual([{ schema: 'public', name: 'a' }, { schema: 'public', name: 'b' }]);
    await db.sql('update service_catalog.metadata set metadata = $1, resource_version = resource_version + 1 where id = 1', [JSON.stringify(source([entry('c')]))]);
    expect(await store.readTrackedTables()).toEqual([{ schema: 'public', name: 'c' }]);
    await db.sql('update service_catalog.metadata set metadata = $1, resource_version = resource_version + 1 where id = 1', [JSON.stringify({ version: 3, sources: [] })]);
    expect(await store.readTrackedTables()).toEqual([]);
  });

  it('begins a writer with the version committed while it waited for the lock, whatever the default isolation, and runs the caller\'s statement in the same round trip', async () => {
    const store = new MetadataStore(db.pool);
    const name = new URL(db.url).pathname.slice(1);
    await db.sql(`alter database ${name} set default_transaction_isolation = 'repeatable read'`);
    // New connections take the setting: a pool of its own.
    const fresh = new pg.Pool({ connectionString: db.url, max: 2 });
    const holder = await fresh.connect();
    const waiter = await fresh.connect();
    try {
      const { resourceVersion } = await store.read();
      await holder.query(`begin; select pg_advisory_xact_lock(${METADATA_WRITE_LOCK})`);
      const begun = store.beginWrite(waiter as never, "select 'after the version' as also");
      await new Promise((resolve) => setTimeout(resolve, 200));
      await holder.query('update service_catalog.metadata set resource_version = resource_version + 1 where id = 1');
      await holder.query('commit');
      expect(await begun).toEqual({ version: resourceVersion + 1, alsoRows: [{ also: 'after the version' }] });
      expect((await waiter.query('show transaction_isolation')).rows[0].transaction_isolation).toBe('read committed');
      await waiter.query('rollback');
    } finally {
      holder.release();
      waiter.release();
      await fresh.end();
      await db.sql(`alter database ${name} reset default_transaction_isolation`);
    }
  });

  it('writes and commits in one round trip only a write complete in one statement, and rolls the whole transaction back otherwise', async () => {
    const store = new MetadataStore(db.pool);
    await store.setUp();
    const pipelined = createPool(db.url, { max: 1, applicationName: 'test-pipelined', pipeline: true });
    const entry = (name: string) => ({ table: { schema: 'public', name } });
    const withTables = (base: Metadata, tables: object[]) => ({ ...base, sources: [{ ...base.sources[0]!, tables }] }) as never as Metadata;
    const tablesOf = (metadata: Metadata) => metadata.sources[0]!.tables;
    // Each attempt makes a table in its transaction first, as track_table's publication change goes with the write: committed with it or not at all.
    const attempt = async (next: Metadata, expected: number, base: Metadata, marker: string): Promise<number | null> => {
      const client = await pipelined.connect();
      try {
        await client.query('begin');
        await client.query(`create table ${marker} ()`);
        return await store.writeAndCommit(next, expected, client, base);
      } finally {
        client.release();
      }
    };
    const exists = async (name: string) => (await db.sql('select to_regclass($1) is not null as found', [name])).rows[0].found as boolean;
    try {
      const before = await store.read();
      const start = { version: 3 as const, sources: [{ name: 'default', kind: 'postgres' as const, tables: [entry('a'), entry('b'), entry('c')] }] } as never as Metadata;
      await store.write(start, before.resourceVersion);
      const stored = await store.read();
      const added = withTables(stored.metadata, [...tablesOf(stored.metadata), entry('zz_one')]);
      expect(await attempt(added, stored.resourceVersion, stored.metadata, 'committed_with_write')).toBe(stored.resourceVersion + 1);
      expect(await store.read()).toEqual({ resourceVersion: stored.resourceVersion + 1, metadata: added });
      expect(await exists('committed_with_write')).toBe(true);

      const next = withTables(added, [...tablesOf(added), entry('zz_two')]);
      expect(await attempt(next, stored.resourceVersion, added, 'lost_race')).toBeNull();
      expect(await exists('lost_race')).toBe(false);

      // The trigger view last written by other means (an older engine): writing it takes a statement more.
      await db.sql('update service_catalog.metadata set trigger_view_kept = null where id = 1');
      expect(await attempt(next, stored.resourceVersion + 1, added, 'view_missing')).toBeNull();
      expect(await exists('view_missing')).toBe(false);
      expect(await store.read()).toEqual({ resourceVersion: stored.resourceVersion + 1, metadata: added });
      expect(await store.write(next, stored.resourceVersion + 1, undefined, added)).toBe(stored.resourceVersion + 2);

      // No room left between two neighbours: the entries are written whole, in steps.
      const [firstEntry, secondEntry] = tablesOf(next);
      await db.sql('update service_catalog.metadata_tables set position = (select position + 1 from service_catalog.metadata_tables where table_name = $1) where table_name = $2', [firstEntry!.table.name, secondEntry!.table.name]);
      const squeezed = withTables(next, [firstEntry!, entry('squeezed'), ...tablesOf(next).slice(1)]);
      expect(await attempt(squeezed, stored.resourceVersion + 2, next, 'no_room')).toBeNull();
      expect(await exists('no_room')).toBe(false);
      expect(await store.write(squeezed, stored.resourceVersion + 2, undefined, next)).toBe(stored.resourceVersion + 3);
      expect((await store.read()).metadata).toEqual(squeezed);

      // A removal is written in steps, then committed with the rest.
      const removed = withTables(squeezed, tablesOf(squeezed).filter((table) => table.table.name !== 'squeezed'));
      expect(await attempt(removed, stored.resourceVersion + 3, squeezed, 'committed_with_removal')).toBe(stored.resourceVersion + 4);
      expect(await store.read()).toEqual({ resourceVersion: stored.resourceVersion + 4, metadata: removed });
      expect(await exists('committed_with_removal')).toBe(true);

      // A changed entry whose stored row is gone: written whole, in steps.
      const [kept] = tablesOf(removed);
      await db.sql('delete from service_catalog.metadata_tables where table_name = $1', [kept!.table.name]);
      const flagged = withTables(removed, [{ ...kept!, is_enum: true }, ...tablesOf(removed).slice(1)]);
      expect(await attempt(flagged, stored.resourceVersion + 4, removed, 'entry_missing')).toBeNull();
      expect(await exists('entry_missing')).toBe(false);
      expect(await store.write(flagged, stored.resourceVersion + 4, undefined, removed)).toBe(stored.resourceVersion + 5);
      expect((await store.read()).metadata).toEqual(flagged);

      // A transaction failed before the write: its error, not a refusal.
      const client = await pipelined.connect();
      try {
        await client.query('begin');
        await expect(client.query('select 1 / 0')).rejects.toThrow(/division by zero/);
        await expect(store.writeAndCommit(next, stored.resourceVersion + 5, client, flagged)).rejects.toMatchObject({ code: '25P02' });
        expect(client.getTransactionStatus()).toBe('I');
      } finally {
        client.release();
      }
      expect((await store.read()).resourceVersion).toBe(stored.resourceVersion + 5);
    } finally {
      await pipelined.end();
    }
  });

  it('finds a changed entry by the index among thousands, not by reading them all', async () => {
    const store = new MetadataStore(db.pool);
    await store.setUp();
    const pipelined = createPool(db.url, { max: 1, applicationName: 'test-pipelined', pipeline: true });
    const entry = (name: string) => ({ table: { schema: 'public', name } });
    const source = (tables: object[]) => ({ version: 3 as const, sources: [{ name: 'default', kind: 'postgres' as const, tables }] }) as never as Metadata;
    try {
      const { resourceVersion } = await store.read();
      const base = source(Array.from({ length: 5000 }, (_, index) => entry(`wide_${String(index).padStart(4, '0')}`)));
      await store.write(base, resourceVersion);
      await db.sql('analyze service_catalog.metadata_tables');
      const tables = base.sources[0]!.tables;
      const next = source([...tables.slice(0, 2500), { ...tables[2500]!, is_enum: true }, ...tables.slice(2501)]);
      const client = await pipelined.connect();
      try {
        // Statistics reach other sessions when a backend flushes them: forced, and read afresh.
        const seqScans = async () => {
          await client.query('select pg_stat_force_next_flush()');
          return Number((await client.query("select pg_stat_clear_snapshot(), seq_scan from pg_stat_user_tables where relid = 'service_catalog.metadata_tables'::regclass")).rows[0].seq_scan);
        };
        const before = await seqScans();
        await client.query('begin');
        expect(await store.writeAndCommit(next, resourceVersion + 1, client, base)).toBe(resourceVersion + 2);
        expect(await seqScans()).toBe(before);
      } finally {
        client.release();
      }
      expect((await store.read()).metadata).toEqual(next);
    } finally {
      await pipelined.end();
    }
  });

  it('writes in steps where set-up could not make the function a one-statement write raises through, or it was dropped since', async () => {
    const withTable = (metadata: Metadata, name: string) => ({ ...metadata, sources: [{ ...(metadata.sources[0] ?? { name: 'default', kind: 'postgres' }), tables: [...(metadata.sources[0]?.tables ?? []), { table: { schema: 'public', name } }] }] }) as never as Metadata;
    const functionFound = async (database: TestDatabase) => (await database.sql("select to_regprocedure('service_catalog.write_needs_steps()') is not null as found")).rows[0].found as boolean;
    const writeAndCommit = async (store: MetadataStore, database: TestDatabase, name: string): Promise<number | null> => {
      const stored = await store.read();
      const client = await database.pool.connect();
      try {
        await client.query('begin');
        return await store.writeAndCommit(withTable(stored.metadata, name), stored.resourceVersion, client, stored.metadata);
      } finally {
        client.release();
      }
    };
    const withoutPlpgsql = await createTestDatabase();
    try {
      await withoutPlpgsql.sql('drop extension plpgsql');
      const store = new MetadataStore(withoutPlpgsql.pool);
      await store.setUp();
      expect(await functionFound(withoutPlpgsql)).toBe(false);
      const { resourceVersion } = await store.read();
      expect(await writeAndCommit(store, withoutPlpgsql, 'in_steps')).toBe(resourceVersion + 1);
      expect((await store.read()).metadata.sources[0]!.tables.map((entry) => entry.table.name)).toEqual(['in_steps']);
    } finally {
      await withoutPlpgsql.drop();
    }

    const pipelined = { ...db, pool: createPool(db.url, { max: 2, applicationName: 'test-pipelined', pipeline: true }) };
    const role = `no_execute_${Date.now()}`;
    try {
      const store = new MetadataStore(pipelined.pool);
      await store.setUp();
      await db.sql('drop function service_catalog.write_needs_steps()');
      const { resourceVersion } = await store.read();
      expect(await writeAndCommit(store, pipelined, 'after_drop')).toBeNull();
      expect((await store.read()).resourceVersion).toBe(resourceVersion);
      expect(await writeAndCommit(store, pipelined, 'after_drop')).toBe(resourceVersion + 1);
      await store.setUp();
      expect(await functionFound(db)).toBe(true);

      // A role that may not execute it: PostgreSQL refuses the write whether it calls it or not.
      const again = new MetadataStore(pipelined.pool);
      await again.setUp();
      await db.sql(`create role ${role}; grant usage on schema service_catalog to ${role}; grant select, insert, update, delete on all tables in schema service_catalog to ${role}; revoke execute on function service_catalog.write_needs_steps() from public`);
      const client = await pipelined.pool.connect();
      try {
        await client.query(`set role ${role}`);
        for (const expected of [null, resourceVersion + 2]) {
          const stored = await again.read();
          await client.query('begin');
          expect(await again.writeAndCommit(withTable(stored.metadata, `as_role_${String(expected)}`), stored.resourceVersion, client, stored.metadata)).toBe(expected);
        }
        await client.query('reset role');
      } finally {
        client.release();
      }
    } finally {
      await pipelined.pool.end();
      await db.sql(`grant execute on function service_catalog.write_needs_steps() to public; drop owned by ${role}; drop role if exists ${role}`);
    }
  });

  it('refuses a row holding some sources with their tables and some without', async () => {
    const store = new MetadataStore(db.pool);
    const { metadata } = await store.read();
    await db.sql('update service_catalog.metadata set metadata = $1, resource_version = resource_version + 1 where id = 1', [
      JSON.stringify({ ...metadata, sources: [{ name: 'default', kind: 'postgres', tables: [] }, { name: 'other', kind: 'postgres', tables: null }] }),
    ]);
    await expect(store.read()).rejects.toThrow(/some sources with their tables and some without/);
  });
});
