import { describe, expect, it } from 'vitest';
import { PairLruCache } from './pair-lru.js';

describe('PairLruCache', () => {
  it('keeps values by both keys, apart', () => {
    const cache = new PairLruCache<number>(10);
    cache.set('text', 'a', 1);
    cache.set('text', 'b', 2);
    cache.set('other', 'a', 3);
    expect([cache.get('text', 'a'), cache.get('text', 'b'), cache.get('other', 'a'), cache.get('other', 'b')]).toEqual([1, 2, 3, undefined]);
  });

  it('holds at most its capacity in all, evicting the entry used longest ago; a hit counts as a use', () => {
    const cache = new PairLruCache<number>(3);
    cache.set('t1', 'a', 1);
    cache.set('t1', 'b', 2);
    cache.set('t2', 'a', 3);
    expect(cache.get('t1', 'a')).toBe(1);
    cache.set('t3', 'a', 4);
    expect(cache.get('t1', 'b')).toBeUndefined();
    expect([cache.get('t1', 'a'), cache.get('t2', 'a'), cache.get('t3', 'a')]).toEqual([1, 3, 4]);
  });

  it('replacing an entry does not count it twice', () => {
    const cache = new PairLruCache<number>(2);
    cache.set('t', 'a', 1);
    cache.set('t', 'a', 2);
    cache.set('t', 'b', 3);
    expect([cache.get('t', 'a'), cache.get('t', 'b')]).toEqual([2, 3]);
  });

  it('keeps every entry of one first key when they fit, however many', () => {
    const cache = new PairLruCache<number>(100);
    for (let n = 0; n < 40; n++) cache.set('text', `op${n}`, n);
    for (let n = 0; n < 40; n++) expect(cache.get('text', `op${n}`)).toBe(n);
  });
});
