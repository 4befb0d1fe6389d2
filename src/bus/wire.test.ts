import { describe, expect, it } from 'vitest';
import { encodeDataBody } from './wire.js';

describe('encodeDataBody', () => {
  it('gives the bytes of {"data":<json>} for texts short and long, ASCII or not', () => {
    const rows = (count: number, name: string) => JSON.stringify(Array.from({ length: count }, (_, index) => ({ id: index, name })));
    // A JSON string of `length` characters: 1023 and 1024 lie each side of where the encoding changes.
    const string = (length: number) => `"${'x'.repeat(length - 2)}"`;
    const texts = ['null', '{}', rows(1, 'a'), string(1023), string(1024), rows(40, 'Track'), rows(40, 'Café'), rows(500, 'naïve 🎵'), rows(5000, 'plain'), `{"s":"${'é'.repeat(700)}"}`];
    for (const json of texts) {
      const bytes = encodeDataBody(json);
      expect(Buffer.from(bytes).equals(Buffer.from(`{"data":${json}}`)), `${json.length} characters`).toBe(true);
      expect(JSON.parse(Buffer.from(bytes).toString('utf8'))).toEqual({ data: JSON.parse(json) });
    }
  });

  it('writes nothing beyond its own bytes when they come from the shared pool', () => {
    const first = encodeDataBody(JSON.stringify({ a: 'y'.repeat(1500) }));
    const second = encodeDataBody(JSON.stringify({ b: 'z'.repeat(1500) }));
    expect(Buffer.from(first).toString('utf8')).toBe(`{"data":{"a":"${'y'.repeat(1500)}"}}`);
    expect(Buffer.from(second).toString('utf8')).toBe(`{"data":{"b":"${'z'.repeat(1500)}"}}`);
  });
});
