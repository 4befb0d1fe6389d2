import { describe, expect, it } from 'vitest';
import { normalizeMetadata } from './normalize.js';
import { defaultSource, type Metadata, type TableEntry } from './types.js';
import { seededRandom } from '../../test/harness/seeded-random.js';

/** An entry as an operation would make it: its permissions in the order given, not normalised. */
function entry(name: string, schema: string, roles: string[]): TableEntry {
  return { table: { schema, name }, select_permissions: roles.map((role) => ({ role, permission: { columns: ['id'], filter: {} } })) };
}

const withTables = (metadata: Metadata, tables: TableEntry[]): Metadata => ({ ...metadata, sources: [{ ...metadata.sources[0]!, tables }] });

describe('normalizeMetadata', () => {
  it('sorts and normalises the entries an edit changed among those it left in place, as a normalisation from scratch does', () => {
    const pick = seededRandom(7);
    const name = () => `t${pick(5000)}`;
    let metadata = normalizeMetadata({ version: 3, sources: [defaultSource(Array.from({ length: 200 }, (_, i) => entry(`t${i * 25}`, 'public', ['b', 'a'])))] });
    for (let step = 0; step < 300; step++) {
      const tables = [...metadata.sources[0]!.tables];
      const at = pick(tables.length + 1);
      const kind = pick(4);
      // New entries go anywhere (not where they sort), changed ones get roles out of order, some go.
      if (kind === 0) tables.splice(at, 0, entry(name(), pick(2) === 0 ? 'public' : 'other', ['z', 'm']));
      else if (kind === 1 && tables.length > 0) tables.splice(Math.min(at, tables.length - 1), 1);
      else if (kind === 2 && tables.length > 0) {
        const place = Math.min(at, tables.length - 1);
        tables[place] = { ...tables[place]!, select_permissions: [...(tables[place]!.select_permissions ?? []), { role: `r${pick(9)}`, permission: { columns: ['id'], filter: {} } }].reverse() };
      } else tables.splice(at, 0, entry(name(), 'public', []), entry(name(), 'public', ['c']));
      const edited = withTables(metadata, tables);
      // From scratch: new objects throughout. Then the last version once more, so that the
      // edited list is compared with the one it was made from, as after an operation.
      const fromScratch = normalizeMetadata(structuredClone(edited));
      normalizeMetadata(metadata);
      metadata = normalizeMetadata(edited);
      expect(JSON.stringify(metadata), `step ${step}`).toBe(JSON.stringify(fromScratch));
      const result = metadata.sources[0]!.tables;
      const key = (table: TableEntry) => `${table.table.name}\u0000${table.table.schema}`;
      expect(result.map(key), `step ${step}: sorted`).toEqual(tables.map(key).sort());
      for (const table of result) {
        const roles = (table.select_permissions ?? []).map((item) => item.role);
        expect(roles, `step ${step}: ${key(table)}'s permissions by role`).toEqual([...roles].sort());
      }
    }
  });

  it('stays right when the list normalised last is another one', () => {
    const first = normalizeMetadata({ version: 3, sources: [defaultSource([entry('b', 'public', []), entry('a', 'public', [])])] });
    const other = normalizeMetadata({ version: 3, sources: [{ ...defaultSource([entry('d', 'public', []), entry('c', 'public', [])]), name: 'other' }] });
    expect(first.sources[0]!.tables.map((table) => table.table.name)).toEqual(['a', 'b']);
    expect(other.sources[0]!.tables.map((table) => table.table.name)).toEqual(['c', 'd']);
    const again = normalizeMetadata(withTables(first, [...first.sources[0]!.tables, entry('0', 'public', [])]));
    expect(again.sources[0]!.tables.map((table) => table.table.name)).toEqual(['0', 'a', 'b']);
  });
});
