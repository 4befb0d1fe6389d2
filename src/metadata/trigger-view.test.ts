import { describe, expect, it } from 'vitest';
import { triggerView, triggerViewText } from './trigger-view.js';
import type { Metadata } from './types.js';

describe('triggerView', () => {
  it('keeps the tables with event triggers, in order, with them and nothing else', () => {
    const trigger = { name: 'a_created', definition: { enable_manual: false, insert: { columns: '*' as const } }, retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 }, webhook: 'http://127.0.0.1:1/hook' };
    const metadata = {
      version: 3,
      sources: [{
        name: 'default',
        kind: 'postgres',
        tables: [
          { table: { schema: 'public', name: 'b' }, select_permissions: [{ role: 'user', permission: { columns: ['id'], filter: {} } }] },
          { table: { schema: 'public', name: 'a' }, object_relationships: [{ name: 'b', using: { foreign_key_constraint_on: 'b_id' } }], event_triggers: [trigger] },
        ],
      }],
    } as unknown as Metadata;
    expect(triggerView(metadata)).toEqual({ version: 3, sources: [{ name: 'default', kind: 'postgres', tables: [{ table: { schema: 'public', name: 'a' }, event_triggers: [trigger] }] }] });
  });
});

describe('triggerViewText', () => {
  it('takes the stored view only when it was written with the row’s version', () => {
    expect(triggerViewText({ resource_version: '7', trigger_view_version: '7', trigger_view: '{"view":1}', metadata: '{"whole":1}' })).toBe('{"view":1}');
    expect(triggerViewText({ resource_version: '8', trigger_view_version: '7', trigger_view: '{"view":1}', metadata: '{"whole":1}' })).toBe('{"whole":1}');
    expect(triggerViewText({ resource_version: '8', trigger_view_version: null, trigger_view: null, metadata: '{"whole":1}' })).toBe('{"whole":1}');
  });

  it('gives null for a write that kept the view, and the view for the write that changed it', () => {
    expect(triggerViewText({ resource_version: '9', trigger_view_version: '9', trigger_view_written: '7', trigger_view_kept: '9', trigger_view: '{"view":1}', metadata: '{"whole":1}' })).toBeNull();
    expect(triggerViewText({ resource_version: '9', trigger_view_version: '9', trigger_view_written: '9', trigger_view_kept: '9', trigger_view: '{"view":2}', metadata: '{"whole":1}' })).toBe('{"view":2}');
    // Kept with an earlier version: written by other means since, so not known to be unchanged.
    expect(triggerViewText({ resource_version: '9', trigger_view_version: '9', trigger_view_written: '7', trigger_view_kept: '8', trigger_view: '{"view":1}', metadata: '{"whole":1}' })).toBe('{"view":1}');
  });

  it('falls back to the metadata when the replication stream left the view out as unchanged, and gives null when neither came', () => {
    expect(triggerViewText({ resource_version: '7', trigger_view_version: '7', metadata: '{"whole":1}' })).toBe('{"whole":1}');
    expect(triggerViewText({ resource_version: '7', trigger_view_version: '7' })).toBeNull();
  });

  it('keeps the stored view, of an older version, for a row holding its tables apart, and gives null when it did not come', () => {
    const apart = '{"version":3,"sources":[{"name":"default","kind":"postgres","tables":null}]}';
    expect(triggerViewText({ resource_version: '8', trigger_view_version: '7', trigger_view: '{"view":1}', metadata: apart })).toBe('{"view":1}');
    expect(triggerViewText({ resource_version: '8', trigger_view_version: '7', metadata: apart })).toBeNull();
    expect(triggerViewText({ resource_version: '8', trigger_view_version: '7', trigger_view: '{"view":1}', metadata: '{"sources":[{"tables":[],"configuration":{"tables":null}}]}' })).toBe('{"sources":[{"tables":[],"configuration":{"tables":null}}]}');
  });
});
