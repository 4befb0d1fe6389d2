import { describe, expect, it } from 'vitest';
import { jsonTextTooDeep, jsonValueTooDeep } from './nesting.js';

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** The reading jsonTextTooDeep must agree with: every character in turn, a backslash in a string taking the next one with it. */
function tooDeepCharByChar(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '[' || char === '{') {
      if (++depth > limit) return true;
    } else if (char === ']' || char === '}') depth--;
  }
  return false;
}

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

  it('agrees with the parsed value\'s depth on texts with strings, escapes and brackets', () => {
    const values = [{ a: ['x"]', { b: 'y\\' }, [[['\\"[']]]] }, ['\\\\', '"', [['{']]], { q: 'a\\"b', n: [[[[[1]]]]] }];
    for (const value of values) {
      const text = JSON.stringify(value);
      for (const limit of [1, 2, 3, 4, 5, 6]) expect(jsonTextTooDeep(text, limit)).toBe(jsonValueTooDeep(value, limit));
    }
  });

  it('agrees with a character-by-character reading on any text, valid JSON or not', () => {
    // A seeded generator: the same 5,000 texts on every run.
    let seed = 16;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const alphabet = '"\\[]{}a,';
    for (let round = 0; round < 5_000; round++) {
      const text = Array.from({ length: Math.floor(next() * 24) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
      for (const limit of [0, 1, 2, 3]) expect(jsonTextTooDeep(text, limit), JSON.stringify(text)).toBe(tooDeepCharByChar(text, limit));
    }
  });

  it('reads an unterminated string to the end without counting what is in it', () => {
    expect(jsonTextTooDeep(`{"a": "${'['.repeat(200)}`)).toBe(false);
  });
});
