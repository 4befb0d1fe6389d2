import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/harness/seeded-random.js';
import { findTable, withTable } from './edit.js';
import { normalizeMetadata } from './normalize.js';
import { tablePositions, withTableAdded } from './table-order.js';
import { defaultSource, type Metadata, type QualifiedName, type TableEntry } from './types.js';

/** A stable sort's order of table entries: by name, then schema, in code units. */
const byName = (a: TableEntry, b: TableEntry) =>
  a.table.name < b.table.name ? -1 : a.table.name > b.table.name ? 1 : a.table.schema < b.table.schema ? -1 : a.table.schema > b.table.schema ? 1 : 0;

const scanned = (tables: readonly TableEntry[], table: QualifiedName) =>
  tables.flatMap((entry, index) => (entry.table.name === table.name && entry.table.schema === table.schema ? [index] : []));

describe('tablePositions', () => {
  it('finds in a normalised list, by bisection, the positions a scan finds: names twice, absent, at either end', () => {
    const pick = seededRandom(11);
    const name = (): QualifiedName => ({ schema: ['public', 'other', 'a"b'][pick(3)]!, name: `t${pick(60)}${pick(4) === 0 ? 'é' : ''}` });
    for (let round = 0; round < 200; round++) {
      const tables = Array.from({ length: pick(40) }, (): TableEntry => ({ table: name(), ...(pick(2) === 0 ? { is_enum: true } : {}) }));
      const normalized = normalizeMetadata({ version: 3, sources: [defaultSource(tables)] }).sources[0]!.tables;
      for (let probe = 0; probe < 20; probe++) {
        const table = probe === 0 && normalized.length > 0 ? normalized[0]!.table : probe === 1 && normalized.length > 0 ? normalized.at(-1)!.table : name();
        expect(tablePositions(normalized, table), `round ${round}`).toEqual(scanned(normalized, table));
        expect(tablePositions(tables, table), `round ${round}, as given`).toEqual(scanned(tables, table));
      }
    }
  });

  it('adds an entry where a stable sort of the list with it at the end puts it, and keeps the list known as sorted', () => {
    const pick = seededRandom(12);
    const name = (): QualifiedName => ({ schema: ['public', 'other'][pick(2)]!, name: `t${pick(30)}` });
    for (let round = 0; round < 300; round++) {
      const given = Array.from({ length: pick(30) }, (): TableEntry => ({ table: name() }));
      const normalized = normalizeMetadata({ version: 3, sources: [defaultSource(given)] }).sources[0]!.tables;
      const entry: TableEntry = { table: name(), is_enum: true };
      const added = withTableAdded(normalized, entry);
      const sorted = [...normalized, entry].sort(byName);
      expect(added, `round ${round}`).toEqual(sorted);
      expect(added.indexOf(entry), `round ${round}: the entry itself`).toBe(sorted.indexOf(entry));
      expect(tablePositions(added, entry.table), `round ${round}: found by bisection`).toEqual(scanned(added, entry.table));
      expect(normalized, `round ${round}: left as it was`).not.toContain(entry);
      // Added to a list it made: still known as sorted, so the next entry goes where it sorts too.
      const next: TableEntry = { table: name() };
      const twice = withTableAdded(added, next);
      expect(twice.indexOf(next), `round ${round}: a second entry`).toBe([...sorted, next].sort(byName).indexOf(next));
    }
    const unsorted: TableEntry[] = [{ table: { schema: 'public', name: 'b' } }, { table: { schema: 'public', name: 'a' } }];
    expect(withTableAdded(unsorted, { table: { schema: 'public', name: 'a' } }).map((entry) => entry.table.name)).toEqual(['b', 'a', 'a']);
  });

  it('edits every entry of a table named twice, in a list not known to be sorted', () => {
    const twice: TableEntry[] = [{ table: { schema: 'public', name: 'b' } }, { table: { schema: 'public', name: 'a' } }, { table: { schema: 'public', name: 'b' } }];
    const metadata: Metadata = { version: 3, sources: [defaultSource(twice)] };
    const edited = withTable(metadata, { schema: 'public', name: 'b' }, (entry) => ({ ...entry, is_enum: true }));
    expect(edited.sources[0]!.tables.map((entry) => entry.is_enum === true)).toEqual([true, false, true]);
    expect(twice.some((entry) => entry.is_enum === true)).toBe(false);
    expect(findTable(metadata, { schema: 'public', name: 'a' })).toBe(twice[1]);
    expect(findTable(metadata, { schema: 'other', name: 'a' })).toBeUndefined();
  });
});
