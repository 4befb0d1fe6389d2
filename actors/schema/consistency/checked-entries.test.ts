import { describe, expect, it } from 'vitest';
import type { TableEntry } from '../../../src/metadata/types.js';
import type { InconsistentObject } from './inconsistency.js';
import { CheckedEntries } from './permission-outcomes.js';

/** A pass's outcome for table `name`, with a problem when asked. */
function outcome(name: string, broken = false): { checked: TableEntry; problems: InconsistentObject[] } {
  const checked: TableEntry = { table: { schema: 'public', name } };
  return { checked, problems: broken ? [{ type: 'table', definition: checked.table, reason: `${name} is broken` }] : [] };
}

/** What the entries and problems of `outcomes` are, read one by one. */
function expected(outcomes: ReturnType<typeof outcome>[]): { entries: TableEntry[]; problems: InconsistentObject[] } {
  return { entries: outcomes.map((item) => item.checked), problems: outcomes.flatMap((item) => item.problems) };
}

describe('CheckedEntries', () => {
  it('gives the entries and problems of outcomes kept, added, removed and replaced, as reading every outcome does', () => {
    const list = new CheckedEntries();
    let outcomes = Array.from({ length: 20 }, (_, i) => outcome(`t${i}`));
    const steps: ((items: ReturnType<typeof outcome>[]) => ReturnType<typeof outcome>[])[] = [
      (items) => items,
      (items) => [...items.slice(0, 5), outcome('new'), ...items.slice(5)],
      (items) => [...items.slice(0, 3), ...items.slice(6)],
      (items) => items.map((item, index) => (index === 10 ? outcome('replaced') : item)),
      (items) => [...items, outcome('last')],
      (items) => [outcome('first'), ...items],
      (items) => items.map((item, index) => (index === 7 ? outcome('broken', true) : item)),
      (items) => [...items.slice(0, 2), ...items.slice(4)],
      (items) => items.map((item) => (item.problems.length > 0 ? outcome('mended') : item)),
      (items) => [...items.slice(0, 12), outcome('a'), outcome('b'), ...items.slice(12)],
      (items) => items.slice(0, 8),
      () => [],
      () => [outcome('again')],
    ];
    for (const [step, change] of steps.entries()) {
      outcomes = change(outcomes);
      const problems: InconsistentObject[] = [];
      const entries = list.of(outcomes, problems);
      expect({ entries, problems }, `step ${step}`).toEqual(expected(outcomes));
      entries.forEach((entry, index) => expect(entry, `step ${step}, entry ${index}`).toBe(outcomes[index]!.checked));
    }
  });
});
