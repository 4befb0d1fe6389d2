import { describe, expect, it } from 'vitest';
import { ServedKeys } from './served-keys.js';
import { seededRandom } from '../../../test/harness/seeded-random.js';

describe('ServedKeys', () => {
  it('holds the keys of each list, whatever came before: keys added, removed, moved or named twice', () => {
    const pick = seededRandom(3);
    const served = new ServedKeys<string>((key) => key);
    let keys: string[] = [];
    for (let step = 0; step < 2000; step++) {
      const next = [...keys];
      const at = pick(next.length + 1);
      const kind = pick(5);
      if (kind === 0) next.splice(at, 0, `k${pick(40)}`);
      else if (kind === 1) next.splice(at, 1);
      else if (kind === 2 && next.length > 0) next.splice(at, 0, next[pick(next.length)]!);
      else if (kind === 3 && next.length > 1) next.push(next.splice(at, 1)[0]!);
      else if (pick(20) === 0) next.length = 0;
      keys = next;
      const set = served.of(keys);
      for (let key = 0; key < 40; key++) expect(set.has(`k${key}`), `step ${step}: k${key}`).toBe(keys.includes(`k${key}`));
    }
  });
});
