import { describe, expect, it } from 'vitest';
import { formatPath, pointerSegments } from './json-path.js';

describe('JSON paths in Hasura notation', () => {
  it('writes ordinary keys with dots and indexes in brackets', () => {
    expect(formatPath(['args', 'tables', 0, 'table'])).toBe('$.args.tables[0].table');
  });

  it('quotes keys that are not plain identifiers', () => {
    expect(formatPath(['args', 'x-service-role', '1st', 'a b', "it's"])).toBe(
      "$.args.x-service-role['1st']['a b']['it\\'s']",
    );
  });

  it('reads JSON pointers, unescaping ~0 and ~1 and turning digits into indexes', () => {
    expect(pointerSegments('/args/a~1b/3/c~0d')).toEqual(['args', 'a/b', 3, 'c~d']);
    expect(pointerSegments('')).toEqual([]);
  });
});
