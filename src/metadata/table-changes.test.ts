import { describe, expect, it } from 'vitest';
import { tableChanges } from './table-changes.js';
import type { Metadata, TableEntry } from './types.js';

const trigger = { name: 'b_created', definition: { enable_manual: false, insert: { columns: '*' as const } }, retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 }, webhook: 'http://127.0.0.1:1/hook' };
const entry = (name: string, extra: Partial<TableEntry> = {}): TableEntry => ({ table: { schema: 'public', name }, ...extra });
const metadata = (tables: TableEntry[]): Metadata => ({ version: 3, sources: [{ name: 'default', kind: 'postgres', tables, configuration: {} }] }) as unknown as Metadata;

describe('tableChanges', () => {
  const a = entry('a');
  const b = entry('b', { event_triggers: [trigger] });
  const base = metadata([a, b]);

  it('tells that triggers changed when an entry with triggers comes or goes, and not for one without', () => {
    expect(tableChanges(base, metadata([a, b, entry('c')]))).toMatchObject({ inserted: [{ entry: { table: { name: 'c' } } }], triggersChanged: false });
    expect(tableChanges(base, metadata([b]))).toMatchObject({ removed: [{ name: 'a' }], triggersChanged: false });
    expect(tableChanges(base, metadata([a, b, entry('d', { event_triggers: [{ ...trigger, name: 'd_created' }] })]))).toMatchObject({ triggersChanged: true });
    expect(tableChanges(base, metadata([a]))).toMatchObject({ removed: [{ name: 'b' }], triggersChanged: true });
  });

  it('tells that triggers changed when a kept entry’s triggers changed, and not for its other parts', () => {
    expect(tableChanges(base, metadata([a, entry('b', { event_triggers: [trigger], select_permissions: [] })]))).toMatchObject({ changed: [{ entry: { table: { name: 'b' } } }], triggersChanged: false });
    expect(tableChanges(base, metadata([a, entry('b')]))).toMatchObject({ triggersChanged: true });
  });
});
