import { describe, expect, it } from 'vitest';
import { encodeJsonWithRaw, RawJson } from './raw-json.js';

const text = (value: unknown) => Buffer.from(encodeJsonWithRaw(value)).toString('utf8');

describe('encodeJsonWithRaw', () => {
  it('splices raw JSON text in unparsed, keeping numbers JavaScript would round', () => {
    expect(text([{ affected_rows: 1 }, new RawJson('[{"id":9007199254740993}]')])).toBe('[{"affected_rows":1},[{"id":9007199254740993}]]');
  });

  it('encodes values without raw JSON as JSON.stringify does', () => {
    expect(text({ message: 'success', list: [1, 'raw0'] })).toBe('{"message":"success","list":[1,"raw0"]}');
  });
});
