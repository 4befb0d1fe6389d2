import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetadataStore } from '../../src/metadata/store.js';
import { emptyMetadata } from '../../src/metadata/types.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';

let db: TestDatabase;

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

  it('keeps key order as written (json, not jsonb)', async () => {
    const store = new MetadataStore(db.pool);
    const { resourceVersion } = await store.read();
    const metadata = { version: 3 as const, sources: [{ name: 'default', kind: 'postgres' as const, tables: [] }] };
    await store.write(metadata, resourceVersion);
    const raw = await db.sql('select metadata::text as text from service_catalog.metadata');
    expect(raw.rows[0].text).toBe(JSON.stringify(metadata));
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
      metadata: { version: 3, sources: [{ name: 'default', kind: 'postgres', tables: [{ table: { schema: 'public', name: 'b' } }, { table: { schema: 'public', name: 'a' }, event_triggers: [trigger] }] }] },
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
      metadata: { version: 3, sources: [{ name: 'default', kind: 'postgres', tables: [{ table: { schema: 'public', name: 'c' }, event_triggers: [{ ...trigger, name: 'c_created' }] }, { table: { schema: 'public', name: 'b' } }, { table: { schema: 'public', name: 'a' }, event_triggers: [trigger] }] }] },
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
});
