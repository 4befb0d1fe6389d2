import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/harness/seeded-random.js';
import { EntryCount } from './entry-count.js';

describe('EntryCount', () => {
  it('counts the matching entries of each list, whatever list came before', () => {
    const pick = seededRandom(5);
    const count = new EntryCount<{ marked: boolean }>((entry) => entry.marked);
    let entries: { marked: boolean }[] = [];
    for (let step = 0; step < 3000; step++) {
      const next = [...entries];
      const at = pick(next.length + 1);
      const kind = pick(6);
      if (kind <= 1) next.splice(at, 0, { marked: pick(3) === 0 });
      else if (kind === 2) next.splice(at, 1);
      else if (kind === 3 && at < next.length) next[at] = { marked: !next[at]!.marked };
      else if (kind === 4 && at < next.length) next.push(next.splice(at, 1)[0]!);
      // Now and then a list of other objects altogether (another source, a reload).
      else if (pick(20) === 0) next.splice(0, next.length, ...next.map((entry) => ({ ...entry })));
      expect(count.of(next), `step ${step}`).toBe(next.filter((entry) => entry.marked).length);
      entries = next;
    }
  });
});
