import { describe, expect, it } from 'vitest';
import { changedSpan } from '../../../src/metadata/changed-span.js';
import { seededRandom } from '../../../test/harness/seeded-random.js';
import { TableModels } from './table-models.js';

interface Model {
  key: string;
}

const KEYS = 30;

/** What a Map made from the list holds, in its order: the check the layers must pass. */
function expectSameAsMadeMap(tables: TableModels<Model>, models: readonly (Model | null)[], label: string): void {
  const made = new Map<string, Model>();
  for (const model of models) if (model !== null) made.set(model.key, model);
  for (let key = 0; key < KEYS; key++) expect(tables.get(`k${key}`), `${label}: k${key}`).toBe(made.get(`k${key}`));
}

describe('TableModels', () => {
  it('answers as a map made from each list, for every list kept, through edits of every kind', () => {
    const pick = seededRandom(11);
    let models: (Model | null)[] = [];
    let tables = TableModels.of<Model>(models);
    const kept: { tables: TableModels<Model>; models: (Model | null)[] }[] = [];
    for (let step = 0; step < 3000; step++) {
      const next = [...models];
      const at = pick(next.length + 1);
      const kind = pick(7);
      const absent = Array.from({ length: KEYS }, (_, key) => `k${key}`).filter((key) => !next.some((model) => model?.key === key));
      if (kind <= 1 && absent.length > 0) next.splice(at, 0, { key: absent[pick(absent.length)]! });
      else if (kind <= 2) next.splice(at, 1);
      else if (kind === 3 && at < next.length) next[at] = next[at] === null ? (absent.length > 0 ? { key: absent[pick(absent.length)]! } : null) : { key: next[at]!.key };
      else if (kind === 4 && at < next.length) next[at] = null;
      // The same key twice, as metadata written by other means may have it.
      else if (kind === 5 && next.length > 0 && pick(4) === 0) next.splice(at, 0, { key: next[pick(next.length)]?.key ?? 'k0' });
      else if (pick(30) === 0) next.length = 0;
      const span = changedSpan(models, next);
      tables = tables.followedBy(next, models.slice(span.start, span.beforeEnd), next.slice(span.start, span.afterEnd));
      models = next;
      expectSameAsMadeMap(tables, models, `step ${step}`);
      // Iterating makes the map, in the list's order, at any depth of layers.
      if (pick(25) === 0) {
        const made = new Map<string, Model>();
        for (const model of models) if (model !== null) made.set(model.key, model);
        expect([...tables.entries()], `step ${step}`).toEqual([...made.entries()]);
        expect(tables.size).toBe(made.size);
      }
      kept.push({ tables, models });
      if (kept.length > 40) kept.shift();
      // An older state is still served while the next is built: the layers over it leave it as it was.
      const older = kept[pick(kept.length)]!;
      expectSameAsMadeMap(older.tables, older.models, `step ${step}, an older list`);
    }
  });
});
