import { describe, expect, it } from 'vitest';
import { jsonTextTooDeep, jsonValueTooDeep } from './nesting.js';

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('jsonTextTooDeep', () => {
  it('allows the limit and refuses one level more, of arrays and of objects', () => {
    expect(jsonTextTooDeep(nested(100))).toBe(false);
    expect(jsonTextTooDeep(nested(101))).toBe(true);
    expect(jsonTextTooDeep(`${'{"a":'.repeat(3)}1}}}`, 3)).toBe(false);
    expect(jsonTextTooDeep(`${'{"a":'.repeat(4)}1}}}}`, 3)).toBe(true);
  });

  it('does not count brackets inside strings, however long', () => {
    expect(jsonTextTooDeep(JSON.stringify({ query: `mutation { x(objects: ${nested(500)}) }` }))).toBe(false);
    expect(jsonTextTooDeep(JSON.stringify({ query: '['.repeat(50_000) }))).toBe(false);
  });

  it('takes an escaped quote as part of its string, and a quote after escaped backslashes as its end', () => {
    // "[\"[[[" is one string; the brackets after it count.
    expect(jsonTextTooDeep(`["[\\"[[[", ${nested(2)}]`, 2)).toBe(true);
    expect(jsonTextTooDeep(`["[\\"[[[", ${nested(1)}]`, 2)).toBe(false);
    // "\\" ends at its second quote: the brackets after it count.
    expect(jsonTextTooDeep(`["\\\\", ${nested(2)}]`, 2)).toBe(true);
    expect(jsonTextTooDeep(`["\\\\\\"[[[", 1]`, 1)).toBe(false);
  });

  it('agrees with a character-by-character reading on texts with strings, escapes and brackets', () => {
    const values = [{ a: ['x"]', { b: 'y\\' }, [[['\\"[']]]] }, ['\\\\', '"', [['{']]], { q: 'a\\"b', n: [[[[[1]]]]] }];
    for (const value of values) {
      const text = JSON.stringify(value);
      for (const limit of [1, 2, 3, 4, 5, 6]) expect(jsonTextTooDeep(text, limit)).toBe(jsonValueTooDeep(value, limit));
    }
  });

  it('reads an unterminated string to the end without counting what is in it', () => {
    expect(jsonTextTooDeep(`{"a": "${'['.repeat(200)}`)).toBe(false);
  });
});
