import { describe, expect, it } from 'vitest';
import { parseJsonExactNumbers } from './exact-numbers.js';

describe('parseJsonExactNumbers', () => {
  it('keeps numbers JavaScript holds exactly, and the others as their text', () => {
    expect(parseJsonExactNumbers('[1, "public", "author", 9007199254740993]')).toEqual([1, 'public', 'author', '9007199254740993']);
    expect(parseJsonExactNumbers('{"id" : 12, "price": 0.1, "big": 123456789012345678901234.5, "neg": -9007199254740993}')).toEqual({ id: 12, price: 0.1, big: '123456789012345678901234.5', neg: '-9007199254740993' });
  });

  it('leaves digits inside strings alone, escapes included', () => {
    expect(parseJsonExactNumbers('["9007199254740993", "a\\"9007199254740993"]')).toEqual(['9007199254740993', 'a"9007199254740993']);
  });

  it('refuses what JSON.parse refuses', () => {
    expect(() => parseJsonExactNumbers('[1, ')).toThrow();
    expect(() => parseJsonExactNumbers('[01]')).toThrow();
  });
});
