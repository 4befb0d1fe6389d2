import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/harness/seeded-random.js';
import { findTable, withTable } from './edit.js';
import { normalizeMetadata } from './normalize.js';
import { tablePositions } from './table-order.js';
import { defaultSource, type Metadata, type QualifiedName, type TableEntry } from './types.js';

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
