import { describe, expect, it } from 'vitest';
import type { TableEntry } from '../../../src/metadata/types.js';
import { relationKey, type Catalog } from '../../../src/pg/catalog.js';
import { laterNameClaims, tableNamesOf } from './root-fields.js';

/** laterNameClaims as it was before the name index: every name of every table, every time. */
function fromScratch(entries: readonly TableEntry[], names: (entry: TableEntry) => string[]): Map<TableEntry, { name: string; holder: unknown }> {
  const claimed = new Map<string, unknown>();
  const clashes = new Map<TableEntry, { name: string; holder: unknown }>();
  const customizes = (entry: TableEntry) => entry.configuration?.custom_name !== undefined || Object.keys(entry.configuration?.custom_root_fields ?? {}).length > 0;
  for (const entry of [...entries.filter((entry) => !customizes(entry)), ...entries.filter(customizes)]) {
    const own = new Set<string>();
    const taken = names(entry).find((name) => {
      const clash = claimed.has(name) || own.has(name);
      own.add(name);
      return clash;
    });
    if (taken !== undefined) {
      clashes.set(entry, { name: taken.slice(taken.indexOf('.') + 1), holder: claimed.get(taken) ?? entry.table });
      continue;
    }
    for (const name of names(entry)) claimed.set(name, entry.table);
  }
  return clashes;
}

/** A small random generator, seeded, so a failure repeats. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('laterNameClaims', () => {
  it('gives what a run over every table gives, through appends, removals and replaced entries in any order', () => {
    const next = random(7);
    const relations = new Map<string, unknown>();
    const table = (i: number) => ({ schema: 'public', name: `t${i}` });
    for (let i = 0; i < 40; i++) relations.set(relationKey('public', `t${i}`), { primaryKey: i % 3 === 0 ? [] : [{ name: 'id' }] });
    const catalog = { relations } as unknown as Catalog;
    const entry = (i: number): TableEntry => {
      const roll = next();
      // Custom names from a small pool, so that tables clash with each other and with themselves.
      if (roll < 0.2) return { table: table(i), configuration: { custom_name: `t${Math.floor(next() * 40)}` } };
      if (roll < 0.3) return { table: table(i), configuration: { custom_root_fields: { select: `t${Math.floor(next() * 40)}`, select_aggregate: next() < 0.3 ? `t${i}` : `agg${i}` } } };
      return { table: table(i) };
    };
    let entries: TableEntry[] = [];
    let clashesSeen = 0;
    for (let step = 0; step < 400; step++) {
      const roll = next();
      if (roll < 0.45 || entries.length === 0) entries = [...entries, entry(Math.floor(next() * 40))];
      else if (roll < 0.65) entries = entries.filter((_, index) => index !== Math.floor(next() * entries.length));
      else {
        const at = Math.floor(next() * entries.length);
        entries = entries.map((item, index) => (index === at ? entry(Number(item.table.name.slice(1))) : item));
      }
      const ours = laterNameClaims(entries, catalog);
      clashesSeen += ours.size;
      const theirs = fromScratch(entries, (given) => [...tableNamesOf(given, catalog)]);
      expect([...ours].map(([key, clash]) => [entries.indexOf(key), clash.name, clash.holder])).toEqual([...theirs].map(([key, clash]) => [entries.indexOf(key), clash.name, clash.holder]));
    }
    expect(clashesSeen).toBeGreaterThan(100);
  });
});
